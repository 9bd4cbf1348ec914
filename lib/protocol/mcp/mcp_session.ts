/**
 * The request pipeline: what every MCP message goes through, whatever transport it came over. A transport
 * decodes a message and hands it to its session's `receive` with what it knows (HTTP: the headers); the
 * session answers through the transport's `respond`, once per message. docs/mcp_wire.md describes every
 * rule; in the order applied here:
 *
 * - Classification (#framing): a malformed message is -32600; a client's response is ignored (this server
 *   sends no requests); `notifications/cancelled` aborts a request's scope, or ends a subscription.
 * - Batches (#batches, batch.ts): legacy 2025-03-26's only (`batchEra`); each request runs as one alone.
 * - Flow control (#flow-control): each request holds a slot of the session's `InFlight` until its answer is
 *   written; at the bound `receive` returns a promise, and the transport reads nothing more meanwhile. An
 *   id still open is refused. A request cancelled before it runs, or answered by its cancellation, gets
 *   nothing more.
 * - Eras (#era-detection, era.ts): `routeRequest` decides which era serves the request and whether it pins
 *   the session — from the headers too over HTTP — and validates a modern request's `_meta`.
 * - Scopes (docs/auth.md, scope_check.ts): an authenticated caller's call to a tool its scopes do not cover
 *   is refused before it runs, with its audit line.
 * - Methods (methods.ts): the era's table; a method answers now or later — told apart here only.
 * - Notifications: a call's progress and log go through the session's `NotificationBudget`.
 * @module
 */
import type { CancelScope, CancelSignal } from "../cancel_scope.ts";
import type { InFlight } from "../in_flight.ts";
import {
  classifyMessage,
  type IncomingMessage,
  type JsonRpcId,
  notification,
  resultResponse,
  type RpcError,
  RpcErrorCode,
} from "../json_rpc.ts";
import { batchSizeError, runBatch } from "./batch.ts";
import { batchEra, type Era, type HeaderHint, routeRequest } from "./era.ts";
import type { McpCaller } from "./caller.ts";
import type { McpCore } from "./mcp_core.ts";
import { initialize, LEGACY_METHODS, type Method, methodNotFound, MODERN_METHODS } from "./methods.ts";
import { NotificationBudget, type NotificationSink } from "./notification_budget.ts";
import { batchReply, errorReply, messageReply, type Reply, replyText } from "./reply.ts";
import { checkScopes, type ScopeRefusal } from "./scope_check.ts";
import { Subscriptions } from "./subscriptions.ts";
import { whenReady } from "../../when_ready.ts";

/**
 * How the pipeline answered one message, for its transport to write (or, over HTTP, to give a status).
 *
 * @example
 * ```ts
 * declare const answer: Answer;
 * if (answer.kind === "reply") console.log(answer.reply.pieces.join(""));
 * ```
 */
export type Answer =
  /** An answer; `refused` when no method ran (a malformed message, the era's rules), `modern` its era. */
  | { kind: "reply"; reply: Reply; refused: boolean; modern: boolean }
  /** A call refused for want of scopes: `reply` is its JSON-RPC error. */
  | { kind: "forbidden"; reply: Reply; refusal: ScopeRefusal; id: JsonRpcId }
  /** A `subscriptions/listen` acknowledged: `reply` is the acknowledgement, and the subscription stays open. */
  | { kind: "subscribed"; reply: Reply; id: JsonRpcId }
  /** Nothing to answer: a notification, a client's response, a batch of them. */
  | { kind: "none" }
  /** No answer is owed any more: the request was cancelled before it ran, or answered by its cancellation. */
  | { kind: "dropped" };

/**
 * What a transport gives the pipeline with one message.
 *
 * @example
 * ```ts
 * const delivery: Delivery = { respond: (answer) => void console.log(answer.kind) };
 * ```
 */
export interface Delivery {
  /** HTTP: the request's headers, which decide its era together with its body. */
  headers?: HeaderHint;
  /**
   * Takes the answer, once per message; a promise that settles once it is written holds the request's
   * slot until then.
   */
  respond(answer: Answer): Promise<void> | undefined | void;
}

/**
 * A session's parts that come from its transport.
 *
 * @example
 * ```ts
 * import { InFlight } from "../in_flight.ts";
 *
 * const options: McpSessionOptions = { requests: new InFlight(64), notify: (text) => void console.log(text) };
 * ```
 */
export interface McpSessionOptions {
  /** The session's requests in flight: their slots, their cancellation, each answered once. */
  requests: InFlight<JsonRpcId>;
  /** Where the session's notifications go, behind the session's notification budget. */
  notify: NotificationSink;
  /** The authenticated caller: the tools it sees and may call are those its scopes cover. */
  caller?: McpCaller | undefined;
  /** Aborts every request of the session (HTTP: the client closed the request). */
  cancel?: CancelSignal;
  /** The era so far. @default { kind: "opening" } */
  era?: Era;
  /** Whether the session is stopping, so no request of a batch starts any more. */
  stopped?(): boolean;
}

/**
 * One client's session: its era, its subscriptions, its requests in flight, and who the caller is when the
 * transport authenticated it. A connection is one session; a stateless HTTP request one of its own.
 *
 * @example
 * ```ts
 * import { InFlight } from "../in_flight.ts";
 * import type { McpCore } from "./mcp_core.ts";
 *
 * declare const core: McpCore;
 * const session = new McpSession(core, { requests: new InFlight(64), notify: (text) => void console.log(text) });
 * session.receive({ jsonrpc: "2.0", id: 1, method: "ping" }, {
 *   respond: (answer) => void (answer.kind === "reply" && console.log(answer.reply.pieces.join(""))),
 * });
 * ```
 */
export class McpSession {
  readonly core: McpCore;
  /** Where the session stands: nothing decided yet, or pinned to an era. */
  era: Era;
  readonly subscriptions: Subscriptions;
  readonly caller: McpCaller | undefined;
  readonly requests: InFlight<JsonRpcId>;
  readonly #budget: NotificationBudget;
  readonly #stopped: (() => boolean) | undefined;

  constructor(core: McpCore, options: McpSessionOptions) {
    this.core = core;
    this.era = options.era ?? { kind: "opening" };
    this.caller = options.caller;
    this.requests = options.requests;
    this.subscriptions = new Subscriptions(core.toolsCanChange);
    this.#budget = new NotificationBudget(options.notify, core.log);
    this.#stopped = options.stopped;
    const cancel = options.cancel;
    if (cancel !== undefined) {
      const abort = () => this.requests.abortAll(cancel.reason);
      if (cancel.aborted) abort();
      else cancel.addEventListener("abort", abort, { once: true });
    }
  }

  /** Sends a notification to the client: a call's progress and log, a subscription's changes. */
  readonly notify = (message: Record<string, unknown>): void => {
    this.#budget.send(replyText(messageReply(message, this.core.log)));
  };

  /**
   * Takes one decoded message. Returns `undefined` when the transport may hand on the next one, or a promise
   * that settles once it may (the session's requests are at their bound).
   */
  receive(value: unknown, delivery: Delivery): Promise<void> | undefined {
    const message = classifyMessage(value);
    switch (message.kind) {
      case "request":
        return this.#request(message, delivery);
      case "notification":
        if (message.method === "notifications/cancelled") this.#cancel(message.params);
        delivery.respond({ kind: "none" });
        return undefined;
      case "response":
        this.core.log?.(
          `mcp: ignored a JSON-RPC response from the client (id ${
            JSON.stringify(message.id)
          }): this server sends no requests`,
        );
        delivery.respond({ kind: "none" });
        return undefined;
      case "invalid":
        return this.#answerInSlot(refused(invalid(message.id, message.reason)), delivery.respond);
      case "batch": {
        const decided = batchEra(this.era, message.items.length, delivery.headers);
        if (decided.error !== undefined) {
          return this.#answerInSlot(refused(errorReply(null, decided.error)), delivery.respond);
        }
        const tooBig = batchSizeError(message.items.length);
        if (tooBig !== undefined) {
          return this.#answerInSlot(refused(errorReply(null, tooBig)), delivery.respond);
        }
        this.era = decided.era;
        return runBatch(message.items, {
          requests: this.requests,
          stopped: () => this.#stopped?.() === true,
          item: (item, { respond, starting }) =>
            this.#item(item, {
              respond: (answer) => respond("reply" in answer ? answer.reply : undefined),
              starting,
            }),
          answer: (replies) => {
            if (replies.length === 0 || this.#stopped?.() === true) delivery.respond({ kind: "none" });
            else void this.#answerInSlot(answered(batchReply(replies), false), delivery.respond);
          },
        });
      }
    }
  }

  /** Answers a message its transport could not read (too long, not JSON), in a slot like any answer. */
  unreadable(error: RpcError, delivery: Delivery): Promise<void> | undefined {
    return this.#answerInSlot(refused(errorReply(null, error)), delivery.respond);
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

  /**
   * One message of a batch: a request runs as if alone, unless `starting` says no once it has its slot;
   * anything else is answered (or not) at once.
   */
  #item(
    message: IncomingMessage,
    { respond, starting }: { respond: Delivery["respond"]; starting: () => boolean },
  ): Promise<void> | undefined {
    switch (message.kind) {
      case "request":
        return this.#request(message, { respond }, starting);
      case "notification":
        if (message.method === "notifications/cancelled") this.#cancel(message.params);
        respond({ kind: "none" });
        return undefined;
      case "response":
        respond({ kind: "none" });
        return undefined;
      case "invalid":
        respond(refused(invalid(message.id, message.reason)));
        return undefined;
      case "batch":
        respond(refused(invalid(null, "a batch cannot nest")));
        return undefined;
    }
  }

  /** A request in a slot of its own, answered once its answer is ready unless it was cancelled first. */
  #request(request: Request, delivery: Delivery, starting?: () => boolean): Promise<void> | undefined {
    const { id } = request;
    const { headers, respond } = delivery;
    if (this.requests.has(id) || this.subscriptions.has(id)) {
      return this.#answerInSlot(
        refused(errorReply(id, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: `Invalid request: id ${JSON.stringify(id)} is already in use`,
        })),
        respond,
      );
    }
    return this.requests.start(id, (scope, done) => {
      // Cancelled, or the session stopped, while it waited for its slot: it never runs.
      if (scope.aborted) {
        respond({ kind: "dropped" });
        return done();
      }
      if (starting?.() === false) return done();
      this.#route(request, headers, scope, (answer) => {
        const written = respond(this.requests.claim(id) ? answer : { kind: "dropped" });
        if (written === undefined) done();
        else void written.then(done, done);
      });
    });
  }

  /** The era's rules, the caller's scopes, then the era's method; `finish` gets the answer. */
  #route(
    request: Request,
    headers: HeaderHint | undefined,
    scope: CancelScope,
    finish: (answer: Answer) => void,
  ): void {
    const { id, method, params } = request;
    const route = routeRequest(this.era, method, params, headers);
    switch (route.kind) {
      case "error":
        return finish(refused(errorReply(id, route.error)));
      case "initialize":
        return finish(answered(initialize(this, id, params), false));
      case "ping":
        return finish(answered(messageReply(resultResponse(id, {})), false));
      case "modern":
        if (route.pins) this.era = { kind: "modern" };
        return this.#method(
          MODERN_METHODS.get(method),
          { request, scope, era: route.meta, modern: true },
          finish,
        );
      case "legacy":
        if (route.pins) this.era = route.era;
        return this.#method(
          LEGACY_METHODS.get(method),
          { request, scope, era: route.era, modern: false },
          finish,
        );
    }
  }

  #method<E>(
    handler: Method<E> | undefined,
    { request, scope, era, modern }: { request: Request; scope: CancelScope; era: E; modern: boolean },
    finish: (answer: Answer) => void,
  ): void {
    const { id, method, params } = request;
    if (handler === undefined) return finish(answered(methodNotFound(id, method), modern));
    if (method === "tools/call" && typeof params?.name === "string") {
      const refusal = checkScopes({
        catalog: this.core.catalog,
        caller: this.caller,
        tool: params.name,
        log: this.core.log,
      });
      if (refusal !== undefined) {
        return finish({ kind: "forbidden", reply: errorReply(id, refusal.error), refusal, id });
      }
    }
    let outcome: Reply | Promise<Reply>;
    try {
      outcome = handler({ session: this, id, params, scope }, era);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    void whenReady(outcome, (ready) => {
      const subscribed = method === "subscriptions/listen" && ready.error === undefined;
      finish(subscribed ? { kind: "subscribed", reply: ready, id } : answered(ready, modern));
    }, (error) => {
      // The methods answer every failure themselves; should one ever throw, the client still gets an answer.
      this.core.log?.(`mcp: ${method} failed: ${error instanceof Error ? error.message : String(error)}`);
      finish(
        answered(errorReply(id, { code: RpcErrorCode.INTERNAL_ERROR, message: "Internal error" }), modern),
      );
    });
  }

  /** An answer that needs no method (a malformed message, a batch's): written in a slot of its own. */
  #answerInSlot(answer: Answer, respond: Delivery["respond"]): Promise<void> | undefined {
    return this.requests.start(undefined, (_scope, done) => {
      const written = respond(answer);
      if (written === undefined) done();
      else void written.then(done, done);
    });
  }

  #cancel(params: Record<string, unknown> | undefined): void {
    const requestId = params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    // A cancelled subscription ends without a final result.
    if (this.subscriptions.cancel(requestId)) return;
    this.requests.cancel(
      requestId,
      new DOMException(String(params?.reason ?? "cancelled by the client"), "AbortError"),
    );
  }
}

function answered(reply: Reply, modern: boolean): Answer {
  return { kind: "reply", reply, refused: false, modern };
}

function refused(reply: Reply): Answer {
  return { kind: "reply", reply, refused: true, modern: false };
}

function invalid(id: JsonRpcId | null, reason: string): Reply {
  return errorReply(id, { code: RpcErrorCode.INVALID_REQUEST, message: `Invalid request: ${reason}` });
}

/** One request, as classified. */
type Request = { id: JsonRpcId; method: string; params: Record<string, unknown> | undefined };
