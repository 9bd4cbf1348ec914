/**
 * The header rules of MCP over Streamable HTTP, each a small pure function: which origins and hosts may
 * reach the endpoint (DNS rebinding), and the HTTP status a JSON-RPC error is answered with. The request
 * metadata headers are metadata_headers.ts's. docs/mcp_http.md describes them.
 * @module
 */
import { type RpcError, RpcErrorCode } from "../json_rpc.ts";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether a request's `Origin` may reach the endpoint: none (not a browser), one of `allowed`, or a loopback
 * origin on the port the request came to.
 *
 * @example
 * ```ts
 * originAllowed("http://localhost:7010", "127.0.0.1:7010", []); // true
 * originAllowed("http://evil.example.com", "127.0.0.1:7010", []); // false
 * ```
 */
export function originAllowed(
  origin: string | null,
  host: string | null,
  allowed: readonly string[],
): boolean {
  if (origin === null) return true;
  if (allowed.includes(origin.toLowerCase())) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_NAMES.has(url.hostname) &&
    host !== null && portOf(host) === (url.port || (url.protocol === "https:" ? "443" : "80"));
}

/**
 * Whether a `Host` header names a loopback host — what a server bound to loopback accepts, so that a page
 * whose name was rebound to 127.0.0.1 cannot reach it.
 *
 * @example
 * ```ts
 * loopbackHost("localhost:7010"); // true
 * loopbackHost("evil.example.com"); // false
 * ```
 */
export function loopbackHost(host: string | null): boolean {
  if (host === null) return false;
  const port = /:\d*$/.exec(host);
  return LOOPBACK_NAMES.has((port === null ? host : host.slice(0, port.index)).toLowerCase());
}

function portOf(host: string): string {
  return /:(\d+)$/.exec(host)?.[1] ?? "80";
}

const BAD_REQUEST_CODES = new Set<number>([
  RpcErrorCode.PARSE_ERROR,
  RpcErrorCode.INVALID_REQUEST,
  RpcErrorCode.HEADER_MISMATCH,
  RpcErrorCode.MISSING_REQUIRED_CLIENT_CAPABILITY,
  RpcErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
]);

/**
 * The HTTP status a modern JSON-RPC error answer goes with: 400 for a request the protocol refuses before any
 * method runs (parse errors, header mismatches, versions, a malformed `_meta`), 404 for an unknown method,
 * 200 for an error a method answered (an unknown tool).
 *
 * @example
 * ```ts
 * errorStatus({ code: -32601, message: "Method not found: x" }); // 404
 * ```
 */
export function errorStatus(error: RpcError): number {
  if (error.code === RpcErrorCode.METHOD_NOT_FOUND) return 404;
  if (BAD_REQUEST_CODES.has(error.code)) return 400;
  const data = error.data as { envelope?: unknown } | undefined;
  return error.code === RpcErrorCode.INVALID_PARAMS && data?.envelope !== undefined ? 400 : 200;
}
