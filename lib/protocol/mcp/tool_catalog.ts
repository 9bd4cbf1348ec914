import type { CancelScope } from "../cancel_scope.ts";
import type { RpcError } from "../json_rpc.ts";
import type { McpCaller } from "./caller.ts";
import type { LogLevel } from "./request_meta.ts";

/** Hints about a tool's behaviour; MCP's defaults are pessimistic (destructive, open-world). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool as `tools/list` shows it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  /** A JSON Schema whose root is `type: "object"`. */
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

/** A `tools/call` result (without the era-specific `resultType` and `_meta`). */
export interface CallToolResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * A `tools/call` result already serialised (docs/contract.md#commands-as-mcp-tools): `structuredContent` is
 * the value whose JSON text is `json`, and `content` is one text item holding that same text. The server
 * splices `json` into the reply as it is rather than serialising the value a second time; it must be the
 * output of `JSON.stringify`.
 */
export interface JsonToolResult {
  /** `JSON.stringify(structuredContent)`. */
  json: string;
  isError: boolean;
}

/** A modern interim result asking for input before the call can finish (docs/mcp_wire.md#tool-calls). */
export interface InputRequiredResult {
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
}

/** One `tools/call`, as the catalog receives it. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Echoed back by a modern client retrying after `input_required`; attacker-controlled. */
  requestState?: unknown;
  /** The client's answers to `inputRequests`, keyed like them; attacker-controlled. */
  inputResponses?: unknown;
}

/** What a tool call may use while it runs. */
export interface ToolCallContext {
  /** Which era the connection speaks. */
  era: "modern" | "legacy";
  /** The client's declared capabilities: per request (modern) or from `initialize` (legacy). */
  clientCapabilities: Record<string, unknown>;
  /** Fires when the client cancels the call or the server shuts down. Built on first read. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation as `signal`, for code that only needs to listen: it builds no AbortSignal, so a
   * call that nobody cancels costs nothing for it.
   */
  readonly cancellation: CancelScope;
  /**
   * Who called, when the transport authenticated the request (HTTP with an authorizer, docs/auth.md);
   * `undefined` over stdio, sockets and unauthenticated HTTP.
   */
  readonly caller: McpCaller | undefined;
  /** Sends `notifications/progress` when the client asked for progress; values must increase. */
  progress(update: { progress: number; total?: number; message?: string }): void;
  /** Sends `notifications/message` when the client opted in at this level or below. */
  log(level: LogLevel, data: unknown): void;
}

/** How a tool call ended. */
export type ToolCallOutcome =
  | { kind: "result"; result: CallToolResult }
  | { kind: "json_result"; result: JsonToolResult }
  | { kind: "input_required"; result: InputRequiredResult }
  | { kind: "unknown_tool" }
  | { kind: "error"; error: RpcError };

/**
 * The tools an MCP server offers. The server owns the wire — eras, `_meta`, framing, cancellation — and
 * asks the catalog only what tools exist and what a call returns.
 *
 * @example
 * ```ts
 * const catalog: ToolCatalog = {
 *   tools: () => [{ name: "echo", inputSchema: { type: "object" } }],
 *   call: async (call) => ({ kind: "result", result: { content: [{ type: "text", text: "hi" }] } }),
 * };
 * ```
 */
export interface ToolCatalog {
  /** The tools, in a deterministic order. */
  tools(): readonly McpTool[];
  /** Runs one call. */
  call(call: ToolCall, context: ToolCallContext): Promise<ToolCallOutcome>;
  /**
   * Calls `onChange` whenever `tools()` starts answering differently, until the returned function is called.
   * Absent: the list never changes. A server advertises `listChanged` only for a catalog that has it.
   */
  watch?(onChange: () => void): () => void;
  /**
   * The scopes a caller must hold to see and call the tool `name` (docs/auth.md); `undefined` for a tool the
   * catalog does not have. Absent: no tool requires any, so every authenticated caller may use them all.
   */
  requiredScopes?(name: string): readonly string[] | undefined;
}
