/**
 * The one seam between a protocol session and its bytes. A session reads chunks and writes text or bytes
 * through a {@linkcode ByteChannel}; where they come from is the channel's business. Two implementations:
 * {@linkcode processChannel} (the process's own stdin and stdout, read and written directly) and
 * {@linkcode streamChannel} (any ReadableStream/WritableStream pair: tests, sockets, child pipes). Both are
 * read by the same loop, {@linkcode readChunks}, so an in-memory test takes the path the real process takes.
 * @module
 */
import { type StdioData, stdioWrite } from "./stdio.ts";
import { readStdin } from "./stdin_reader.ts";

/** Where a session's input comes from. */
export interface ByteSource {
  /**
   * The next chunk, or `null` at the end of the input or once `signal` has fired. A chunk is valid until the
   * next call: copy what is kept. Rejects when reading fails. One read at a time.
   */
  read(signal?: AbortSignal): Promise<Uint8Array | null>;
}

/** Where a session's output goes. */
export interface ByteSink {
  /** Writes text (as UTF-8) or bytes; resolves once they are handed on, rejects when the sink broke. */
  write(data: StdioData): Promise<void>;
}

/**
 * A duplex byte stream a protocol session runs over.
 *
 * @example
 * ```ts
 * import { processChannel } from "@toolwire/toolwire/framing";
 *
 * const channel = processChannel();
 * const chunk = await channel.read();
 * if (chunk !== null) await channel.write(`read ${chunk.length} bytes\n`);
 * ```
 */
export interface ByteChannel extends ByteSource, ByteSink {
  /** Lets go of what the channel holds (stream locks) without closing the output. */
  release(): void;
}

let processStdio: ByteChannel | undefined;

/**
 * The process's own stdin and stdout as a channel. stdin is read directly (Node: its `data` events, paused
 * while nobody waits for a chunk; Deno: `Deno.stdin.read`), stdout is the real fd 1 even after stray writes
 * were rerouted to stderr. There is one stdin per process, so every call returns the same channel.
 *
 * @example
 * ```ts
 * import { processChannel } from "@toolwire/toolwire/framing";
 *
 * await processChannel().write("ready\n");
 * ```
 */
export function processChannel(): ByteChannel {
  processStdio ??= { read: readStdin, write: stdioWrite("stdout"), release: () => {} };
  return processStdio;
}

const encoder = new TextEncoder();

/**
 * A sink over a WritableStream. Text is encoded as UTF-8; the stream's writer is taken on the first write
 * and let go by `release()` (the stream is never closed).
 *
 * @example
 * ```ts
 * import { streamSink } from "@toolwire/toolwire/framing";
 *
 * const chunks: Uint8Array[] = [];
 * const sink = streamSink(new WritableStream({ write: (chunk) => void chunks.push(chunk) }));
 * await sink.write("hello\n");
 * sink.release();
 * ```
 */
export function streamSink(writable: WritableStream<Uint8Array>): ByteSink & { release(): void } {
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  return {
    async write(data) {
      writer ??= writable.getWriter();
      await writer.ready;
      await writer.write(typeof data === "string" ? encoder.encode(data) : data);
    },
    release() {
      writer?.releaseLock();
      writer = undefined;
    },
  };
}

/**
 * A channel over any ReadableStream/WritableStream pair (see {@linkcode streamSink} for the writing side).
 * The readable's reader is taken on the first read; an aborted read cancels the readable: the input is over.
 *
 * @example
 * ```ts
 * import { streamChannel } from "@toolwire/toolwire/framing";
 *
 * const pipe = new TransformStream<Uint8Array, Uint8Array>();
 * const channel = streamChannel(pipe.readable, new WritableStream());
 * await channel.write("hello\n");
 * channel.release();
 * ```
 */
export function streamChannel(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
): ByteChannel {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The signal of the read in progress. */
  let pendingSignal: AbortSignal | undefined;
  // A session passes the same signal to every read: it is listened to once, not per read (see nodeStreamReader).
  const listened = new WeakSet<AbortSignal>();
  const listen = (signal: AbortSignal) => {
    listened.add(signal);
    signal.addEventListener("abort", () => {
      if (pendingSignal === signal) void reader?.cancel().catch(() => {});
    }, { once: true });
  };
  const sink = streamSink(writable);
  return {
    async read(signal) {
      reader ??= readable.getReader();
      const current = reader;
      if (signal?.aborted) {
        void current.cancel().catch(() => {});
        return null;
      }
      if (signal !== undefined) {
        if (!listened.has(signal)) listen(signal);
        pendingSignal = signal;
      }
      try {
        const { value, done } = await current.read();
        return done || signal?.aborted ? null : value;
      } finally {
        pendingSignal = undefined;
      }
    },
    write: sink.write,
    release() {
      // A read still pending when the session ends is over: letting go rejects it.
      try {
        reader?.releaseLock();
      } catch {
        // Older Web Streams throw instead while a read is pending; the session is over either way.
      }
      reader = undefined;
      sink.release();
    },
  };
}

/**
 * Feeds a source to `onChunk`, one chunk at a time, until it ends or `signal` fires. When `onChunk` returns
 * a promise, nothing more is read — and the end of the input is not reported — until it settles: whoever
 * handles a chunk finishes with it before the next chunk, or the end, can arrive. Rejects when reading fails
 * or `onChunk` throws.
 *
 * @example
 * ```ts
 * import { processChannel, readChunks } from "@toolwire/toolwire/framing";
 *
 * let bytes = 0;
 * await readChunks(processChannel(), (chunk) => void (bytes += chunk.length));
 * ```
 */
export async function readChunks(
  source: ByteSource,
  onChunk: (chunk: Uint8Array) => Promise<void> | undefined,
  signal?: AbortSignal,
): Promise<void> {
  for (;;) {
    const chunk = await source.read(signal);
    if (chunk === null) return;
    const pending = onChunk(chunk);
    if (pending !== undefined) await pending;
  }
}

/**
 * A source as a ReadableStream, for code that pipes (`pipeThrough` a framer). Each chunk is copied, since a
 * source may reuse its buffer; cancelling the stream stops the read in progress.
 *
 * @example
 * ```ts
 * import { ContentLengthFramer, processChannel, sourceReadable } from "@toolwire/toolwire/framing";
 *
 * const frames = sourceReadable(processChannel()).pipeThrough(new ContentLengthFramer());
 * ```
 */
export function sourceReadable(source: ByteSource): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await source.read(stop.signal);
      if (stop.signal.aborted) return;
      if (chunk === null) controller.close();
      else controller.enqueue(chunk.slice());
    },
    cancel() {
      stop.abort();
    },
  }, { highWaterMark: 0 });
}
