import type { InFlight } from "./in_flight.ts";
import type { ProtocolFailure, ProtocolIO } from "./protocol_loop.ts";
import {
  type ContentLengthFrame,
  ContentLengthFramer,
  type ContentLengthFramerOptions,
} from "../framing/content_length_framer.ts";
import { SerialWriter } from "../framing/serial_writer.ts";
import { sourceReadable } from "../runtime/byte_channel.ts";

/**
 * The byte side of an LSP or DAP session: frames read from the protocol's stdin, whole messages written to
 * its stdout one after another. Reading stops when the process is signalled (the loop's `signal`) or the
 * client stops reading stdout (a broken pipe: nobody is left to answer, REQ-F-014); after
 * {@linkcode ContentLengthSession.close} every write is dropped, so a late handler cannot write past the end.
 *
 * @example
 * ```ts
 * const session = new ContentLengthSession(io, { maxMessageBytes: 1 << 20 });
 * for (let frame = await session.next(); frame; frame = await session.next()) await handle(frame);
 * await session.close();
 * ```
 */
export class ContentLengthSession {
  readonly #reader: ReadableStreamDefaultReader<ContentLengthFrame>;
  readonly #out: SerialWriter;
  readonly #channel: ProtocolIO["channel"];
  readonly #signal: AbortSignal;
  readonly #stop: () => void;
  #closed = false;

  constructor(io: ProtocolIO, options: ContentLengthFramerOptions = {}) {
    this.#reader = sourceReadable(io.channel).pipeThrough(new ContentLengthFramer(options)).getReader();
    this.#out = new SerialWriter(io.channel);
    this.#channel = io.channel;
    this.#signal = io.signal;
    this.#stop = () => void this.#reader.cancel().catch(() => {});
    io.signal.addEventListener("abort", this.#stop, { once: true });
    void this.#out.failed.then(this.#stop);
    if (io.signal.aborted) this.#stop();
  }

  /** The next frame; `undefined` once the input ended, failed, or reading was stopped. */
  async next(): Promise<ContentLengthFrame | undefined> {
    try {
      const { value, done } = await this.#reader.read();
      return done ? undefined : value;
    } catch {
      return undefined;
    }
  }

  /** Writes one framed message whole; resolves once it is handed to stdout (or dropped after close). */
  send(bytes: Uint8Array): Promise<void> {
    return this.#closed ? Promise.resolve() : this.#out.write(bytes);
  }

  /** Flushes what was sent, stops reading and lets go of stdout without closing it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal.removeEventListener("abort", this.#stop);
    await this.#out.flush();
    this.#stop();
    this.#channel.release();
  }
}

/** What a frame handler tells the loop: go on (`undefined`), or end the session with this result. */
export type FrameOutcome = { end: ProtocolFailure | undefined } | undefined;

/**
 * The read loop LSP and DAP share: wait for room among the open requests, read a frame, hand it over, until
 * the input ends (then the open requests are answered first, unless a signal ended the process) or a handler
 * ends the session. However it ends, open requests are aborted, `ended` fires and the session is flushed.
 *
 * @example
 * ```ts
 * return await runFrameLoop(io, session, requests, ended, (frame) => this.#onFrame(frame));
 * ```
 */
export async function runFrameLoop<K, T>(
  io: ProtocolIO,
  session: ContentLengthSession,
  requests: InFlight<K, T>,
  ended: AbortController,
  onFrame: (frame: ContentLengthFrame) => Promise<FrameOutcome>,
): Promise<void | ProtocolFailure> {
  try {
    for (;;) {
      await requests.room();
      const frame = await session.next();
      if (frame === undefined) break;
      const outcome = await onFrame(frame);
      if (outcome !== undefined) return outcome.end;
    }
    if (!io.signal.aborted) await requests.answered();
    return undefined;
  } finally {
    requests.abortAll();
    ended.abort();
    await session.close();
  }
}
