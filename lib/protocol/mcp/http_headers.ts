/**
 * The header rules of MCP over Streamable HTTP, each a small pure function: which origins and hosts may
 * reach the endpoint (DNS rebinding), the request metadata headers of 2026-07-28 checked against the body
 * (the Base64 sentinel decoded first), and the HTTP status a JSON-RPC error is answered with. docs/mcp_http.md
 * describes them.
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

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * A header value as the client meant it: a Base64 sentinel (`=?base64?…?=`) decoded from UTF-8, any other
 * value as it is; `undefined` for a sentinel whose inside is not Base64 of UTF-8 (a client encodes every
 * value of that shape, so it is malformed, not a plain value).
 *
 * @example
 * ```ts
 * headerValue("=?base64?SGVsbG8sIOS4lueVjA==?="); // "Hello, 世界"
 * headerValue("get_weather"); // "get_weather"
 * ```
 */
export function headerValue(value: string): string | undefined {
  const sentinel = SENTINEL.exec(value);
  if (sentinel === null) return value;
  const encoded = sentinel[1]!;
  if (!BASE64.test(encoded)) return undefined;
  try {
    return strict.decode(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/**
 * The request metadata headers of a 2026-07-28 request checked against its body: `MCP-Protocol-Version`
 * against `_meta`'s version, `Mcp-Method` against `method`, and for `tools/call` `Mcp-Name` against
 * `params.name`. The error (-32020) names what is wrong, or `undefined` when all match.
 *
 * @example
 * ```ts
 * const headers = new Map([["mcp-protocol-version", "2026-07-28"], ["mcp-method", "tools/list"]]);
 * metadataMismatch((name) => headers.get(name) ?? null, "tools/list", "2026-07-28", undefined); // undefined
 * ```
 */
export function metadataMismatch(
  header: (name: string) => string | null,
  method: string,
  bodyVersion: unknown,
  name: unknown,
): RpcError | undefined {
  const version = header("mcp-protocol-version");
  if (version === null) return mismatch("the MCP-Protocol-Version header is missing");
  if (typeof bodyVersion === "string" && version !== bodyVersion) {
    return mismatch(
      `MCP-Protocol-Version header value '${version}' does not match body value '${bodyVersion}'`,
    );
  }
  const mcpMethod = header("mcp-method");
  if (mcpMethod === null) return mismatch("the Mcp-Method header is missing");
  if (mcpMethod !== method) {
    return mismatch(`Mcp-Method header value '${mcpMethod}' does not match body value '${method}'`);
  }
  if (method !== "tools/call") return undefined;
  const sent = header("mcp-name");
  if (sent === null) return mismatch("the Mcp-Name header is missing");
  const decoded = headerValue(sent);
  if (decoded === undefined) return mismatch(`Mcp-Name header value '${sent}' is not valid Base64 of UTF-8`);
  if (decoded !== name) {
    return mismatch(`Mcp-Name header value '${decoded}' does not match body value '${String(name)}'`);
  }
  return undefined;
}

function mismatch(detail: string): RpcError {
  return { code: RpcErrorCode.HEADER_MISMATCH, message: `Header mismatch: ${detail}` };
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
