/**
 * How one request over HTTP is answered: a JSON body, or an event stream — a call's notifications, then its
 * answer — and the error responses the endpoint gives before any method runs.
 * @module
 */
import type { BodyProblem, EventSink, HttpResponse } from "../../runtime/http_exchange.ts";
import type { CancelScope } from "../cancel_scope.ts";
import { errorResponse, type JsonRpcId, type RpcError, RpcErrorCode } from "../json_rpc.ts";
import { errorStatus } from "./http_headers.ts";
import { type Reply, replyText } from "./reply.ts";

/**
 * A stream's notifications not yet read by the client beyond this many bytes are dropped (and counted).
 *
 * @example
 * ```ts
 * MAX_QUEUED_EVENT_BYTES; // 4194304
 * ```
 */
export const MAX_QUEUED_EVENT_BYTES = 4 * 1024 * 1024;

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
 * declare const reply: Promise<Reply>;
 * const call = new HttpCall(true, {}, console.error);
 * // The session sends its notifications to call.notify; the response is decided by what comes first.
 * const response = await call.answer(reply, true, new CancelScope());
 * ```
 */
export class HttpCall {
  readonly #streams: boolean;
  readonly #cors: Record<string, string>;
  readonly #log: ((message: string) => void) | undefined;
  /** Set until a response is given: JSON (the answer came first) or the stream (a notification did). */
  #respond: ((response: HttpResponse) => void) | undefined;
  /** The stream, once the server began writing it. */
  #sink: EventSink | undefined;
  /** Events waiting for the stream to begin. */
  readonly #pending: string[] = [];
  /** The answer is known: the stream ends after what is pending. */
  #over = false;
  #finish: (() => void) | undefined;
  /** Bytes the stream holds for the client; beyond the bound, notifications are dropped and counted. */
  #heldBytes = 0;
  #dropped = 0;

  /** The response, once decided. */
  readonly #response: Promise<HttpResponse>;

  constructor(streams: boolean, cors: Record<string, string>, log: ((message: string) => void) | undefined) {
    this.#streams = streams;
    this.#cors = cors;
    this.#log = log;
    // Decided from the start: a call may send a notification before its handler first waits.
    this.#response = new Promise<HttpResponse>((respond) => (this.#respond = respond));
  }

  readonly notify = (message: Record<string, unknown>): void => {
    if (!this.#streams || this.#over) return;
    if (this.#heldBytes > MAX_QUEUED_EVENT_BYTES) {
      this.#dropped++;
      return;
    }
    this.#queue(sseEvent(message, this.#log));
    const respond = this.#respond;
    if (respond === undefined) return this.#drain();
    this.#respond = undefined;
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
  };

  /** Ends the call with its answer: the response is JSON if no stream began, else the stream's last event. */
  answer(reply: Promise<Reply>, modern: boolean, scope: CancelScope): Promise<HttpResponse> {
    void reply.then((answer) => {
      const respond = this.#respond;
      if (respond !== undefined) {
        this.#respond = undefined;
        respond(jsonAnswer(answer, modern, this.#cors, this.#log));
        return;
      }
      this.#over = true;
      // Nothing more is sent for a request whose stream the client closed.
      if (answer !== null && !scope.aborted) this.#queue(sseEvent(answer, this.#log));
      this.#drain();
    });
    return this.#response;
  }

  /**
   * An event for the stream, held until the client read it: counted from here, so that events a handler
   * sends before the stream begins are bounded too.
   */
  #queue(text: string): void {
    this.#heldBytes += text.length;
    this.#pending.push(text);
  }

  /** Writes what is pending, in order; once the answer is out, the stream ends. */
  #drain(): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    let last: Promise<void> = Promise.resolve();
    for (const text of this.#pending.splice(0)) {
      last = sink.write(text).then(() => void (this.#heldBytes -= text.length));
    }
    if (!this.#over) return;
    void last.then(() => {
      if (this.#dropped > 0) {
        this.#log?.(
          `mcp: dropped ${this.#dropped} progress or log notification(s): the client did not read them`,
        );
      }
      this.#finish?.();
    });
  }
}

/** An answer as a JSON response; a modern error answer takes its HTTP status from its code. */
function jsonAnswer(
  answer: Reply,
  modern: boolean,
  cors: Record<string, string>,
  log: ((message: string) => void) | undefined,
): HttpResponse {
  if (answer === null) return { status: 202, headers: cors };
  const error = typeof answer === "object" && !Array.isArray(answer)
    ? (answer as { error?: RpcError }).error
    : undefined;
  const status = modern && error !== undefined ? errorStatus(error) : 200;
  return { status, headers: { ...JSON_HEADERS, ...cors }, body: replyText(answer, log) };
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
 * A message as one Server-Sent Event.
 *
 * @example
 * ```ts
 * sseEvent({ jsonrpc: "2.0", method: "notifications/progress", params: {} }, console.error);
 * // 'event: message\ndata: {"jsonrpc":"2.0",...}\n\n'
 * ```
 */
export function sseEvent(
  message: Exclude<Reply, null>,
  log: ((message: string) => void) | undefined,
): string {
  return `event: message\ndata: ${replyText(message, log)}\n\n`;
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
