/**
 * Byte channels over Web streams: {@linkcode streamChannel} for any ReadableStream/WritableStream pair (tests,
 * sockets, child pipes), its writing side {@linkcode streamSink}, and {@linkcode sourceReadable} for code that
 * pipes a channel's input through a framer. A tool's own stdio is `processChannel` (byte_channel.ts): apart,
 * these are loaded only by the programs that use them.
 * @module
 */
import type { ByteChannel, ByteSink, ByteSource } from "./byte_channel.ts";

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
