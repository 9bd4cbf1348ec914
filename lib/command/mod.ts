/**
 * Commands with declared contracts: registration, argv parsing, the executor, envelopes, the manifest.
 * @module
 */
export {
  type McpServeDefinition,
  type McpServeFlags,
} from "./builtins/mcp_serve_command.ts";
export {
  installMcpServer,
  type McpInstallDefinition,
  type McpInstallFlags,
  type ServeTarget,
} from "./builtins/mcp_install_command.ts";
export * from "./run/cancellation.ts";
export * from "./contract/command_error.ts";
export * from "./contract/contract.ts";
export * from "./contract/envelope.ts";
export * from "../exit_code.ts";
export * from "./contract/framework_flags.ts";
export * from "./contract/manifest.ts";
export { CANONICAL_JSON_MAX_DEPTH, canonicalJson, sha256Tag } from "../json.ts";
export { type ManifestIssue, validateManifest } from "./contract/manifest_validation.ts";
export { CommandRegistry, mostSevere, type RegisteredCommand } from "./contract/registry.ts";
export { createTool, Tool, type ToolOptions } from "./tool.ts";
