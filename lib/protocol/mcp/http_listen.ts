/**
 * The open `subscriptions/listen` streams of an HTTP endpoint: each is an event stream that opens with its
 * acknowledgement, carries the changes it opted in to, and keeps the connection warm with comment lines until
 * the client closes it, or the endpoint closes (its final result, then the end).
 * @module
 */
import type { EventSink, HttpResponse } from "../../runtime/http_exchange.ts";
import { CancelScope } from "../cancel_scope.ts";
import { errorResponse, type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import { JSON_HEADERS, keepAlive, SSE_HEADERS, sseText } from "./http_answers.ts";
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
 * const listen: ListenRequest = { session, id: 1, ack, scope: new CancelScope(), cors: {}, release: () => {} };
 * ```
 */
export interface ListenRequest {
  session: McpSession;
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
 * The listen streams of one endpoint, at most `max` open at once.
 *
 * @example
 * ```ts
 * declare const listen: ListenRequest;
 * const streams = new ListenStreams(256, 15_000);
 * const response = streams.open(listen);
 * ```
 */
export class ListenStreams {
  readonly #max: number;
  readonly #keepAliveMs: number;
  readonly #log: ((message: string) => void) | undefined;
  readonly #streams = new Set<ListenStream>();
  /** Aborted when the endpoint closes: the end of every stream. */
  readonly #closed = new CancelScope();

  constructor(max: number, keepAliveMs: number, log?: (message: string) => void) {
    this.#max = max;
    this.#keepAliveMs = keepAliveMs;
    this.#log = log;
  }

  /** Streams open now. */
  get size(): number {
    return this.#streams.size;
  }

  /** Opens the stream of an acknowledged `subscriptions/listen`, or refuses it (too many open) as JSON. */
  open({ session, id, ack, scope, cors, release }: ListenRequest): HttpResponse {
    if (this.#streams.size >= this.#max) {
      session.subscriptions.cancel(id);
      release();
      const refusal = errorResponse(id, {
        code: RpcErrorCode.INVALID_PARAMS,
        message: `Invalid params: at most ${this.#max} subscriptions are open at once`,
      });
      return { status: 200, headers: { ...JSON_HEADERS, ...cors }, body: JSON.stringify(refusal) };
    }
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...cors },
      events: (sink) => {
        // It holds no slot once acknowledged: a listener waits for changes, it is not work in flight.
        release();
        const done = (async () => {
          await sink.write(sseText(replyText(ack)));
          await keepAlive(sink, scope, this.#closed, this.#keepAliveMs);
          if (this.#closed.aborted && !sink.closed) {
            for (const result of session.end()) await sink.write(this.#event(result));
          }
        })();
        const stream: ListenStream = { session, sink, done };
        this.#streams.add(stream);
        return done.finally(() => this.#streams.delete(stream));
      },
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
