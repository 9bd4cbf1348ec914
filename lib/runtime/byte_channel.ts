/**
 * The one seam between a protocol session and its bytes. A session reads chunks and writes text or bytes
 * through a {@linkcode ByteChannel}; where they come from is the channel's business. Two implementations:
 * {@linkcode processChannel} (the process's own stdin and stdout, read and written directly) and
 * `streamChannel` (stream_channel.ts: any ReadableStream/WritableStream pair: tests, sockets, child pipes).
 * Both are read by the same loop, {@linkcode readChunks}, so an in-memory test takes the path the real
 * process takes.
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
