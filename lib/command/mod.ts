/**
 * Commands with declared contracts: registration, argv parsing, the executor, envelopes, the manifest.
 * @module
 */
import "./builtin_manifest.ts";
import "./builtin_mcp_serve.ts";
import "./builtin_mcp_install.ts";
import "./builtin_completions.ts";

export { type McpServeDefinition, type McpServeFlags, registerMcpServe } from "./builtin_mcp_serve.ts";
export {
  installMcpServer,
  type McpInstallDefinition,
  type McpInstallFlags,
  registerMcpInstall,
  type ServeTarget,
} from "./builtin_mcp_install.ts";
export * from "./cancellation.ts";
export * from "./command_error.ts";
export * from "./contract.ts";
export * from "./envelope.ts";
export * from "../exit_code.ts";
export * from "./framework_flags.ts";
export * from "./manifest.ts";
export { CANONICAL_JSON_MAX_DEPTH, canonicalJson, sha256Tag } from "../json.ts";
export { type ManifestIssue, validateManifest } from "./manifest_validation.ts";
export { CommandRegistry, mostSevere, type RegisteredCommand } from "./registry.ts";
export { createTool, Tool, type ToolOptions } from "./tool.ts";
