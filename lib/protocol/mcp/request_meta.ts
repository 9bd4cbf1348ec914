import { type RpcError, RpcErrorCode } from "../json_rpc.ts";
import { MODERN_VERSIONS } from "./versions.ts";
import { isRecord, SAFE_INTEGER_RANGE } from "../../json.ts";

// The `_meta` keys of a modern request.
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel";

/** MCP logging levels, least to most severe (RFC 5424 names). */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One MCP logging level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The per-request metadata of a modern request, validated. */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The request opted in to `notifications/message` at this level and above. */
  logLevel?: LogLevel;
}

/**
 * Whether a request claims a protocol version in `params._meta` — the mark of a modern request.
 *
 * @example
 * ```ts
 * claimsVersion({ _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }); // true
 * ```
 */
export function claimsVersion(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return typeof meta === "object" && meta !== null && Object.hasOwn(meta, VERSION_KEY);
}

/**
 * Validates the `_meta` envelope every modern request carries (docs/mcp_wire.md#request-metadata), on every
 * request — also after the connection is pinned — because a server must not infer anything from earlier
 * requests.
 * A missing or malformed key is `-32602`; a version not served is `-32022` with `supported` and `requested`.
 *
 * @example
 * ```ts
 * import { errorResponse } from "../json_rpc.ts";
 *
 * declare const params: Record<string, unknown> | undefined;
 * declare function reply(message: Record<string, unknown>): void;
 * const checked = validateRequestMeta(params);
 * if ("error" in checked) reply(errorResponse(7, checked.error));
 * ```
 */
export function validateRequestMeta(
  params: Record<string, unknown> | undefined,
): RequestMeta | { error: RpcError } {
  const meta = params?._meta;
  if (!isRecord(meta)) return envelopeError("_meta", "missing");
  const fields = meta;
  const version = fields[VERSION_KEY];
  if (!Object.hasOwn(fields, VERSION_KEY)) return envelopeError(VERSION_KEY, "missing");
  if (typeof version !== "string") return envelopeError(VERSION_KEY, "not a string");
  const capabilities = fields[CAPABILITIES_KEY];
  if (!Object.hasOwn(fields, CAPABILITIES_KEY)) return envelopeError(CAPABILITIES_KEY, "missing");
  if (!isRecord(capabilities)) return envelopeError(CAPABILITIES_KEY, "not an object");
  const clientInfo = fields[CLIENT_INFO_KEY];
  if (clientInfo !== undefined && !isRecord(clientInfo)) {
    return envelopeError(CLIENT_INFO_KEY, "not an object");
  }
  const logLevel = fields[LOG_LEVEL_KEY];
  if (logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
    return envelopeError(LOG_LEVEL_KEY, `not one of ${LOG_LEVELS.join(", ")}`);
  }
  const token = fields.progressToken;
  if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token)) {
    return envelopeError("progressToken", `not a string or an integer ${SAFE_INTEGER_RANGE}`);
  }
  if (!MODERN_VERSIONS.includes(version)) return { error: unsupportedVersion(version) };
  // Assigned, not spread in: this runs for every modern request (docs/performance.md#code-shapes).
  const checked: RequestMeta = { protocolVersion: version, clientCapabilities: capabilities };
  if (clientInfo !== undefined) checked.clientInfo = clientInfo;
  if (logLevel !== undefined) checked.logLevel = logLevel as LogLevel;
  // The metadata itself, not wrapped in one more object per request: a RequestMeta has no `error`.
  return checked;
}

/**
 * The `-32022` error for a version this server does not serve, naming the versions a client of that kind
 * may ask for: by default the modern ones, the list `server/discover` gives (a client checks that the two
 * agree).
 *
 * @example
 * ```ts
 * unsupportedVersion("1900-01-01").data; // { supported: ["2026-07-28"], requested: "1900-01-01" }
 * ```
 */
export function unsupportedVersion(
  requested: string,
  supported: readonly string[] = MODERN_VERSIONS,
): RpcError {
  return {
    code: RpcErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
    message: "Unsupported protocol version",
    data: { supported: [...supported], requested },
  };
}

function envelopeError(key: string, problem: string): { error: RpcError } {
  return {
    error: {
      code: RpcErrorCode.INVALID_PARAMS,
      message: `Invalid _meta envelope: ${key}: ${problem}`,
      data: { envelope: { key, problem } },
    },
  };
}
