import type { FlagSpec } from "../../contract/command_definition.ts";
import { MCP_CLIENT_NAMES } from "./client_names.ts";

/**
 * The flags of the built-in `mcp install`.
 *
 * @example
 * ```ts
 * MCP_INSTALL_FLAGS.client.enum_values; // ["claude-desktop", "claude-code", "vscode", "cursor"]
 * ```
 */
export const MCP_INSTALL_FLAGS = {
  client: {
    type: "enum",
    enum_values: MCP_CLIENT_NAMES,
    required: true,
    description: "The MCP client to register the server with",
  },
  scope: {
    type: "enum",
    enum_values: ["user", "project"],
    description:
      "user: your own configuration; project: the one in this directory (.mcp.json, .vscode/mcp.json, " +
      ".cursor/mcp.json). Default: project for vscode, user for the others",
  },
  name: {
    type: "string",
    description: "The server's name in the client's configuration (default: the tool's name)",
  },
  config: {
    type: "string",
    description: "The configuration file to change, instead of the client's usual one",
  },
  env: { type: "array", description: "KEY=VALUE for the server's environment; repeat for several" },
  "read-only": {
    type: "boolean",
    default: false,
    description: "Register `mcp serve --read-only`: only the tool's safe commands",
  },
  force: {
    type: "boolean",
    default: false,
    description: "Replace a server of the same name that has another entry",
  },
  print: {
    type: "boolean",
    default: false,
    description: "Print the configuration snippet only; no file is read or changed",
  },
} as const satisfies Record<string, FlagSpec>;

/** The flags of the built-in `mcp install`. */
export type McpInstallFlags = typeof MCP_INSTALL_FLAGS;

/** What the registered server runs, after the command that starts the tool. */
export interface ServeTarget {
  /** The tool's own words: `["mcp", "serve"]` and the flags that server needs. */
  serveArgs: readonly string[];
  /** The server's name when `--name` is not given. */
  defaultName: string;
  /**
   * The Deno permission flags the server is started with, when the tool runs from source on Deno
   * ({@linkcode ToolOptions.denoPermissions}); undeclared, it gets none and the install warns.
   */
  denoPermissions?: readonly string[];
}
