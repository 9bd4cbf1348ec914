/**
 * Who made a request, as an authorizer established it (an OAuth 2.1 access token, docs/auth.md), and the one
 * rule of least privilege: a tool is open to a caller whose granted scopes include every scope it requires.
 * @module
 */
import { type RpcError, RpcErrorCode } from "../json_rpc.ts";

/**
 * An authenticated caller: the token's subject, the client it was issued to, and the scopes it grants. Set on
 * a call only when the transport authenticated it (HTTP with an authorizer); never the token itself.
 *
 * @example
 * ```ts
 * const caller: McpCaller = { subject: "alice", clientId: "notes-ci", scopes: ["notes:read"], claims: {} };
 * ```
 */
export interface McpCaller {
  /** The token's subject (`sub`; for a client acting on its own behalf, usually its client id). */
  readonly subject: string;
  /** The OAuth client the token was issued to (`client_id`, or `azp`), when the token names one. */
  readonly clientId?: string;
  /** The scopes the token grants (`scope`, or `scp`), each once. */
  readonly scopes: readonly string[];
  /** Every claim of the validated token (not the token): for a handler that needs more, e.g. `email`. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * The scopes of `required` that `caller` was not granted, in their order; empty when it may call. Scopes are
 * compared exactly: an authorization server whose scopes imply others must put the implied ones in the token.
 *
 * @example
 * ```ts
 * const caller = { subject: "ci", scopes: ["notes:read"], claims: {} };
 * missingScopes(caller, ["notes:read", "notes:write"]); // ["notes:write"]
 * missingScopes(caller, []); // []
 * ```
 */
export function missingScopes(caller: McpCaller, required: readonly string[]): string[] {
  return required.filter((scope) => !caller.scopes.includes(scope));
}

/**
 * Whether a caller may see and call a tool that requires `required`: always when nobody was authenticated
 * (`undefined`) or the tool requires nothing known, else when its scopes cover every one. The one rule behind
 * `tools/list` and the manifest a caller is served.
 *
 * @example
 * ```ts
 * const caller = { subject: "ci", scopes: ["notes:read"], claims: {} };
 * mayUse(caller, ["notes:write"]); // false
 * mayUse(undefined, ["notes:write"]); // true: no authentication, no scopes to check
 * ```
 */
export function mayUse(caller: McpCaller | undefined, required: readonly string[] | undefined): boolean {
  return caller === undefined || required === undefined || missingScopes(caller, required).length === 0;
}

/**
 * The JSON-RPC error of a call refused for want of scopes: over HTTP it travels with a 403 and an
 * `insufficient_scope` challenge, in a legacy batch on its own.
 *
 * @example
 * ```ts
 * scopeRefusal("remove", ["notes:write"]).message; // "Forbidden: the tool remove requires the scope notes:write"
 * ```
 */
export function scopeRefusal(tool: string, required: readonly string[]): RpcError {
  return {
    code: RpcErrorCode.INVALID_REQUEST,
    message: `Forbidden: the tool ${tool} requires the scope${required.length === 1 ? "" : "s"} ${
      required.join(" ")
    }`,
    data: { required_scopes: [...required] },
  };
}
