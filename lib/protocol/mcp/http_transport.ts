/**
 * MCP over Streamable HTTP, both eras on one endpoint, on the transport-agnostic core (mcp_core.ts). Each
 * POST is classified on its own — there is no session to remember an era in — and answered by a session of
 * its own. docs/mcp_http.md describes every rule; in the order applied here:
 *
 * - The endpoint: one path; anything else is 404. `Origin` must be absent, allowed, or a loopback origin on
 *   the request's port, and a loopback-only server takes loopback `Host` names only (DNS rebinding): else 403.
 *   POST only (OPTIONS answers a CORS preflight); GET and DELETE are 405: the server sends no requests, so it
 *   needs no stream of its own, and has no session to end. A closing server answers 503.
 * - The body: `application/json`, at most `maxMessageBytes` (413, nothing run), within `bodyTimeoutMs` (408);
 *   invalid JSON is 400 -32700; a batch is legacy 2025-03-26's only (400 otherwise).
 * - The message: handed, with the headers, to a session of its own (mcp_session.ts, the pipeline every
 *   transport shares), whose era rules read the headers too (era.ts): a request claiming 2026-07-28 in
 *   `_meta` (or `server/discover`, or a modern `MCP-Protocol-Version`) is modern: `MCP-Protocol-Version`,
 *   `Mcp-Method` and, for `tools/call`, `Mcp-Name` must match the body (400 -32020); an unknown method,
 *   `initialize` included, is 404 -32601. Anything else is legacy, its version the header's (absent:
 *   2025-03-26). A refusal before any method runs takes its status from its error code; notifications and
 *   responses are 202. A request whose client left while it waited for a slot runs nothing (400).
 * - Answers: `application/json`, or `text/event-stream` once the call has a progress or log notification
 *   to send first. A stream the client closes cancels the request (a bridged child's group is killed).
 * - `subscriptions/listen` (http_listen.ts): a stream that stays open — the acknowledgement, then each change,
 *   and keep-alive comments — until the client closes it, or the server closes (its final result).
 * - Bounds: requests in flight (more wait for a slot), open listen streams — over all and per caller (its
 *   subject, else its address): 503 and 429 over them — and the notification bytes a stream may hold for a
 *   client that does not read.
 * - Authorization (http_auth.ts, docs/auth.md): Protected Resource Metadata at the well-known paths; no valid
 *   bearer token is 401 before the body is read; a caller sees only the tools its scopes cover, and a call
 *   to another is 403 `insufficient_scope`, nothing run.
 * @module
 */
import { type HttpRequest, type HttpResponse, webHandler } from "../../runtime/http_exchange.ts";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../framing/limits.ts";
import { CancelScope } from "../cancel_scope.ts";
import { InFlight } from "../in_flight.ts";
import { decodeJson, type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import { SlotPool } from "../slot_pool.ts";
import { bodyProblem, HttpCall, rpcError, streams } from "./http_answers.ts";
import { errorStatus, loopbackHost, originAllowed } from "./http_headers.ts";
import { headerValue } from "./metadata_headers.ts";
import {
  type HttpAuthorizer,
  insufficientScope,
  metadataAnswer,
  metadataPaths,
  servedScopes,
  unauthorized,
} from "./http_auth.ts";
import type { McpCaller } from "./caller.ts";
import { ListenStreams } from "./http_listen.ts";
import { McpCore, type McpCoreOptions } from "./mcp_core.ts";
import { type Answer, McpSession } from "./mcp_session.ts";

/**
 * Options of an {@linkcode McpHttpEndpoint}.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options: McpHttpOptions = {
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 *   allowedOrigins: ["https://app.example.com"],
 * };
 * ```
 */
export interface McpHttpOptions extends McpCoreOptions {
  /** The endpoint's path. @default "/mcp" */
  endpoint?: string;
  /** Browser origins allowed besides loopback origins on the server's own port, e.g. `https://app.example.com`. */
  allowedOrigins?: readonly string[];
  /** Accept any `Host` (a server others reach by name); else loopback names only. @default false */
  anyHost?: boolean;
  /** Longest accepted body in bytes. @default 67108864 (64 MiB) */
  maxMessageBytes?: number;
  /** A body must arrive within this long. @default 30000 */
  bodyTimeoutMs?: number;
  /** Requests handled at once; more wait for a slot. @default 256 */
  maxInFlight?: number;
  /**
   * `subscriptions/listen` streams open at once; one more is answered 503. Each holds a connection: keep it
   * well below the server's connections, so that requests still find one (`listenMcpHttp` keeps it at most
   * half of them). @default 64
   */
  maxSubscriptions?: number;
  /**
   * `subscriptions/listen` streams one client may have open at once; one more is answered 429. A client is
   * the authenticated caller's subject with an `authorizer`, else the address it connects from (every local
   * client shares a loopback address). @default half of `maxSubscriptions`, rounded up
   */
  maxSubscriptionsPerClient?: number;
  /** How often an open `subscriptions/listen` stream gets a keep-alive comment. @default 15000 */
  keepAliveMs?: number;
  /**
   * Authenticates every request (docs/auth.md): `oauthResourceServer` validates OAuth 2.1 access tokens.
   * Absent: anyone who reaches the endpoint may call every tool.
   */
  authorizer?: HttpAuthorizer;
  /** A diagnostic line (stderr); with an authorizer, also the audit line of each call. */
  log?(message: string): void;
}

const CORS_HEADERS = "content-type, accept, authorization, mcp-protocol-version, mcp-method, mcp-name, " +
  "mcp-session-id, last-event-id";

/**
 * An MCP endpoint over HTTP: `handle` answers one request; `close` winds it down.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const endpoint = new McpHttpEndpoint({ serverInfo: { name: "notes", version: "1.0.0" }, catalog });
 * const response = await endpoint.fetch(new Request("http://127.0.0.1:7010/mcp", { method: "GET" })); // 405
 * await endpoint.close(1_000);
 * ```
 */
export class McpHttpEndpoint {
  readonly #core: McpCore;
  readonly #options: McpHttpOptions;
  readonly #slots: SlotPool;
  readonly #maxMessageBytes: number;
  readonly #allowedOrigins: readonly string[];
  /** The cancellation scopes of the requests in progress. */
  readonly #open = new Set<CancelScope>();
  /** Settles when each request in progress is answered. */
  readonly #running = new Set<Promise<unknown>>();
  readonly #listens: ListenStreams;
  readonly #unwatch: (() => void) | undefined;
  /** The paths of the Protected Resource Metadata, when there is an authorizer. */
  readonly #metadataPaths: ReadonlySet<string>;
  #closing = false;

  constructor(options: McpHttpOptions) {
    this.#options = options;
    this.#core = new McpCore(options, options.log);
    this.#slots = new SlotPool(options.maxInFlight ?? 256);
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#allowedOrigins = (options.allowedOrigins ?? []).map((origin) => origin.toLowerCase());
    const maxListens = Math.max(0, options.maxSubscriptions ?? 64);
    this.#listens = new ListenStreams({
      max: maxListens,
      perHolder: options.maxSubscriptionsPerClient ?? Math.ceil(maxListens / 2),
      keepAliveMs: options.keepAliveMs ?? 15_000,
    }, options.log);
    this.#unwatch = options.catalog.watch?.(() => this.#listens.toolsChanged());
    this.#metadataPaths = options.authorizer === undefined
      ? new Set()
      : metadataPaths(options.authorizer.resource, options.endpoint ?? "/mcp");
  }

  /** Requests in progress, listen streams included. */
  get open(): number {
    return this.#open.size + this.#listens.size;
  }

  /**
   * The endpoint as a web-standard handler: for `Deno.serve`, Bun, edge runtimes, or a server of your own.
   * Its second argument is `Deno.serve`'s, whose `remoteAddr` names the client for the bounds per client.
   */
  readonly fetch: (request: Request, info?: { remoteAddr?: { hostname?: string } }) => Promise<Response> =
    webHandler((request) => this.handle(request));

  /** Answers one request: what `listenHttp` and `nodeListener` serve (a bound function). */
  readonly handle: (request: HttpRequest) => Promise<HttpResponse> = (request) => this.#handle(request);

  /**
   * Answers 503 from now on, lets the requests in progress finish for up to `graceMs`, then cancels the rest
   * and ends every listen stream with its final result; resolves once all are done.
   */
  async close(graceMs = 1_000): Promise<void> {
    this.#closing = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs))));
    await Promise.race([Promise.all(this.#running), grace]);
    clearTimeout(timer);
    const shutdown = new DOMException("the server is shutting down", "AbortError");
    for (const scope of this.#open) scope.abort(shutdown);
    await Promise.all(this.#running);
    // The listen streams end last, each with its final result.
    await this.#listens.close(shutdown);
    this.#unwatch?.();
  }

  get #log(): ((message: string) => void) | undefined {
    return this.#options.log;
  }

  async #handle(request: HttpRequest): Promise<HttpResponse> {
    const authorizer = this.#options.authorizer;
    const host = request.header("host");
    if (authorizer !== undefined && this.#metadataPaths.has(request.path)) {
      // Public metadata, for any origin; the Host rule still keeps a loopback server from rebound names.
      if (this.#options.anyHost !== true && !loopbackHost(host)) {
        return { status: 403, headers: { "content-type": "text/plain" }, body: "Forbidden\n" };
      }
      return metadataAnswer(request.method, authorizer, this.#options.catalog, this.#options.serverInfo.name);
    }
    if (request.path !== (this.#options.endpoint ?? "/mcp")) {
      return { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found\n" };
    }
    const origin = request.header("origin");
    if (
      !originAllowed(origin, host, this.#allowedOrigins) ||
      (this.#options.anyHost !== true && !loopbackHost(host))
    ) {
      return rpcError(403, null, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: `Forbidden: ${
          origin === null ? `host ${host ?? "(none)"}` : `origin ${origin}`
        } may not use this server`,
      });
    }
    const cors: Record<string, string> = origin === null ? {} : {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": "mcp-protocol-version",
      vary: "Origin",
    };
    if (request.method === "OPTIONS") {
      return {
        status: 204,
        headers: {
          ...cors,
          "access-control-allow-methods": "POST",
          "access-control-allow-headers": CORS_HEADERS,
        },
      };
    }
    if (request.method !== "POST") {
      return { status: 405, headers: { ...cors, allow: "POST, OPTIONS" } };
    }
    if (this.#closing) {
      return rpcError(503, null, {
        code: RpcErrorCode.INTERNAL_ERROR,
        message: "The server is shutting down",
      }, {
        ...cors,
        "retry-after": "1",
        connection: "close",
      });
    }
    let caller: McpCaller | undefined;
    if (authorizer !== undefined) {
      const authenticated = await authorizer.authenticate(request.header("authorization"));
      if (!("caller" in authenticated)) {
        // The body of a request nobody may make is not read: the connection goes with the answer.
        const answer = unauthorized(authorizer, authenticated, this.#challengeScopes(request), cors);
        return { ...answer, headers: { ...answer.headers, connection: "close" } };
      }
      caller = authenticated.caller;
    }
    const type = request.header("content-type");
    if (type === null || !/^application\/json\s*(;|$)/i.test(type)) {
      return rpcError(415, null, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: `Invalid request: the body must be application/json, got ${type ?? "no Content-Type"}`,
      }, cors);
    }
    const body = await request.body(this.#maxMessageBytes, this.#options.bodyTimeoutMs ?? 30_000);
    if (typeof body === "string") return bodyProblem(body, this.#maxMessageBytes, cors);
    return await this.#message(request, body, { cors, caller });
  }

  /**
   * The scopes a 401 names: a modern call's tool's (its `Mcp-Name` says which, before the body is read), else
   * every scope a served tool requires — what using the server in full takes.
   */
  #challengeScopes(request: HttpRequest): readonly string[] {
    const catalog = this.#options.catalog;
    const name = request.header("mcp-method") === "tools/call" ? request.header("mcp-name") : null;
    const tool = name === null ? undefined : headerValue(name);
    return (tool === undefined ? undefined : catalog.requiredScopes?.(tool)) ?? servedScopes(catalog);
  }

  /** One POST's message through a session of its own; its answer becomes the response. */
  #message(
    request: HttpRequest,
    body: Uint8Array,
    { cors, caller }: { cors: Record<string, string>; caller: McpCaller | undefined },
  ): Promise<HttpResponse> {
    const closed = new CancelScope();
    request.onClose(() => closed.abort(new DOMException("the client closed the connection", "AbortError")));
    const call = new HttpCall(streams(request.header("accept")), cors);
    const holder = caller === undefined ? `address ${request.peer ?? "unknown"}` : `caller ${caller.subject}`;
    const session = new McpSession(this.#core, {
      requests: new InFlight<JsonRpcId>(this.#slots.size, this.#slots),
      notify: call.notify,
      caller,
      cancel: closed,
    });
    this.#open.add(closed);
    let answered!: () => void;
    const running = new Promise<void>((resolve) => (answered = resolve));
    this.#running.add(running);
    const delivery = {
      headers: (name: string) => request.header(name),
      respond: (answer: Answer): Promise<void> | undefined => {
        this.#open.delete(closed);
        this.#running.delete(running);
        answered();
        return this.#respond(answer, { call, session, closed, cors, holder });
      },
    };
    const decoded = decodeJson(body);
    if (decoded.ok) session.receive(decoded.value, delivery);
    else session.unreadable(decoded.error, delivery);
    return call.response;
  }

  /** An answer as the response; a listen's holds its slot until its stream begins or its client leaves. */
  #respond(
    answer: Answer,
    { call, session, closed, cors, holder }: {
      call: HttpCall;
      session: McpSession;
      closed: CancelScope;
      cors: Record<string, string>;
      holder: string;
    },
  ): Promise<void> | undefined {
    switch (answer.kind) {
      case "reply": {
        const { error } = answer.reply;
        const status = error !== undefined && (answer.refused || answer.modern) ? errorStatus(error) : 200;
        call.finish(answer.reply, status, closed);
        return undefined;
      }
      case "forbidden": {
        const { refusal } = answer;
        call.give(
          insufficientScope(this.#options.authorizer!, answer.id, refusal.tool, refusal.required, cors),
        );
        return undefined;
      }
      case "none":
        call.give({ status: 202, headers: cors });
        return undefined;
      case "dropped":
        call.give({ status: 400, headers: cors });
        return undefined;
      case "subscribed":
        return new Promise<void>((release) => {
          // Its stream may never begin (the client leaves first): the slot then goes back when it leaves.
          onAbort(closed, release);
          call.give(
            this.#listens.open({
              session,
              id: answer.id,
              ack: answer.reply,
              holder,
              scope: closed,
              cors,
              release,
            }),
          );
        });
    }
  }
}

/** Calls `listener` once the scope is aborted (at once if it already is). */
function onAbort(scope: CancelScope, listener: () => void): void {
  if (scope.aborted) listener();
  else scope.addEventListener("abort", listener);
}

/**
 * The endpoint as a web-standard handler, for a server of your own.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * const handler = mcpHttpHandler({ serverInfo: { name: "notes", version: "1.0.0" }, catalog });
 * // Deno.serve({ port: 7010 }, handler);
 * ```
 */
export function mcpHttpHandler(options: McpHttpOptions): (request: Request) => Promise<Response> {
  return new McpHttpEndpoint(options).fetch;
}
