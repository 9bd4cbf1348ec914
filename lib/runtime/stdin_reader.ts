/**
 * Reading the process's stdin — and any Node readable stream, a socket say — chunk by chunk, with a pause
 * whenever nobody waits, on both runtimes.
 * @module
 */
import { deno, type DenoApi } from "./deno_api.ts";
import { nodeProcess } from "./node_process.ts";

/**
 * What {@linkcode nodeStreamReader} uses of a Node readable stream (stdin, a socket), written out for the
 * same reason as {@linkcode NodeWritable}.
 *
 * @example
 * ```ts
 * declare const socket: NodeReadable;
 * socket.on("data", (chunk) => console.log(chunk.length));
 * ```
 */
export interface NodeReadable {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  once(event: "end" | "close", listener: () => void): unknown;
  once(event: "error", listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/**
 * Reads the process's stdin: the next chunk, or `null` at its end or once `signal` fired (reading is over for
 * good then). A chunk is valid until the next read. Nothing touches stdin before the first call, so commands
 * that never ask never read it (`--help` must not). Sessions use it through `processChannel()`.
 *
 * @example
 * ```ts
 * const chunk = await readStdin();
 * ```
 */
export const readStdin: (signal?: AbortSignal) => Promise<Uint8Array | null> = deno
  ? denoStdinReader(deno.stdin)
  : nodeStdinReader();

/**
 * Node: stdin's `data` events (see {@linkcode nodeStreamReader}). `process.stdin` is made on first access,
 * so not before the first read.
 */
function nodeStdinReader(): (signal?: AbortSignal) => Promise<Uint8Array | null> {
  let read: ((signal?: AbortSignal) => Promise<Uint8Array | null>) | undefined;
  return (signal) => (read ??= nodeStreamReader(nodeProcess().stdin))(signal);
}

/**
 * Reads a Node readable stream (stdin, a socket) chunk by chunk through its `data` events, paused whenever a
 * chunk arrives that nobody waits for, so at most a chunk or two is ever queued; a sequential client's chunks
 * go straight to the waiting reader, without a pause. Each call resolves the next chunk, or `null` at the end
 * or once `signal` fired — reading is over for good then, and the stream is paused (its writing side, if
 * any, stays open).
 *
 * @example
 * ```ts
 * import { connect } from "node:net";
 *
 * const read = nodeStreamReader(connect({ host: "127.0.0.1", port: 7000 }));
 * for (let chunk = await read(); chunk !== null; chunk = await read()) console.log(chunk.length);
 * ```
 */
export function nodeStreamReader(
  stream: NodeReadable,
): (signal?: AbortSignal) => Promise<Uint8Array | null> {
  const queue: Uint8Array[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let attached = false;
  // The pending read's settlers, stored by one executor made per reader: no closure and no object per read.
  let resolveRead: ((chunk: Uint8Array | null) => void) | undefined;
  let rejectRead: ((error: unknown) => void) | undefined;
  const wait = (resolve: (chunk: Uint8Array | null) => void, reject: (error: unknown) => void) => {
    resolveRead = resolve;
    rejectRead = reject;
  };
  /** The signal of the pending read, and of the reads before it while they pass the same one. */
  let watched: AbortSignal | undefined;
  let watchedAborted = false;
  // Only this reader pauses the stream, so it resumes it only after pausing: `resume()` on a flowing stream
  // is two calls into Node's stream code per read for nothing.
  let paused = false;
  // A session passes the same signal to every read: it is listened to once, not per read, and whether it
  // fired is known from that listener (docs/performance.md#code-shapes).
  const listened = new WeakSet<AbortSignal>();
  const settle = (chunk: Uint8Array | null) => {
    const resolve = resolveRead;
    resolveRead = rejectRead = undefined;
    resolve?.(chunk);
  };
  const attach = () => {
    attached = true;
    stream.on("data", (data: Uint8Array) => {
      // A plain Uint8Array view of the Buffer: the framers' `indexOf` and `subarray` are then the engine's
      // own, not Buffer's JavaScript overrides (argument checks, a species constructor per subarray).
      const chunk = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (resolveRead !== undefined) return settle(chunk);
      queue.push(chunk);
      paused = true;
      stream.pause();
    });
    stream.once("end", () => {
      ended = true;
      settle(null);
    });
    stream.once("close", () => {
      ended = true;
      settle(null);
    });
    stream.once("error", (error) => {
      failure = { error };
      const reject = rejectRead;
      resolveRead = rejectRead = undefined;
      reject?.(error);
    });
    // A stream paused before the first read flows from now on, like one nobody had touched.
    stream.resume();
  };
  const listen = (signal: AbortSignal) => {
    listened.add(signal);
    signal.addEventListener("abort", () => {
      if (watched === signal) watchedAborted = true;
      // Only the read made with this signal ends; reading is over then. Writing may go on (a socket still
      // answers what it read), so only pause.
      if (resolveRead === undefined || watched !== signal) return;
      ended = true;
      paused = true;
      stream.pause();
      settle(null);
    }, { once: true });
  };
  return (signal) => {
    if (queue.length > 0) return Promise.resolve(queue.shift()!);
    if (failure !== undefined) return Promise.reject(failure.error);
    if (signal !== watched) {
      watched = signal;
      watchedAborted = signal?.aborted === true;
      if (signal !== undefined && !watchedAborted && !listened.has(signal)) listen(signal);
    }
    if (ended || watchedAborted) return Promise.resolve(null);
    const read = new Promise<Uint8Array | null>(wait);
    if (!attached) attach();
    else if (paused) {
      paused = false;
      stream.resume();
    }
    return read;
  };
}

/**
 * Deno: `Deno.stdin.read` into one reused buffer (cheaper than `Deno.stdin.readable`, docs/performance.md#deno).
 * A pending read cannot be cancelled, so an abort settles the caller's promise with `null` instead, and
 * reading is over for good then: the lost read's bytes are never looked at, and no second read may start
 * while it is pending. One abort listener serves every read with the same signal.
 */
function denoStdinReader(stdin: DenoApi["stdin"]): (signal?: AbortSignal) => Promise<Uint8Array | null> {
  const buffer = new Uint8Array(64 * 1024);
  let over = false;
  let pending: { signal: AbortSignal | undefined; resolve(chunk: Uint8Array | null): void } | undefined;
  let watched: AbortSignal | undefined;
  const onAbort = () => {
    const current = pending;
    if (current?.signal?.aborted !== true) return;
    over = true;
    pending = undefined;
    current.resolve(null);
  };
  return (signal) => {
    if (over || signal?.aborted) {
      over = true;
      return Promise.resolve(null);
    }
    if (signal !== watched) {
      watched?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort);
      watched = signal;
    }
    return new Promise<Uint8Array | null>((resolve, reject) => {
      const current = { signal, resolve };
      pending = current;
      stdin.read(buffer).then((size) => {
        if (pending !== current) return;
        pending = undefined;
        if (size !== null) return resolve(buffer.subarray(0, size));
        over = true;
        resolve(null);
      }, (error: unknown) => {
        if (pending !== current) return;
        pending = undefined;
        reject(error);
      });
    });
  };
}
