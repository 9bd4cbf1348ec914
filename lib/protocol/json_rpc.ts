import { SAFE_INTEGER_RANGE } from "../json.ts";

/** A JSON-RPC 2.0 request id. `null` appears only on error responses to unreadable requests. */
export type JsonRpcId = string | number;

/** JSON-RPC and protocol error codes, by name. */
export const RpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** LSP: a request arrived before `initialize`. */
  SERVER_NOT_INITIALIZED: -32002,
  /** LSP: the request was cancelled. */
  REQUEST_CANCELLED: -32800,
  /** MCP 2026-07-28 over HTTP: a header is missing, malformed, or does not match the body. */
  HEADER_MISMATCH: -32020,
  /** MCP 2026-07-28: the request needs a client capability it did not declare. */
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  /** MCP 2026-07-28: the requested protocol version is not served. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/** The `error` member of a JSON-RPC error response. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A message read off the wire, sorted by shape. */
export type IncomingMessage =
  | { kind: "request"; id: JsonRpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: "notification"; method: string; params: Record<string, unknown> | undefined }
  | { kind: "response"; id: JsonRpcId | null }
  | { kind: "batch"; items: unknown[] }
  | { kind: "invalid"; id: JsonRpcId | null; reason: string };

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/**
 * Decodes one message's bytes: strict UTF-8 (invalid bytes are a parse error, never U+FFFD smuggled into a
 * string), then JSON.
 *
 * @example
 * ```ts
 * const decoded = decodeJson(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
 * if (decoded.ok) console.log(decoded.value);
 * ```
 */
export function decodeJson(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false; error: RpcError } {
  let text: string;
  try {
    // The lenient decoder is several times faster; only text showing U+FFFD may hide invalid bytes, and
    // only that text pays for the strict check.
    text = lenient.decode(bytes);
    if (text.includes("\uFFFD")) strict.decode(bytes);
  } catch {
    return {
      ok: false,
      error: { code: RpcErrorCode.PARSE_ERROR, message: "Parse error: the message is not valid UTF-8" },
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: RpcErrorCode.PARSE_ERROR, message: `Parse error: ${detail}` } };
  }
}

/**
 * Sorts a parsed JSON value into a JSON-RPC 2.0 message kind, checking the envelope's shape: `jsonrpc`
 * "2.0", an id that is a string or an integer, a string method, params an object when present.
 *
 * @example
 * ```ts
 * classifyMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" }); // { kind: "request", id: 1, ... }
 * ```
 */
export function classifyMessage(value: unknown): IncomingMessage {
  if (Array.isArray(value)) return { kind: "batch", items: value };
  if (typeof value !== "object" || value === null) {
    return { kind: "invalid", id: null, reason: "a JSON-RPC message is an object" };
  }
  const message = value as Record<string, unknown>;
  const hasId = Object.hasOwn(message, "id");
  const id = isJsonRpcId(message.id) ? message.id : null;
  if (message.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'jsonrpc must be "2.0"' };
  if (hasId && !isJsonRpcId(message.id) && message.id !== null) {
    return { kind: "invalid", id: null, reason: ID_RULE };
  }
  if (!Object.hasOwn(message, "method")) {
    if (Object.hasOwn(message, "result") || Object.hasOwn(message, "error")) return { kind: "response", id };
    return { kind: "invalid", id, reason: "a request needs a method" };
  }
  if (typeof message.method !== "string") return { kind: "invalid", id, reason: "method must be a string" };
  const params = message.params;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return { kind: "invalid", id, reason: "params must be an object" };
  }
  const typedParams = params as Record<string, unknown> | undefined;
  if (!hasId) return { kind: "notification", method: message.method, params: typedParams };
  if (id === null) return { kind: "invalid", id: null, reason: ID_RULE };
  return { kind: "request", id, method: message.method, params: typedParams };
}

const ID_RULE = `id must be a string or an integer ${SAFE_INTEGER_RANGE}`;

/**
 * Whether a value can be a request's id: a string, or an integer a double holds exactly (the answer must
 * carry the very id that was sent).
 *
 * @example
 * ```ts
 * isJsonRpcId(7); // true
 * isJsonRpcId(2 ** 53); // false
 * ```
 */
export function isJsonRpcId(id: unknown): id is JsonRpcId {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
}

/**
 * A JSON-RPC success response.
 *
 * @example
 * ```ts
 * resultResponse(1, {}); // { jsonrpc: "2.0", id: 1, result: {} }
 * ```
 */
export function resultResponse(id: JsonRpcId, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result };
}

/**
 * A JSON-RPC error response; `id` is `null` when the request's id could not be read.
 *
 * @example
 * ```ts
 * errorResponse(null, { code: RpcErrorCode.PARSE_ERROR, message: "Parse error" });
 * ```
 */
export function errorResponse(id: JsonRpcId | null, error: RpcError): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error };
}

/**
 * A JSON-RPC notification.
 *
 * @example
 * ```ts
 * notification("notifications/progress", { progressToken: 1, progress: 0.5 });
 * ```
 */
export function notification(method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}
