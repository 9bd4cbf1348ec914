/**
 * Which era serves a request on a dual-era connection: the era rules of docs/mcp_wire.md as one pure
 * function of the connection's era so far and the request, so they can be read and tested on their own.
 * @module
 */
import type { RpcError } from "../json_rpc.ts";
import {
  claimsVersion,
  type LogLevel,
  type RequestMeta,
  unsupportedVersion,
  validateRequestMeta,
} from "./request_meta.ts";
import { negotiateLegacyVersion } from "./versions.ts";

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
 * Routes one request. The opening message decides the era: `initialize` pins legacy; a request claiming a
 * version in `_meta` pins modern, except `server/discover`, answered without pinning; a claim-less `ping` is
 * answered without pinning; any other claim-less request is served, and pins, as legacy. Once modern, every
 * request's `_meta` is validated again, and `initialize` is refused naming the versions served.
 *
 * @example
 * ```ts
 * routeRequest({ kind: "opening" }, "ping", undefined); // { kind: "ping" }
 * ```
 */
export function routeRequest(era: Era, method: string, params: Record<string, unknown> | undefined): Route {
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
