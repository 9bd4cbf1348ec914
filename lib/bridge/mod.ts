/**
 * What the `toolwire` binary (cmd/) uses of the library beyond its public entry points: starting and
 * reading another CLI (its command line, manifest, identity and environment), serving that CLI's commands
 * as MCP tools, comparing tool lists, and the checks of `toolwire check`. cmd/ imports `mod.ts`, the
 * subpaths (`lib/protocol/mcp/mod.ts`, `lib/framing/mod.ts`, ...) and this module, nothing else, so what
 * the binary depends on is listed here once. Internal: not a package export.
 * @module
 */

// Another CLI, from outside: its command line, how it is run, and what it says about itself.
export { quoteCommandLine, splitCommandLine } from "../command/cli/command_line.ts";
export {
  type ChildRun,
  KILL_GRACE_MS,
  lastLine,
  runChild,
  settlesWithin,
  STDOUT_BYTES,
  textTail,
} from "../command/run/child_run.ts";
export type { ExecTarget } from "../command/mcp/exec_catalog.ts";
export { loadExecManifest } from "../command/mcp/exec_manifest.ts";
export { loadExecIdentity } from "../command/mcp/exec_identity.ts";
export { envAllowList, execEnvironment } from "../command/mcp/exec_environment.ts";

// Its commands as MCP tools: the live catalog `mcp serve --exec` serves, the mapping, and drift.
export { LiveExecCatalog } from "../command/mcp/live_exec_catalog.ts";
export { mcpTool, servedCommands, toolName } from "../command/mcp/tool_mapping.ts";
export {
  checkTools,
  diffTools,
  hasDrift,
  type ListedTool,
  readToolList,
  type ToolDifference,
  type ToolDrift,
} from "../command/mcp/tool_diff.ts";
export { MCP_SERVE_FLAGS, mcpServeLimits } from "../command/builtins/mcp_serve_command.ts";
export { DEFAULT_MAX_IN_FLIGHT } from "../protocol/slot_pool.ts";

// The contract, checked from outside (`toolwire check`).
export { readEnvelope, validateEnvelope } from "../command/contract/envelope_validation.ts";
export { manifestEtag } from "../command/contract/manifest.ts";
export { COMMAND_FRAMEWORK_FLAGS } from "../command/contract/framework_flags.ts";
export { PROTOCOL_FORBIDDEN } from "../command/contract/registration_rules.ts";
export { renderPlainData } from "../command/cli/plain_text.ts";

// Small shared helpers: time limits, thrown values, JSON.
export { clearLongTimeout, limitMs, setLongTimeout } from "../command/run/time_limit.ts";
export { errorMessage } from "../command/run/thrown_error.ts";
export { isRecord, parseJson } from "../json.ts";

// The runtime: processes, files, sockets, the environment.
export { allEnv, type ChildExit, type ChildProcess, spawnChild } from "../runtime/mod.ts";
export { pathKind, readTextIfExists, removeFile } from "../runtime/fs.ts";
export { absolutePath } from "../runtime/config_file.ts";
export { connectSocket, type SocketAddress } from "../runtime/socket.ts";
