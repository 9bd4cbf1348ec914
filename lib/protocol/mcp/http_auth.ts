/**
 * The HTTP side of authorization (docs/auth.md): what an endpoint asks of an {@linkcode HttpAuthorizer}, the
 * Protected Resource Metadata it serves (RFC 9728) at the well-known paths, and its challenges — 401 with
 * `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` for a request without a valid token, 403
 * `insufficient_scope` with the scopes a call needs (RFC 6750 §3). How a token is validated is the
 * authorizer's: oauth_resource_server.ts checks OAuth 2.1 JWT access tokens.
 * @module
 */
import type { HttpResponse } from "../../runtime/http_exchange.ts";
import { type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import { rpcError } from "./http_answers.ts";
import { type McpCaller, scopeRefusal } from "./caller.ts";
import type { ToolCatalog } from "./tool_catalog.ts";

/**
 * Why a request was not authenticated: it carried no bearer token, its token is not valid here, or tokens
 * cannot be checked right now (the authorization server's keys cannot be fetched).
 *
 * @example
 * ```ts
 * const refusal: AuthRefusal = { refused: "invalid_token", description: "the token expired" };
 * ```
 */
export interface AuthRefusal {
  refused: "no_token" | "invalid_token" | "unavailable";
  /** Why, for the client (the challenge's `error_description`): never the token, nor any part of it. */
  description: string;
}

/**
 * What an authorizer made of one request's credentials: who called, or why not.
 *
 * @example
 * ```ts
 * const ok: Authentication = { caller: { subject: "ci", scopes: ["notes:read"], claims: {} } };
 * ```
 */
export type Authentication = { caller: McpCaller } | AuthRefusal;

/**
 * Authenticates the requests of an MCP endpoint (the `authorizer` option of `McpHttpOptions`). With one, every
 * POST needs a valid bearer token, the endpoint serves its Protected Resource Metadata, and each caller sees
 * and calls only the tools its scopes cover. `oauthResourceServer` makes one that validates OAuth 2.1 JWT
 * access tokens; any other scheme that yields a subject and scopes can stand behind this interface.
 *
 * @example
 * ```ts
 * // Static keys, for a test: a token names its caller directly.
 * const authorizer: HttpAuthorizer = {
 *   resource: "http://127.0.0.1:7010/mcp",
 *   authorizationServers: ["http://127.0.0.1:7020"],
 *   authenticate: (authorization) =>
 *     Promise.resolve(
 *       authorization === "Bearer reader"
 *         ? { caller: { subject: "reader", scopes: ["notes:read"], claims: {} } }
 *         : { refused: authorization === null ? "no_token" : "invalid_token", description: "unknown token" },
 *     ),
 * };
 * ```
 */
export interface HttpAuthorizer {
  /** The endpoint's canonical URI: the `resource` of its metadata, and the audience its tokens must name. */
  readonly resource: string;
  /** The issuers whose tokens are accepted: the metadata's `authorization_servers`. */
  readonly authorizationServers: readonly string[];
  /** Checks one request's `Authorization` header (`null` when it has none). Never rejects. */
  authenticate(authorization: string | null): Promise<Authentication>;
}

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * The URL of a resource's Protected Resource Metadata: the well-known path with the resource's own path
 * appended (RFC 9728 §3.1), on the resource's origin.
 *
 * @example
 * ```ts
 * metadataUrl("https://mcp.example.com/mcp"); // "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
 * ```
 */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${WELL_KNOWN}${url.pathname === "/" ? "" : url.pathname}`;
}

/**
 * The paths an endpoint answers its metadata on: the root well-known path, and the path-suffixed one for the
 * endpoint's own path and for the resource's (the path clients see through a proxy may differ).
 *
 * @example
 * ```ts
 * metadataPaths("https://mcp.example.com/tools/mcp", "/mcp");
 * // Set { "/.well-known/oauth-protected-resource", ".../oauth-protected-resource/mcp", ".../oauth-protected-resource/tools/mcp" }
 * ```
 */
export function metadataPaths(resource: string, endpoint: string): Set<string> {
  const resourcePath = new URL(resource).pathname;
  return new Set([
    WELL_KNOWN,
    `${WELL_KNOWN}${endpoint}`,
    resourcePath === "/" ? WELL_KNOWN : `${WELL_KNOWN}${resourcePath}`,
  ]);
}

/**
 * Every scope some tool of the catalog requires, sorted: the metadata's `scopes_supported`.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * servedScopes(catalog); // ["notes:read", "notes:write"]
 * ```
 */
export function servedScopes(catalog: ToolCatalog): string[] {
  const scopes = new Set<string>();
  for (const tool of catalog.tools()) {
    for (const scope of catalog.requiredScopes?.(tool.name) ?? []) scopes.add(scope);
  }
  return [...scopes].sort();
}

/**
 * The answer to a request for the metadata: `GET` gets the document (any origin may read it: it is public),
 * `OPTIONS` the CORS preflight, anything else 405.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const authorizer: HttpAuthorizer;
 * declare const catalog: ToolCatalog;
 * metadataAnswer("GET", authorizer, catalog, "notes").status; // 200
 * ```
 */
export function metadataAnswer(
  method: string,
  authorizer: HttpAuthorizer,
  catalog: ToolCatalog,
  name: string,
): HttpResponse {
  const cors = { "access-control-allow-origin": "*" };
  if (method === "OPTIONS") {
    return {
      status: 204,
      headers: {
        ...cors,
        "access-control-allow-methods": "GET",
        "access-control-allow-headers": "mcp-protocol-version",
      },
    };
  }
  if (method !== "GET") return { status: 405, headers: { ...cors, allow: "GET, OPTIONS" } };
  const scopes = servedScopes(catalog);
  return {
    status: 200,
    headers: { ...cors, "content-type": "application/json", "cache-control": "no-cache" },
    body: JSON.stringify({
      resource: authorizer.resource,
      authorization_servers: authorizer.authorizationServers,
      ...(scopes.length === 0 ? {} : { scopes_supported: scopes }),
      bearer_methods_supported: ["header"],
      resource_name: name,
    }),
  };
}

/**
 * The 401 of a request that was not authenticated (503 when tokens cannot be checked now), with the
 * challenge naming the metadata and the scopes the request needs; `error="invalid_token"` only when a token
 * was sent (RFC 6750 §3.1: a request without credentials gets no error code).
 *
 * @example
 * ```ts
 * declare const authorizer: HttpAuthorizer;
 * const answer = unauthorized(authorizer, { refused: "no_token", description: "no bearer token" }, ["notes:read"], {});
 * answer.headers["www-authenticate"]; // 'Bearer resource_metadata="…/.well-known/oauth-protected-resource/mcp", scope="notes:read"'
 * ```
 */
export function unauthorized(
  authorizer: HttpAuthorizer,
  refusal: AuthRefusal,
  scopes: readonly string[],
  cors: Record<string, string>,
): HttpResponse {
  if (refusal.refused === "unavailable") {
    return rpcError(503, null, {
      code: RpcErrorCode.INTERNAL_ERROR,
      message: `Unavailable: ${refusal.description}`,
    }, { ...cors, "retry-after": "5" });
  }
  const challenge = bearerChallenge({
    resource_metadata: metadataUrl(authorizer.resource),
    ...(scopes.length === 0 ? {} : { scope: scopes.join(" ") }),
    ...(refusal.refused === "invalid_token"
      ? { error: "invalid_token", error_description: refusal.description }
      : {}),
  });
  return rpcError(401, null, {
    code: RpcErrorCode.INVALID_REQUEST,
    message: `Unauthorized: ${refusal.description}`,
  }, { ...cors, "www-authenticate": challenge, ...exposed(cors) });
}

/**
 * The 403 of a call whose caller lacks scopes the tool requires: `insufficient_scope`, naming every scope the
 * call needs in one challenge, so that a client can step up once.
 *
 * @example
 * ```ts
 * declare const authorizer: HttpAuthorizer;
 * insufficientScope(authorizer, 3, "remove", ["notes:write"], {}).status; // 403
 * ```
 */
export function insufficientScope(
  authorizer: HttpAuthorizer,
  id: JsonRpcId,
  tool: string,
  required: readonly string[],
  cors: Record<string, string>,
): HttpResponse {
  const refusal = scopeRefusal(tool, required);
  const challenge = bearerChallenge({
    error: "insufficient_scope",
    scope: required.join(" "),
    resource_metadata: metadataUrl(authorizer.resource),
    error_description: refusal.message,
  });
  return rpcError(403, id, refusal, { ...cors, "www-authenticate": challenge, ...exposed(cors) });
}

/** A browser client may read the challenge of a cross-origin answer only when it is exposed. */
function exposed(cors: Record<string, string>): Record<string, string> {
  return cors["access-control-allow-origin"] === undefined
    ? {}
    : { "access-control-expose-headers": "mcp-protocol-version, www-authenticate" };
}

/** A `Bearer` challenge: each parameter a quoted string (RFC 9110 §11.2), `"` and `\` escaped. */
function bearerChallenge(params: Record<string, string>): string {
  return `Bearer ${
    Object.entries(params).map(([name, value]) => `${name}="${value.replace(/["\\]/g, "\\$&")}"`).join(", ")
  }`;
}
