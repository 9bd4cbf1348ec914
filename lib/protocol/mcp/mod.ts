/**
 * The dual-era MCP stdio server: the wire rules, independent of where tools come from.
 * @module
 */
export * from "./mcp_server.ts";
export * from "./request_meta.ts";
export * from "./tool_catalog.ts";
export * from "./versions.ts";
export * from "./mcp_listener.ts";
export * from "./slot_pool.ts";
