/**
 * toolwire: build command-line tools whose commands declare a contract — danger level, scopes, flags, exit
 * codes, and for protocol servers the stdout protocol — which the framework enforces at run time. Every
 * tool gets `tool manifest`, `tool mcp serve`, `tool mcp install` and `tool completions`.
 *
 * This entry point is what a tool needs. Protocol servers of your own import the subpaths: `/mcp` (the MCP
 * server and its tool catalog), `/lsp`, `/dap` (the lifecycles for `serve` handlers) and `/framing`
 * (framers, the serial writer, the byte channel).
 *
 * @example
 * ```ts
 * import { createTool, ExitCode, CommandError } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "hello", version: "1.0.0", description: "Greets people" });
 * tool.command("greet", {
 *   description: "Greet someone",
 *   danger_level: "safe",
 *   required_scopes: [],
 *   flags: { name: { type: "string", description: "Who to greet", required: true } },
 *   exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },
 *   run: (ctx) => ({ greeting: `hello ${ctx.flags.name}` }),
 * });
 * await tool.main();
 * ```
 * @module
 */

// The tool, its commands, and what a handler receives and returns.
export { createTool, Tool, type ToolOptions } from "./lib/command/tool.ts";
export type {
  AnyCommandDefinition,
  CommandContext,
  CommandContract,
  CommandData,
  CommandDefinition,
  CommandExample,
  DangerLevel,
  FlagSpec,
  FlagType,
  FlagValues,
  OutputFormat,
  PlainRenderer,
  PositionalSpec,
  PositionalValues,
  ProgressUpdate,
  ProtocolCommandDefinition,
  ProtocolFailure,
  ProtocolIO,
  ProtocolLoop,
} from "./lib/command/contract/command_definition.ts";

// Failing with a declared exit code.
export {
  CommandError,
  type CommandErrorOptions,
  RegistrationError,
} from "./lib/command/contract/command_error.ts";
export { ExitCode, type ExitCodeEntry, type ExitCodeTable, type SideEffects } from "./lib/exit_code.ts";

// What every invocation prints, and the manifest that describes every command.
export type {
  ErrorDetail,
  ResponseEnvelope,
  ResponseMeta,
  Warning,
} from "./lib/command/contract/envelope.ts";
export type { CommandEntry, FlagEntry, Manifest, PositionalEntry } from "./lib/command/contract/manifest.ts";
export { type ManifestIssue, validateManifest } from "./lib/command/contract/manifest_validation.ts";
// Who called, when an MCP request over HTTP was authenticated (`CommandContext.caller`, docs/auth.md).
export type { McpCaller } from "./lib/protocol/mcp/caller.ts";

// Extending the built-in `mcp serve`, `mcp install` and `mcp listen` (`ToolOptions.extendMcpServe`, …).
export type { McpServeDefinition, McpServeFlags } from "./lib/command/builtins/mcp_serve_command.ts";
export {
  listenForClients,
  type McpListenDefinition,
  withSharedState,
} from "./lib/command/builtins/mcp_listen_command.ts";
export type { McpListenFlags, ServedTools } from "./lib/command/builtins/mcp_listen/listen_flags.ts";
export { installMcpServer, type McpInstallDefinition } from "./lib/command/builtins/mcp_install_command.ts";
export type { McpInstallFlags, ServeTarget } from "./lib/command/builtins/mcp_install/install_flags.ts";

// A cross-process file lock for a tool's own state (a read-modify-write of one file by many processes).
export {
  type FileLockOptions,
  type FileLockSignal,
  type FileLockState,
  FileLockTimeoutError,
  withFileLock,
} from "./lib/runtime/file_lock_api.ts";

// What the instances of a fleet share: idempotency keys and confirmations in one store (docs/scaling.md).
export {
  type SharedState,
  type StateStore,
  StateStoreUnavailableError,
  type StateSwap,
} from "./lib/command/contract/state_store.ts";
export { type RedisCommands, redisStateStore } from "./lib/command/run/redis_state_store.ts";

export { FRAMEWORK_VERSION } from "./lib/version.ts";
