/**
 * The open `subscriptions/listen` streams of an HTTP endpoint: each is an event stream that opens with its
 * acknowledgement, carries the changes it opted in to, and keeps the connection warm with comment lines until
 * the client closes it, or the endpoint closes (its final result, then the end).
 *
 * Each stream holds a connection for as long as it is open, so streams are bounded below the server's
 * connections — the rest stay free for requests — and per holder (the authenticated caller, else the client's
 * address), so that one client cannot take every stream. A stream over a bound is refused with a status a
 * client can act on: 429 over its holder's bound, 503 over the endpoint's, each with `Retry-After`.
 * @module
 */
import type { EventSink, HttpResponse } from "../../runtime/http_exchange.ts";
import { CancelScope } from "../cancel_scope.ts";
import { type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import { keepAlive, rpcError, SSE_HEADERS, sseText } from "./http_answers.ts";
import type { McpSession } from "./mcp_session.ts";
import { messageReply, type Reply, replyText } from "./reply.ts";

/** One open stream; `done` settles once it has ended. */
interface ListenStream {
  session: McpSession;
  sink: EventSink;
  done: Promise<void>;
}

/**
 * A `subscriptions/listen` the session acknowledged, as its stream opens.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 * import type { McpSession } from "./mcp_session.ts";
 * import type { Reply } from "./reply.ts";
 *
 * declare const session: McpSession;
 * declare const ack: Reply;
 * const listen: ListenRequest = {
 *   session,
 *   id: 1,
 *   ack,
 *   holder: "address 127.0.0.1",
 *   scope: new CancelScope(),
 *   cors: {},
 *   release: () => {},
 * };
 * ```
 */
export interface ListenRequest {
  session: McpSession;
  /** Whose stream it is, for the bound per holder: the caller's subject, or the client's address. */
  holder: string;
  id: JsonRpcId;
  /** The acknowledgement, the stream's first event. */
  ack: Reply;
  /** Aborted when the client closes the stream. */
  scope: CancelScope;
  cors: Record<string, string>;
  /**
   * Called once the request holds no slot: at once when refused, when its stream begins, or (by the caller)
   * when its client leaves first.
   */
  release: () => void;
}

/**
 * The bounds of an endpoint's listen streams.
 *
 * @example
 * ```ts
 * const bounds: ListenBounds = { max: 64, perHolder: 32, keepAliveMs: 15_000 };
 * ```
 */
export interface ListenBounds {
  /** Streams open at once over every holder. */
  max: number;
  /** Streams one holder may have open at once. */
  perHolder: number;
  /** How often an open stream gets a keep-alive comment. */
  keepAliveMs: number;
}

/** Seconds a refused client is asked to wait: streams free up only as their clients close them. */
const RETRY_AFTER_SECONDS = "5";

/**
 * The listen streams of one endpoint, within its {@linkcode ListenBounds}.
 *
 * @example
 * ```ts
 * declare const listen: ListenRequest;
 * const streams = new ListenStreams({ max: 64, perHolder: 32, keepAliveMs: 15_000 });
 * const response = streams.open(listen);
 * ```
 */
export class ListenStreams {
  readonly #bounds: ListenBounds;
  readonly #log: ((message: string) => void) | undefined;
  readonly #streams = new Set<ListenStream>();
  /** The streams each holder has open or about to begin; a holder with none has no entry. */
  readonly #held = new Map<string, number>();
  /** Streams open or about to begin, over every holder. */
  #holding = 0;
  /** Aborted when the endpoint closes: the end of every stream. */
  readonly #closed = new CancelScope();

  constructor(bounds: ListenBounds, log?: (message: string) => void) {
    this.#bounds = bounds;
    this.#log = log;
  }

  /** Streams open now. */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * Opens the stream of an acknowledged `subscriptions/listen`, or refuses it as JSON: 429 when its holder has
   * its bound open, 503 when the endpoint has.
   */
  open(listen: ListenRequest): HttpResponse {
    const { session, id, ack, holder, scope, cors, release } = listen;
    const refusal = this.#refusal(holder);
    if (refusal !== undefined) {
      session.subscriptions.cancel(id);
      release();
      return rpcError(refusal.status, id, { code: RpcErrorCode.INTERNAL_ERROR, message: refusal.message }, {
        ...cors,
        "retry-after": RETRY_AFTER_SECONDS,
      });
    }
    // Counted from now, not from when the stream begins: listens answered at the same moment all count.
    const letGo = this.#hold(holder);
    // A client that leaves before its stream begins frees its place at once.
    if (scope.aborted) letGo();
    else scope.addEventListener("abort", letGo);
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...cors },
      events: (sink) => {
        // It holds no slot once acknowledged: a listener waits for changes, it is not work in flight.
        release();
        const done = (async () => {
          await sink.write(sseText(replyText(ack)));
          await keepAlive(sink, scope, this.#closed, this.#bounds.keepAliveMs);
          if (this.#closed.aborted && !sink.closed) {
            for (const result of session.end()) await sink.write(this.#event(result));
          }
        })();
        const stream: ListenStream = { session, sink, done };
        this.#streams.add(stream);
        return done.finally(() => {
          this.#streams.delete(stream);
          letGo();
        });
      },
    };
  }

  /** Why a stream of `holder` cannot open now, if it cannot. */
  #refusal(holder: string): { status: number; message: string } | undefined {
    const { max, perHolder } = this.#bounds;
    if ((this.#held.get(holder) ?? 0) >= perHolder) {
      return {
        status: 429,
        message: `Too many listen streams: ${holder} has ${perHolder} open, the most one client may; ` +
          "close one, or retry later",
      };
    }
    if (this.#holding >= max) {
      return {
        status: 503,
        message:
          `Too many listen streams: the server has ${max} open, the most it serves at once; retry later`,
      };
    }
    return undefined;
  }

  /** Counts a stream of `holder`; the function returned uncounts it, once. */
  #hold(holder: string): () => void {
    this.#holding++;
    this.#held.set(holder, (this.#held.get(holder) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#holding--;
      const left = this.#held.get(holder)! - 1;
      if (left === 0) this.#held.delete(holder);
      else this.#held.set(holder, left);
    };
  }

  /** Tells every stream that opted in that the tool list changed. */
  toolsChanged(): void {
    for (const stream of this.#streams) {
      for (const message of stream.session.toolsChanged()) {
        void stream.sink.write(this.#event(message));
      }
    }
  }

  #event(message: Record<string, unknown>): string {
    return sseText(replyText(messageReply(message, this.#log)));
  }

  /** Ends every stream with its final result; resolves once all have ended. */
  async close(reason: unknown): Promise<void> {
    this.#closed.abort(reason);
    await Promise.all([...this.#streams].map((stream) => stream.done.catch(() => {})));
  }
}
