/**
 * Which era serves a request, the one place that decides it: the era rules of docs/mcp_wire.md as pure
 * functions of the session's era so far, the request, and — over HTTP, where each POST stands alone — its
 * headers (docs/mcp_http.md#one-endpoint-both-eras), so they can be read and tested on their own.
 * @module
 */
import { type RpcError, RpcErrorCode } from "../json_rpc.ts";
import { metadataMismatch } from "./metadata_headers.ts";
import {
  claimsVersion,
  type LogLevel,
  type RequestMeta,
  unsupportedVersion,
  validateRequestMeta,
} from "./request_meta.ts";
import {
  ALL_VERSIONS,
  BATCHING_VERSION,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  negotiateLegacyVersion,
} from "./versions.ts";

/** A connection pinned to a legacy version: by `initialize`, or by a claim-less first request. */
export interface LegacyEra {
  kind: "legacy";
  /** The negotiated protocol version. */
  version: string;
  /** `initialize` was answered. */
  initialized: boolean;
  /** What the client declared in `initialize`. */
  capabilities: Record<string, unknown>;
  /** The level `logging/setLevel` chose; absent: no log notifications. */
  logLevel?: LogLevel;
}

/** Where a connection stands: nothing decided yet, or pinned to the modern or a legacy era. */
export type Era = { kind: "opening" } | { kind: "modern" } | LegacyEra;

/** How to serve one request, and whether it pins the connection's era. */
export type Route =
  /** Refused before any method runs: a bad or unsupported `_meta`, or `initialize` on a modern connection. */
  | { kind: "error"; error: RpcError }
  /** The legacy handshake, which pins the legacy era. */
  | { kind: "initialize" }
  /** A claim-less `ping` before anything is pinned: answered `{}`, pinning nothing. */
  | { kind: "ping" }
  /** A modern request with its validated `_meta`; `pins` when it decides the era. */
  | { kind: "modern"; meta: RequestMeta; pins: boolean }
  /** A legacy request in `era`; `pins` when it decides the era (a claim-less request before `initialize`). */
  | { kind: "legacy"; era: LegacyEra; pins: boolean };

/**
 * An HTTP request's headers, by lower-case name (`null`: absent): the hint a stateless transport gives in
 * place of a session's era.
 *
 * @example
 * ```ts
 * const headers = new Map([["mcp-protocol-version", "2025-11-25"]]);
 * const hint: HeaderHint = (name) => headers.get(name) ?? null;
 * ```
 */
export type HeaderHint = (name: string) => string | null;

/**
 * Routes one request. The opening message decides the era: `initialize` pins legacy; a request claiming a
 * version in `_meta` pins modern, except `server/discover`, answered without pinning; a claim-less `ping` is
 * answered without pinning; any other claim-less request is served, and pins, as legacy. Once modern, every
 * request's `_meta` is validated again, and `initialize` is refused naming the versions served. With
 * `headers` (HTTP), the request stands alone: its era comes from its body and its headers first
 * ({@linkcode headerEra}).
 *
 * @example
 * ```ts
 * routeRequest({ kind: "opening" }, "ping", undefined); // { kind: "ping" }
 * ```
 */
export function routeRequest(
  era: Era,
  method: string,
  params: Record<string, unknown> | undefined,
  headers?: HeaderHint,
): Route {
  if (headers !== undefined) {
    const decided = headerEra(headers, method, params);
    if ("error" in decided) return { kind: "error", error: decided.error };
    era = decided.era;
  }
  if (era.kind === "legacy") return { kind: "legacy", era, pins: false };
  if (era.kind === "modern") {
    if (method === "initialize") {
      return { kind: "error", error: unsupportedVersion(requestedVersion(params)) };
    }
    return modern(params, false);
  }
  if (method === "initialize") return { kind: "initialize" };
  if (method === "server/discover") return modern(params, false);
  if (claimsVersion(params)) return modern(params, true);
  if (method === "ping") return { kind: "ping" };
  // A claim-less request before `initialize`: the reference SDK servers serve it as legacy too.
  return {
    kind: "legacy",
    era: { kind: "legacy", version: negotiateLegacyVersion(undefined), initialized: false, capabilities: {} },
    pins: true,
  };
}

function modern(params: Record<string, unknown> | undefined, pins: boolean): Route {
  const checked = validateRequestMeta(params);
  return "error" in checked
    ? { kind: "error", error: checked.error }
    : { kind: "modern", meta: checked, pins };
}

function requestedVersion(params: Record<string, unknown> | undefined): string {
  return typeof params?.protocolVersion === "string" ? params.protocolVersion : "unknown";
}

/**
 * The era of one request that stands alone (an HTTP POST), from its body and its headers. A request that
 * claims 2026-07-28 (in `_meta`, as `server/discover`, or in `MCP-Protocol-Version`) is modern: its metadata
 * headers must match its body (-32020), and `initialize`, which that era lacks, is -32601. Anything else is
 * legacy at the header's version (absent: 2025-03-26, whose clients sent none); `initialize` opens.
 *
 * @example
 * ```ts
 * const headers = new Map([["mcp-protocol-version", "2025-11-25"]]);
 * headerEra((name) => headers.get(name) ?? null, "tools/list", undefined);
 * // { era: { kind: "legacy", version: "2025-11-25", initialized: false, capabilities: {} } }
 * ```
 */
export function headerEra(
  headers: HeaderHint,
  method: string,
  params: Record<string, unknown> | undefined,
): { era: Era } | { error: RpcError } {
  const version = headers("mcp-protocol-version");
  const modern = claimsVersion(params) || method === "server/discover" ||
    (version !== null && MODERN_VERSIONS.includes(version));
  if (modern) {
    const meta = params?._meta as Record<string, unknown> | undefined;
    const mismatch = metadataMismatch(headers, method, meta?.[VERSION_KEY], params?.name);
    if (mismatch !== undefined) return { error: mismatch };
    if (method !== "initialize") return { era: { kind: "modern" } };
    return {
      error: {
        code: RpcErrorCode.METHOD_NOT_FOUND,
        message: `Method not found: initialize is not part of 2026-07-28 (versions served: ${
          ALL_VERSIONS.join(", ")
        }; a legacy client sends initialize without the 2026-07-28 _meta)`,
      },
    };
  }
  if (method === "initialize") return { era: { kind: "opening" } };
  const legacy = version ?? BATCHING_VERSION;
  // A request without the modern _meta may still move to either era: every version served is named.
  if (!LEGACY_VERSIONS.includes(legacy)) return { error: unsupportedVersion(legacy, ALL_VERSIONS) };
  return { era: { kind: "legacy", version: legacy, initialized: false, capabilities: {} } };
}

/**
 * The era a batch runs in, or why it is refused: only legacy 2025-03-26 takes batches — a session pinned to
 * it, or (`headers`, HTTP) a POST whose `MCP-Protocol-Version` names it or is absent.
 *
 * @example
 * ```ts
 * batchEra({ kind: "modern" }, 2).error?.message; // "Invalid request: batching is not supported in this protocol version"
 * ```
 */
export function batchEra(era: Era, size: number, headers?: HeaderHint): { era: LegacyEra; error?: never } | {
  error: RpcError;
} {
  const version = headers === undefined
    ? (era.kind === "legacy" ? era.version : undefined)
    : headers("mcp-protocol-version") ?? BATCHING_VERSION;
  if (size > 0 && version === BATCHING_VERSION) {
    return {
      era: era.kind === "legacy" ? era : { kind: "legacy", version, initialized: false, capabilities: {} },
    };
  }
  return {
    error: {
      code: RpcErrorCode.INVALID_REQUEST,
      message: size === 0
        ? "Invalid request: empty batch"
        : "Invalid request: batching is not supported in this protocol version",
    },
  };
}

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
