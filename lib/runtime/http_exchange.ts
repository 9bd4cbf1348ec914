/**
 * One HTTP request and its response as a protocol server sees them, whatever serves them: `node:http`,
 * `Deno.serve`, or any web-standard host through {@linkcode webHandler}. An {@linkcode HttpHandler} reads
 * the request (its body within a size and a time limit) and answers with a whole body or a stream of
 * Server-Sent Events.
 * @module
 */

/**
 * Why a body could not be read whole: over the size limit, too slow, or the client went away.
 *
 * @example
 * ```ts
 * const problem: BodyProblem = "timed-out";
 * ```
 */
export type BodyProblem = "too-large" | "timed-out" | "aborted";

/**
 * One request.
 *
 * @example
 * ```ts
 * declare const request: HttpRequest;
 * const body = await request.body(1 << 20, 10_000);
 * if (typeof body === "string") console.error(`the body was not read: ${body}`);
 * ```
 */
export interface HttpRequest {
  /**
   * The client's address as the server sees it (a proxy's, behind one), when the server tells it: the key of
   * bounds per client without authentication.
   */
  readonly peer?: string;
  /** The method, upper case. */
  readonly method: string;
  /** The path of the request target, without its query. */
  readonly path: string;
  /** A header's value (the name in lower case); repeated headers joined with ", "; `null` when absent. */
  header(name: string): string | null;
  /** The body's bytes, or why not: past `maxBytes` the rest is not read; `timeoutMs` bounds the whole read. */
  body(maxBytes: number, timeoutMs: number): Promise<Uint8Array | BodyProblem>;
  /** Calls `listener` once if the client goes away before the response is complete. */
  onClose(listener: () => void): void;
}

/**
 * Where a stream of Server-Sent Events goes.
 *
 * @example
 * ```ts
 * declare const sink: EventSink;
 * await sink.write('event: message\ndata: {"jsonrpc":"2.0","method":"ping"}\n\n');
 * ```
 */
export interface EventSink {
  /** Writes text; resolves once it is handed on (the client reads), or at once once the client is gone. */
  write(text: string): Promise<void>;
  /** Whether the client went away. */
  readonly closed: boolean;
}

/**
 * A response: a whole body, or an event stream the server writes while `events` runs (the response ends
 * when the promise settles).
 *
 * @example
 * ```ts
 * const response: HttpResponse = { status: 202, headers: {} };
 * ```
 */
export type HttpResponse =
  | { status: number; headers: Record<string, string>; body?: string }
  | { status: number; headers: Record<string, string>; events: (sink: EventSink) => Promise<void> };

/**
 * Answers one request.
 *
 * @example
 * ```ts
 * const hello: HttpHandler = () => Promise.resolve({ status: 200, headers: {}, body: "hello" });
 * ```
 */
export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;

const encoder = new TextEncoder();

/**
 * An {@linkcode HttpHandler} as a web-standard `(Request) => Promise<Response>`, for `Deno.serve`, Bun,
 * edge runtimes or a server of your own. The client going away is seen through `request.signal` and through
 * the cancellation of an event stream. The client's address is read from `info.remoteAddr`, what
 * `Deno.serve` hands a handler beside the request.
 *
 * @example
 * ```ts
 * declare const handler: HttpHandler;
 * const fetchHandler = webHandler(handler);
 * const response = await fetchHandler(new Request("http://127.0.0.1/mcp", { method: "GET" }));
 * ```
 */
export function webHandler(
  handler: HttpHandler,
): (request: Request, info?: { remoteAddr?: { hostname?: string } }) => Promise<Response> {
  return async (request, info) => {
    const closeListeners: Array<() => void> = [];
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      for (const listener of closeListeners.splice(0)) listener();
    };
    // Deno's server also aborts the signal once a response is delivered (and says so on stderr when someone
    // listens): the listener goes as soon as the response is complete, so only a client that left is heard.
    const signal = request.signal;
    signal?.addEventListener("abort", close, { once: true });
    const unlisten = () => signal?.removeEventListener("abort", close);
    const url = new URL(request.url);
    const peer = info?.remoteAddr?.hostname;
    const answer = await handler({
      ...(peer === undefined ? {} : { peer }),
      method: request.method,
      path: url.pathname,
      // A `Request` built in code has no Host header (the fetch standard forbids setting one): its URL names it.
      header: (name) => request.headers.get(name) ?? (name === "host" ? url.host : null),
      body: (maxBytes, timeoutMs) => readBody(request.body, maxBytes, timeoutMs),
      onClose: (listener) => {
        if (closed) listener();
        else closeListeners.push(listener);
      },
    });
    if (!("events" in answer)) {
      unlisten();
      return new Response(answer.body ?? null, answer);
    }
    const readable = new ReadWait();
    closeListeners.push(() => readable.release());
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      pull: () => readable.release(),
      cancel: close,
    }, { highWaterMark: 16 * 1024, size: (chunk) => chunk.length });
    const sink: EventSink = {
      write(text) {
        if (closed) return Promise.resolve();
        controller.enqueue(encoder.encode(text));
        // Backpressure: a client that does not read holds the writer, not the server's memory.
        if ((controller.desiredSize ?? 1) > 0) return Promise.resolve();
        return readable.wait();
      },
      get closed() {
        return closed;
      },
    };
    void answer.events(sink).finally(() => {
      unlisten();
      if (closed) return;
      closed = true;
      try {
        controller.close();
      } catch {
        // The stream was cancelled meanwhile.
      }
    });
    return new Response(stream, { status: answer.status, headers: answer.headers });
  };
}

/**
 * The wait of an event stream's writers for its client to read on: one promise, shared by every write made
 * while the stream is backed up, and settled when the client reads or leaves. A waiter per write — a listener
 * each — would pile up without bound on a client that does not read.
 *
 * @example
 * ```ts
 * const readable = new ReadWait();
 * const first = readable.wait();
 * readable.wait() === first; // true: one wait, however many writes
 * readable.release(); // the client read: both writes go on
 * ```
 */
export class ReadWait {
  #waiting: Promise<void> | undefined;
  #release: (() => void) | undefined;

  /** Settles once the client reads or leaves. */
  wait(): Promise<void> {
    return this.#waiting ??= new Promise<void>((resolve) => (this.#release = resolve));
  }

  /** The client read, or left: every write waiting goes on. */
  release(): void {
    const release = this.#release;
    this.#waiting = this.#release = undefined;
    release?.();
  }
}

/** Reads a web body within the limits. */
async function readBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | BodyProblem> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"timed-out">((
    resolve,
  ) => (timer = setTimeout(() => resolve("timed-out"), timeoutMs)));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "timed-out") return next;
      if (next.done) break;
      size += next.value.length;
      if (size > maxBytes) return "too-large";
      parts.push(next.value);
    }
  } catch {
    // The client went away mid-body (or the host cancelled the stream).
    return "aborted";
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => {});
  }
  return concat(parts, size);
}

/**
 * Joins byte chunks into one array of `size` bytes (their total).
 *
 * @example
 * ```ts
 * concat([new Uint8Array([1]), new Uint8Array([2, 3])], 3); // Uint8Array [1, 2, 3]
 * ```
 */
export function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const joined = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
