/**
 * The bridge: another CLI, in any language, from outside — its command line split like a shell would, its
 * manifest, identity and environment, each call a child process whose output becomes an envelope, its
 * commands as MCP tools (a live catalog that follows the CLI as it changes), and tool-list drift. The modules
 * of this folder hold it; this one is what the `toolwire` binary (cmd/) uses of them and of the library
 * beyond its public entry points, listed once. cmd/ imports `mod.ts`, the subpaths and this module, nothing
 * else. Internal: not a package export.
 * @module
 */

// Another CLI, from outside: its command line, how it is run, and what it says about itself.
export { quoteCommandLine, splitCommandLine } from "./command_line.ts";
export {
  type ChildRun,
  KILL_GRACE_MS,
  lastLine,
  runChild,
  settlesWithin,
  STDOUT_BYTES,
  textTail,
} from "./child_run.ts";
export type { ExecTarget } from "./exec_catalog.ts";
export { loadExecManifest, programHint } from "./exec_manifest.ts";
export { loadExecIdentity } from "./exec_identity.ts";
export { envAllowList, execEnvironment } from "./exec_environment.ts";

// Its commands as MCP tools: the live catalog `mcp serve --exec` serves, the mapping, and drift.
export { LiveExecCatalog } from "./live_exec_catalog.ts";
export { type BridgedServer, prepareBridgedServer } from "./bridged_server.ts";
export { mcpTool, servedCommands, toolName } from "../command/mcp/tool_mapping.ts";
export {
  checkTools,
  diffTools,
  hasDrift,
  type ListedTool,
  readToolList,
  type ToolDifference,
  type ToolDrift,
} from "./tool_diff.ts";
export { mcpServeLimits } from "../command/builtins/mcp_serve_command.ts";

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
export { allEnv } from "../runtime/environment.ts";
export { type ChildExit, type ChildProcess, spawnChild } from "../runtime/child_process.ts";
export { compileOnMainThread } from "../runtime/compile_jobs.ts";
export { readTextIfExists } from "../runtime/fs.ts";
export { absolutePath } from "../runtime/paths.ts";
