/**
 * What one MCP server answers with, built once and shared by all its sessions: its options, its catalog and
 * the `_meta` of its results. The sessions (mcp_session.ts) are the request pipeline every transport hands
 * its messages to.
 * @module
 */
import type { ToolCatalog } from "./tool_catalog.ts";

/**
 * What an MCP server serves, whatever it runs over.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options: McpCoreOptions = { serverInfo: { name: "notes", version: "1.0.0" }, catalog };
 * ```
 */
export interface McpCoreOptions {
  /** The server's name and version, sent in `serverInfo`. */
  serverInfo: { name: string; version: string; title?: string };
  /** Guidance for the client's model. */
  instructions?: string;
  /** The tools served. */
  catalog: ToolCatalog;
  /** Tools per `tools/list` page. @default 100 */
  pageSize?: number;
}

/**
 * What one server answers with, built once and shared by all its sessions.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const core = new McpCore({ serverInfo: { name: "notes", version: "1.0.0" }, catalog });
 * ```
 */
export class McpCore {
  readonly options: McpCoreOptions;
  readonly catalog: ToolCatalog;
  /** The `_meta` of every modern result. */
  readonly serverMeta: Record<string, unknown>;
  readonly serverMetaJson: string;
  readonly capabilities: Record<string, unknown>;
  /** Whether the tool list can change (the catalog can be watched). */
  readonly toolsCanChange: boolean;
  /** A diagnostic line (stderr). */
  readonly log: ((message: string) => void) | undefined;

  constructor(options: McpCoreOptions, log?: (message: string) => void) {
    this.options = options;
    this.log = log;
    this.catalog = options.catalog;
    this.serverMeta = {
      "io.modelcontextprotocol/serverInfo": {
        name: options.serverInfo.name,
        version: options.serverInfo.version,
      },
    };
    this.serverMetaJson = JSON.stringify(this.serverMeta);
    this.toolsCanChange = options.catalog.watch !== undefined;
    this.capabilities = { tools: this.toolsCanChange ? { listChanged: true } : {}, logging: {} };
  }
}
