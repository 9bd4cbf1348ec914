/**
 * The request metadata headers of 2026-07-28 over HTTP (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`):
 * a value as the client meant it (the Base64 sentinel decoded), and the headers checked against the body —
 * part of the era's rules (era.ts). docs/mcp_http.md describes them.
 * @module
 */
import { type RpcError, RpcErrorCode } from "../json_rpc.ts";

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
