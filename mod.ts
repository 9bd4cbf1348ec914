/**
 * toolwire: build command-line tools whose commands declare a contract — danger level, scopes, flags, exit
 * codes, and for protocol servers the stdout protocol — which the framework enforces at run time. Every
 * tool gets `tool manifest` and `tool mcp serve`.
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
export * from "./lib/command/mod.ts";
export { FRAMEWORK_VERSION } from "./lib/version.ts";

// The bytes a protocol session runs over: the process's stdio or any pair of Web Streams.
export * from "./lib/runtime/byte_channel.ts";
// A cross-process file lock for a tool's own state (a read-modify-write of one file by many processes).
export {
  type FileLockOptions,
  type FileLockSignal,
  type FileLockState,
  FileLockTimeoutError,
  withFileLock,
} from "./lib/runtime/file_lock.ts";

// Framing: bytes ↔ messages, for protocol loops of your own.
export * from "./lib/framing/line_framer.ts";
export * from "./lib/framing/content_length_framer.ts";
export * from "./lib/framing/serial_writer.ts";

// Protocols: JSON-RPC, the dual-era MCP server, and the LSP and DAP lifecycles for `serve` handlers.
export * from "./lib/protocol/json_rpc.ts";
export * from "./lib/protocol/mcp/mod.ts";
export * from "./lib/protocol/lsp/mod.ts";
export * from "./lib/protocol/dap/mod.ts";
export { ProtocolEndCode } from "./lib/protocol/session_end.ts";
