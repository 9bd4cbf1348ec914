/**
 * The open `subscriptions/listen` streams of an HTTP endpoint: each is an event stream that opens with its
 * acknowledgement, carries the changes it opted in to, and keeps the connection warm with comment lines until
 * the client closes it, or the endpoint closes (its final result, then the end).
 * @module
 */
import type { EventSink, HttpResponse } from "../../runtime/http_exchange.ts";
import { CancelScope } from "../cancel_scope.ts";
import { errorResponse, type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import { JSON_HEADERS, keepAlive, SSE_HEADERS, sseEvent } from "./http_answers.ts";
import type { McpSession } from "./mcp_core.ts";
import { replyText } from "./reply.ts";

/** One open stream; `done` settles once it has ended. */
interface ListenStream {
  session: McpSession;
  sink: EventSink;
  done: Promise<void>;
}

/**
 * The listen streams of one endpoint, at most `max` open at once.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 * import type { McpSession } from "./mcp_core.ts";
 *
 * declare const session: McpSession;
 * const streams = new ListenStreams(256, 15_000);
 * const response = streams.open(session, 1, { notifications: { toolsListChanged: true } }, new CancelScope(), {}, () => {});
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

  /**
   * Answers a `subscriptions/listen` request: an event stream, or a JSON error (bad params, too many open).
   * `release` is called once the request holds no slot: at once for an error, when its stream begins, or
   * (by the caller) when its client leaves first.
   */
  open(
    session: McpSession,
    id: JsonRpcId,
    params: Record<string, unknown> | undefined,
    scope: CancelScope,
    cors: Record<string, string>,
    release: () => void,
  ): HttpResponse {
    const ack = this.#streams.size >= this.#max
      ? errorResponse(id, {
        code: RpcErrorCode.INVALID_PARAMS,
        message: `Invalid params: at most ${this.#max} subscriptions are open at once`,
      })
      : session.subscriptions.open(id, params);
    if (!("method" in ack)) {
      release();
      return { status: 200, headers: { ...JSON_HEADERS, ...cors }, body: replyText(ack, this.#log) };
    }
    return {
      status: 200,
      headers: { ...SSE_HEADERS, ...cors },
      events: (sink) => {
        // It holds no slot once acknowledged: a listener waits for changes, it is not work in flight.
        release();
        const done = (async () => {
          await sink.write(sseEvent(ack, this.#log));
          await keepAlive(sink, scope, this.#closed, this.#keepAliveMs);
          if (this.#closed.aborted && !sink.closed) {
            for (const result of session.end()) await sink.write(sseEvent(result, this.#log));
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
        void stream.sink.write(sseEvent(message, this.#log));
      }
    }
  }

  /** Ends every stream with its final result; resolves once all have ended. */
  async close(reason: unknown): Promise<void> {
    this.#closed.abort(reason);
    await Promise.all([...this.#streams].map((stream) => stream.done.catch(() => {})));
  }
}
