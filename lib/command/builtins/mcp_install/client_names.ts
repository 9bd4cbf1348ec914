/**
 * The names `tool mcp install --client` takes. They are all the flag's definition needs of the clients, and
 * this module is all of them that every start loads: the clients' table (mcp_clients.ts) is loaded with the
 * work of `mcp install` (on npm, in the second chunk).
 * @module
 */

/**
 * The clients, by the name `--client` takes.
 *
 * @example
 * ```ts
 * MCP_CLIENT_NAMES.includes("cursor"); // true
 * ```
 */
export const MCP_CLIENT_NAMES = ["claude-desktop", "claude-code", "vscode", "cursor"] as const;

/** A client `--client` names. */
export type McpClientName = (typeof MCP_CLIENT_NAMES)[number];
