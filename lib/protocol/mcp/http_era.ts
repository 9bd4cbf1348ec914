/**
 * Which era serves one POST: each is classified on its own, from its body and its headers, since there is no
 * session to remember an era in (docs/mcp_http.md#one-endpoint-both-eras).
 * @module
 */
import { type RpcError, RpcErrorCode } from "../json_rpc.ts";
import type { Era } from "./era.ts";
import { metadataMismatch } from "./http_headers.ts";
import { claimsVersion, unsupportedVersion } from "./request_meta.ts";
import { ALL_VERSIONS, LEGACY_VERSIONS, MODERN_VERSIONS } from "./versions.ts";

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/**
 * The era a request is served in, or the refusal before any method runs with its HTTP status. A request that
 * claims 2026-07-28 (in `_meta`, as `server/discover`, or in `MCP-Protocol-Version`) is modern: its metadata
 * headers must match its body (400 -32020), and `initialize`, which that era lacks, is 404 -32601. Anything
 * else is legacy at the header's version (absent: 2025-03-26, whose clients sent none); `initialize` opens.
 *
 * @example
 * ```ts
 * const headers = new Map([["mcp-protocol-version", "2025-11-25"]]);
 * requestEra((name) => headers.get(name) ?? null, "tools/list", undefined);
 * // { era: { kind: "legacy", version: "2025-11-25", initialized: false, capabilities: {} } }
 * ```
 */
export function requestEra(
  header: (name: string) => string | null,
  method: string,
  params: Record<string, unknown> | undefined,
): { era: Era } | { status: number; error: RpcError } {
  const version = header("mcp-protocol-version");
  const modern = claimsVersion(params) || method === "server/discover" ||
    (version !== null && MODERN_VERSIONS.includes(version));
  if (modern) {
    const meta = params?._meta as Record<string, unknown> | undefined;
    const mismatch = metadataMismatch(header, method, meta?.[VERSION_KEY], params?.name);
    if (mismatch !== undefined) return { status: 400, error: mismatch };
    if (method !== "initialize") return { era: { kind: "modern" } };
    return {
      status: 404,
      error: {
        code: RpcErrorCode.METHOD_NOT_FOUND,
        message: `Method not found: initialize is not part of 2026-07-28 (versions served: ${
          ALL_VERSIONS.join(", ")
        }; a legacy client sends initialize without the 2026-07-28 _meta)`,
      },
    };
  }
  if (method === "initialize") return { era: { kind: "opening" } };
  const legacy = version ?? "2025-03-26";
  if (!LEGACY_VERSIONS.includes(legacy)) return { status: 400, error: unsupportedVersion(legacy) };
  return { era: { kind: "legacy", version: legacy, initialized: false, capabilities: {} } };
}
