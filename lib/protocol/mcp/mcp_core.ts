/**
 * The MCP server's core, shared by every transport: given one JSON-RPC request and what the transport knows,
 * it produces the answer. It knows nothing of bytes, lines, HTTP or the end of the input; the line transport
 * (line_transport.ts) and the HTTP transport stand on it. docs/mcp_wire.md describes every rule; these are
 * the ones applied here:
 *
 * - Era detection (#era-detection): `routeRequest` (era.ts) decides, per request, which era serves it and
 *   whether it pins the session's era; each era has a table of its methods.
 * - Request metadata (#request-metadata): validated on EVERY modern request (by `routeRequest`).
 * - Results and paging (#results, #paging): modern results carry `resultType` and `serverInfo` in `_meta`;
 *   list results carry `ttlMs` and `cacheScope`; `tools/list` pages by an opaque cursor.
 * - Tool calls (#tool-calls): tool_call.ts hands the call to the catalog; its progress and log notifications
 *   go through the session's `notify`, never after the answer; a cancelled call's answer is the transport's
 *   to drop.
 * - Callers (docs/auth.md): a session a transport authenticated lists only the tools its caller's scopes
 *   cover, and calls no other.
 * - Subscriptions (#subscriptions-and-list_changed): a modern `subscriptions/listen` is answered by its
 *   acknowledgement, then each `notifications/tools/list_changed` carries its id; its final result comes
 *   when the session ends. An initialized legacy session hears of changes unsolicited.
 * - No requests from the server (#no-requests-from-the-server): nothing here builds a JSON-RPC request.
 * @module
 */
import { errorResponse, type JsonRpcId, notification, resultResponse, RpcErrorCode } from "../json_rpc.ts";
import type { CancelScope } from "../cancel_scope.ts";
import { callTool } from "./tool_call.ts";
import { idInUse, type Reply } from "./reply.ts";
import { type Era, type LegacyEra, routeRequest } from "./era.ts";
import { LOG_LEVELS, type LogLevel, type RequestMeta } from "./request_meta.ts";
import { Subscriptions } from "./subscriptions.ts";
import type { McpTool, ToolCatalog } from "./tool_catalog.ts";
import { mayUse, type McpCaller } from "./caller.ts";
import { toolsPage } from "./tools_page.ts";
import { MODERN_VERSIONS, negotiateLegacyVersion } from "./versions.ts";
import { isRecord } from "../../json.ts";

/**
 * What an MCP server serves, whatever it runs over.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options: McpCoreOptions = { serverInfo: { name: "notes", version: "1.0.0" }, catalog };
 * ```
 */
export interface McpCoreOptions {
  /** The server's name and version, sent in `serverInfo`. */
  serverInfo: { name: string; version: string; title?: string };
  /** Guidance for the client's model. */
  instructions?: string;
  /** The tools served. */
  catalog: ToolCatalog;
  /** Tools per `tools/list` page. @default 100 */
  pageSize?: number;
}

const MODERN: Era = { kind: "modern" };

type ModernMethod = (
  session: McpSession,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  meta: RequestMeta,
  scope: CancelScope,
) => Reply | Promise<Reply>;

type LegacyMethod = (
  session: McpSession,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  era: LegacyEra,
  scope: CancelScope,
) => Reply | Promise<Reply>;

/** What one server answers with, built once and shared by all its sessions. */
export class McpCore {
  readonly options: McpCoreOptions;
  readonly catalog: ToolCatalog;
  /** The `_meta` of every modern result. */
  readonly serverMeta: Record<string, unknown>;
  readonly serverMetaJson: string;
  readonly capabilities: Record<string, unknown>;
  /** Whether the tool list can change (the catalog can be watched). */
  readonly toolsCanChange: boolean;
  /** A diagnostic line (stderr). */
  readonly log: ((message: string) => void) | undefined;

  constructor(options: McpCoreOptions, log?: (message: string) => void) {
    this.options = options;
    this.log = log;
    this.catalog = options.catalog;
    this.serverMeta = {
      "io.modelcontextprotocol/serverInfo": {
        name: options.serverInfo.name,
        version: options.serverInfo.version,
      },
    };
    this.serverMetaJson = JSON.stringify(this.serverMeta);
    this.toolsCanChange = options.catalog.watch !== undefined;
    this.capabilities = { tools: this.toolsCanChange ? { listChanged: true } : {}, logging: {} };
  }
}

/**
 * One client's session: its era, its subscriptions, where its notifications go, and who the caller is when
 * the transport authenticated it. A connection is one session; a stateless HTTP request is one of its own,
 * its era taken from the request.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * declare const core: McpCore;
 * const session = new McpSession(core, (message) => console.log(JSON.stringify(message)));
 * const reply = await session.request(1, "ping", undefined, new CancelScope()); // {"jsonrpc":"2.0","id":1,"result":{}}
 * ```
 */
export class McpSession {
  readonly core: McpCore;
  /** Where the session stands: nothing decided yet, or pinned to an era. */
  era: Era;
  readonly subscriptions: Subscriptions;
  /** Sends a notification to the client: a call's progress and log, a subscription's changes. */
  readonly notify: (message: Record<string, unknown>) => void;
  /** The authenticated caller: the tools it sees and may call are those its scopes cover. */
  readonly caller: McpCaller | undefined;

  constructor(
    core: McpCore,
    notify: (message: Record<string, unknown>) => void,
    era: Era = { kind: "opening" },
    caller?: McpCaller,
  ) {
    this.core = core;
    this.notify = notify;
    this.era = era;
    this.caller = caller;
    this.subscriptions = new Subscriptions(core.toolsCanChange);
  }

  /** The tools this session's caller may see: all of them when nobody was authenticated. */
  tools(): readonly McpTool[] {
    const tools = this.core.catalog.tools();
    const caller = this.caller;
    if (caller === undefined) return tools;
    const catalog = this.core.catalog;
    return tools.filter((tool) => mayUse(caller, catalog.requiredScopes?.(tool.name)));
  }

  /** Answers one request; `scope` is its cancellation (a `notifications/cancelled`, a closed stream). */
  request(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    scope: CancelScope,
  ): Reply | Promise<Reply> {
    if (this.subscriptions.has(id)) return idInUse(id);
    const route = routeRequest(this.era, method, params);
    switch (route.kind) {
      case "error":
        return errorResponse(id, route.error);
      case "initialize":
        return initialize(this, id, params);
      case "ping":
        return resultResponse(id, {});
      case "modern": {
        if (route.pins) this.era = MODERN;
        const handler = methodOf(MODERN_METHODS, method);
        return handler === undefined
          ? methodNotFound(id, method)
          : handler(this, id, params, route.meta, scope);
      }
      case "legacy": {
        if (route.pins) this.era = route.era;
        const handler = methodOf(LEGACY_METHODS, method);
        return handler === undefined
          ? methodNotFound(id, method)
          : handler(this, id, params, route.era, scope);
      }
    }
  }

  /** The notifications a changed tool list sends: one per subscription, and one to an initialized legacy client. */
  toolsChanged(): Array<Record<string, unknown>> {
    const messages = this.subscriptions.toolsChanged();
    if (this.era.kind === "legacy" && this.era.initialized) {
      messages.push(notification("notifications/tools/list_changed"));
    }
    return messages;
  }

  /** The final results of the open subscriptions, as the session ends. */
  end(): Array<Record<string, unknown>> {
    return this.subscriptions.end(this.core.serverMeta);
  }
}

/**
 * An era's methods, searched with `===`: a Map would hash the method's name, which JSON.parse makes anew for
 * every request (docs/performance.md#the-warm-call-without-the-collectors-noise).
 */
type MethodTable<M> = ReadonlyArray<readonly [string, M]>;

function methodOf<M>(table: MethodTable<M>, method: string): M | undefined {
  for (let i = 0; i < table.length; i++) {
    if (table[i]![0] === method) return table[i]![1];
  }
  return undefined;
}

const MODERN_METHODS: MethodTable<ModernMethod> = [
  ["server/discover", (session, id) => {
    const { core } = session;
    return resultResponse(id, {
      resultType: "complete",
      supportedVersions: [...MODERN_VERSIONS],
      capabilities: core.capabilities,
      ...(core.options.instructions === undefined ? {} : { instructions: core.options.instructions }),
      ttlMs: 0,
      cacheScope: "private",
      _meta: core.serverMeta,
    });
  }],
  ["tools/list", (session, id, params) => {
    const page = toolsPage(session.tools(), params?.cursor, session.core.options.pageSize ?? 100);
    if ("error" in page) return errorResponse(id, page.error);
    return resultResponse(id, {
      resultType: "complete",
      ...page,
      ttlMs: 0,
      cacheScope: "private",
      _meta: session.core.serverMeta,
    });
  }],
  [
    "tools/call",
    (session, id, params, meta, scope) =>
      callTool(session, id, params, scope, "modern", meta.clientCapabilities, meta.logLevel),
  ],
  // The answer now is the acknowledgement; the subscription's result comes when the session ends.
  ["subscriptions/listen", (session, id, params) => session.subscriptions.open(id, params)],
];

const LEGACY_METHODS: MethodTable<LegacyMethod> = [
  [
    "initialize",
    (session, id, params, era) =>
      era.initialized
        ? errorResponse(id, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: "Invalid request: already initialized",
        })
        : initialize(session, id, params),
  ],
  ["ping", (_session, id) => resultResponse(id, {})],
  ["tools/list", (session, id, params) => {
    const page = toolsPage(session.tools(), params?.cursor, session.core.options.pageSize ?? 100);
    return "error" in page ? errorResponse(id, page.error) : resultResponse(id, page);
  }],
  [
    "tools/call",
    (session, id, params, era, scope) =>
      callTool(session, id, params, scope, "legacy", era.capabilities, era.logLevel),
  ],
  ["logging/setLevel", (_session, id, params, era) => {
    const level = params?.level;
    if (!(LOG_LEVELS as readonly unknown[]).includes(level)) {
      return errorResponse(id, {
        code: RpcErrorCode.INVALID_PARAMS,
        message: `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`,
      });
    }
    era.logLevel = level as LogLevel;
    return resultResponse(id, {});
  }],
];

function initialize(session: McpSession, id: JsonRpcId, params: Record<string, unknown> | undefined): Reply {
  const capabilities = params?.capabilities;
  const version = negotiateLegacyVersion(params?.protocolVersion);
  session.era = {
    kind: "legacy",
    version,
    initialized: true,
    capabilities: isRecord(capabilities) ? capabilities : {},
  };
  const { options, capabilities: served } = session.core;
  return resultResponse(id, {
    protocolVersion: version,
    capabilities: served,
    serverInfo: options.serverInfo,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
}

function methodNotFound(id: JsonRpcId, method: string): Reply {
  return errorResponse(id, { code: RpcErrorCode.METHOD_NOT_FOUND, message: `Method not found: ${method}` });
}
