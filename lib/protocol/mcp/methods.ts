/**
 * The methods each era serves, one table per era: what a request routed to a method gets, whatever
 * transport it came over (docs/mcp_wire.md#results, #paging, #tool-calls, #subscriptions-and-list_changed).
 * @module
 */
import { type JsonRpcId, resultResponse, RpcErrorCode } from "../json_rpc.ts";
import type { CancelScope } from "../cancel_scope.ts";
import type { Era, LegacyEra } from "./era.ts";
import type { McpCore } from "./mcp_core.ts";
import { errorReply, messageReply, type Reply } from "./reply.ts";
import { LOG_LEVELS, type LogLevel, type RequestMeta } from "./request_meta.ts";
import { visibleTools } from "./scope_check.ts";
import type { Subscriptions } from "./subscriptions.ts";
import { type CallHost, callTool } from "./tool_call.ts";
import { toolsPage } from "./tools_page.ts";
import { MODERN_VERSIONS, negotiateLegacyVersion } from "./versions.ts";
import { isRecord } from "../../json.ts";

/**
 * What a method needs of its session.
 *
 * @example
 * ```ts
 * import type { McpSession } from "./mcp_session.ts";
 *
 * declare const session: McpSession;
 * const host: MethodHost = session;
 * ```
 */
export interface MethodHost extends CallHost {
  readonly core: McpCore;
  /** Where the session stands; `initialize` pins it. */
  era: Era;
  readonly subscriptions: Subscriptions;
}

/**
 * One request as a method sees it.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * declare const session: MethodHost;
 * const request: MethodRequest = { session, id: 1, params: undefined, scope: new CancelScope() };
 * ```
 */
export interface MethodRequest {
  session: MethodHost;
  id: JsonRpcId;
  params: Record<string, unknown> | undefined;
  scope: CancelScope;
}

/**
 * A method: its answer now, or once it is ready (the pipeline, mcp_session.ts, is the one place that tells
 * the two apart).
 *
 * @example
 * ```ts
 * const ping: Method<unknown> = ({ id }) => ({ pieces: [`{"jsonrpc":"2.0","id":${id},"result":{}}`] });
 * ```
 */
export type Method<E> = (request: MethodRequest, era: E) => Reply | Promise<Reply>;

/**
 * The methods of 2026-07-28, by name; each gets the request's validated `_meta`.
 *
 * @example
 * ```ts
 * MODERN_METHODS.has("tools/call"); // true
 * ```
 */
export const MODERN_METHODS: ReadonlyMap<string, Method<RequestMeta>> = new Map<string, Method<RequestMeta>>([
  ["server/discover", ({ session, id }) => {
    const { core } = session;
    return messageReply(
      resultResponse(id, {
        resultType: "complete",
        supportedVersions: [...MODERN_VERSIONS],
        capabilities: core.capabilities,
        ...(core.options.instructions === undefined ? {} : { instructions: core.options.instructions }),
        ttlMs: 0,
        cacheScope: "private",
        _meta: core.serverMeta,
      }),
    );
  }],
  ["tools/list", ({ session, id, params }) => {
    const page = toolsPage(
      visibleTools(session.core.catalog, session.caller),
      params?.cursor,
      session.core.options.pageSize ?? 100,
    );
    if ("error" in page) return errorReply(id, page.error);
    return messageReply(resultResponse(id, {
      resultType: "complete",
      ...page,
      ttlMs: 0,
      cacheScope: "private",
      _meta: session.core.serverMeta,
    }));
  }],
  ["tools/call", ({ session, id, params, scope }, meta) =>
    callTool({
      session,
      id,
      params,
      scope,
      era: "modern",
      clientCapabilities: meta.clientCapabilities,
      logLevel: meta.logLevel,
    })],
  // The answer now is the acknowledgement; the subscription's result comes when the session ends.
  ["subscriptions/listen", ({ session, id, params }) => messageReply(session.subscriptions.open(id, params))],
]);

/**
 * The methods of the legacy versions, by name; each gets the session's legacy era.
 *
 * @example
 * ```ts
 * LEGACY_METHODS.has("logging/setLevel"); // true
 * ```
 */
export const LEGACY_METHODS: ReadonlyMap<string, Method<LegacyEra>> = new Map<string, Method<LegacyEra>>([
  [
    "initialize",
    ({ session, id, params }, era) =>
      era.initialized
        ? errorReply(id, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: "Invalid request: already initialized",
        })
        : initialize(session, id, params),
  ],
  ["ping", ({ id }) => messageReply(resultResponse(id, {}))],
  ["tools/list", ({ session, id, params }) => {
    const page = toolsPage(
      visibleTools(session.core.catalog, session.caller),
      params?.cursor,
      session.core.options.pageSize ?? 100,
    );
    return "error" in page ? errorReply(id, page.error) : messageReply(resultResponse(id, page));
  }],
  ["tools/call", ({ session, id, params, scope }, era) =>
    callTool({
      session,
      id,
      params,
      scope,
      era: "legacy",
      clientCapabilities: era.capabilities,
      logLevel: era.logLevel,
    })],
  ["logging/setLevel", ({ id, params }, era) => {
    const level = params?.level;
    if (!(LOG_LEVELS as readonly unknown[]).includes(level)) {
      return errorReply(id, {
        code: RpcErrorCode.INVALID_PARAMS,
        message: `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`,
      });
    }
    era.logLevel = level as LogLevel;
    return messageReply(resultResponse(id, {}));
  }],
]);

/**
 * The legacy handshake: it pins the session to the negotiated version.
 *
 * @example
 * ```ts
 * declare const session: MethodHost;
 * initialize(session, 0, { protocolVersion: "2025-11-25", capabilities: {} });
 * ```
 */
export function initialize(
  session: MethodHost,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Reply {
  const capabilities = params?.capabilities;
  const version = negotiateLegacyVersion(params?.protocolVersion);
  session.era = {
    kind: "legacy",
    version,
    initialized: true,
    capabilities: isRecord(capabilities) ? capabilities : {},
  };
  const { options, capabilities: served } = session.core;
  return messageReply(resultResponse(id, {
    protocolVersion: version,
    capabilities: served,
    serverInfo: options.serverInfo,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  }));
}

/**
 * The answer to a method neither era's table has.
 *
 * @example
 * ```ts
 * methodNotFound(1, "tools/cal").error?.code; // -32601
 * ```
 */
export function methodNotFound(id: JsonRpcId, method: string): Reply {
  return errorReply(id, { code: RpcErrorCode.METHOD_NOT_FOUND, message: `Method not found: ${method}` });
}
