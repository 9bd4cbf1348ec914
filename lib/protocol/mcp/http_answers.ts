/**
 * How one request over HTTP is answered: a JSON body, or an event stream — a call's notifications, then its
 * answer — and the error responses the endpoint gives before any method runs.
 * @module
 */
import type { BodyProblem, EventSink, HttpResponse } from "../../runtime/http_exchange.ts";
import type { CancelScope } from "../cancel_scope.ts";
import { errorResponse, type JsonRpcId, type RpcError, RpcErrorCode } from "../json_rpc.ts";
import { type Reply, replyText } from "./reply.ts";

/**
 * The headers of every event stream.
 *
 * @example
 * ```ts
 * SSE_HEADERS["x-accel-buffering"]; // "no"
 * ```
 */
export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // nginx and friends buffer a response unless told not to; events must reach the client as they are sent.
  "x-accel-buffering": "no",
};
/**
 * The headers of a JSON answer.
 *
 * @example
 * ```ts
 * JSON_HEADERS["content-type"]; // "application/json"
 * ```
 */
export const JSON_HEADERS = { "content-type": "application/json" };
/**
 * One request's answer: JSON when the answer comes first, an event stream once a notification must go
 * out before it. A client that cannot take a stream (its `Accept` does not name one) gets the answer only.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 * import type { Reply } from "./reply.ts";
 *
 * declare const reply: Reply;
 * const call = new HttpCall(true, {});
 * // The session sends its notifications to call.notify; the response is decided by what comes first.
 * call.finish(reply, 200, new CancelScope());
 * const response = await call.response;
 * ```
 */
export class HttpCall {
  readonly #streams: boolean;
  readonly #cors: Record<string, string>;
  /** Set until a response is given: JSON (the answer came first) or the stream (a notification did). */
  #respond: ((response: HttpResponse) => void) | undefined;
  /** The stream, once the server began writing it. */
  #sink: EventSink | undefined;
  /** Events waiting for the stream to begin, each with what to call once it is written. */
  readonly #pending: Array<{ text: string; written: () => void }> = [];
  /** The answer is known: the stream ends after what is pending. */
  #over = false;
  #finish: (() => void) | undefined;

  /** The response, once decided. */
  readonly response: Promise<HttpResponse>;

  constructor(streams: boolean, cors: Record<string, string>) {
    this.#streams = streams;
    this.#cors = cors;
    // Decided from the start: a call may send a notification before its handler first waits.
    this.response = new Promise<HttpResponse>((respond) => (this.#respond = respond));
  }

  /** A notification's JSON text: the stream begins with the first; resolves once it is written. */
  readonly notify = (json: string): Promise<void> | undefined => {
    if (!this.#streams || this.#over) return undefined;
    const written = new Promise<void>((resolve) =>
      this.#pending.push({ text: sseText(json), written: resolve })
    );
    const respond = this.#respond;
    this.#respond = undefined;
    if (respond === undefined) this.#drain();
    else {
      respond({
        status: 200,
        headers: { ...SSE_HEADERS, ...this.#cors },
        events: (sink) =>
          new Promise<void>((finish) => {
            this.#sink = sink;
            this.#finish = finish;
            this.#drain();
          }),
      });
    }
    return written;
  };

  /** Gives a response that is no method's answer (a refusal, a 202, a listen's stream), unless one was given. */
  give(response: HttpResponse): void {
    const respond = this.#respond;
    this.#respond = undefined;
    respond?.(response);
  }

  /**
   * Ends the call with its answer: a JSON response with `status` if no stream began, else the stream's last
   * event — unless `closed` says the client is gone.
   */
  finish(reply: Reply, status: number, closed: CancelScope): void {
    const respond = this.#respond;
    if (respond !== undefined) {
      this.#respond = undefined;
      respond({ status, headers: { ...JSON_HEADERS, ...this.#cors }, body: replyText(reply) });
      return;
    }
    this.#over = true;
    // Nothing more is sent for a request whose stream the client closed.
    if (!closed.aborted) this.#pending.push({ text: sseText(replyText(reply)), written: () => {} });
    this.#drain();
  }

  /** Writes what is pending, in order; once the answer is out, the stream ends. */
  #drain(): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    let last: Promise<void> = Promise.resolve();
    for (const { text, written } of this.#pending.splice(0)) last = sink.write(text).then(written);
    if (this.#over) void last.then(() => this.#finish?.());
  }
}

/**
 * A JSON-RPC error as a whole JSON response with the given status.
 *
 * @example
 * ```ts
 * rpcError(400, 1, { code: -32020, message: "Header mismatch: the Mcp-Method header is missing" });
 * ```
 */
export function rpcError(
  status: number,
  id: JsonRpcId | null,
  error: RpcError,
  headers: Record<string, string> = {},
): HttpResponse {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(errorResponse(id, error)) };
}

/**
 * The answer to a body that was not read whole. The rest of it may still be coming, so the connection is
 * closed after the answer rather than kept for another request.
 *
 * @example
 * ```ts
 * bodyProblem("too-large", 1024, {}).status; // 413
 * ```
 */
export function bodyProblem(
  problem: BodyProblem,
  max: number,
  cors: Record<string, string>,
): HttpResponse {
  const headers = { ...cors, connection: "close" };
  if (problem === "too-large") {
    return rpcError(413, null, {
      code: RpcErrorCode.INVALID_REQUEST,
      message: `Invalid request: the body exceeds the ${max}-byte limit; nothing was run`,
    }, headers);
  }
  return rpcError(problem === "timed-out" ? 408 : 400, null, {
    code: RpcErrorCode.INVALID_REQUEST,
    message: problem === "timed-out"
      ? "Invalid request: the body did not arrive in time; nothing was run"
      : "Invalid request: the body was cut off; nothing was run",
  }, headers);
}

/**
 * Whether a client's `Accept` takes an event stream (absent: it takes anything).
 *
 * @example
 * ```ts
 * streams("application/json, text/event-stream"); // true
 * streams("application/json"); // false
 * ```
 */
export function streams(accept: string | null): boolean {
  return accept === null || /text\/event-stream|\*\/\*/i.test(accept);
}

/**
 * A message's JSON text as one Server-Sent Event.
 *
 * @example
 * ```ts
 * sseText('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}');
 * // 'event: message\ndata: {"jsonrpc":"2.0",...}\n\n'
 * ```
 */
export function sseText(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/**
 * Writes a comment line every `intervalMs` until the stream's scope or the endpoint is closed.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 * import type { EventSink } from "../../runtime/http_exchange.ts";
 *
 * declare const sink: EventSink;
 * const closed = new CancelScope();
 * await keepAlive(sink, new CancelScope(), closed, 15_000); // until closed.abort()
 * ```
 */
export function keepAlive(
  sink: EventSink,
  scope: CancelScope,
  closed: CancelScope,
  intervalMs: number,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (sink.closed) stop();
      else void sink.write(":\n\n");
    }, intervalMs);
    const stop = () => {
      clearInterval(timer);
      resolve();
    };
    scope.addEventListener("abort", stop);
    closed.addEventListener("abort", stop);
    if (scope.aborted || closed.aborted) stop();
  });
}
