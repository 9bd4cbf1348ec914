import type { ProtocolIO } from "./protocol_loop.ts";
import {
  type ContentLengthFrame,
  ContentLengthFramer,
  type ContentLengthFramerOptions,
} from "../framing/content_length_framer.ts";
import { DEFAULT_MAX_MESSAGE_BYTES, sizeLimit } from "../framing/limits.ts";
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
 * import { encodeContentLength } from "@toolwire/toolwire/framing";
 * import { type ProtocolIO } from "@toolwire/toolwire";
 *
 * declare const io: ProtocolIO;
 * const session = new ContentLengthSession(io, { maxMessageBytes: 1 << 20 });
 * // An echo server: each whole message goes back as it came.
 * for (let frame = await session.next(); frame; frame = await session.next()) {
 *   if (frame.kind !== "message") continue;
 *   await session.send(encodeContentLength(new TextDecoder().decode(frame.bytes)));
 * }
 * await session.close();
 * ```
 */
export class ContentLengthSession {
  /** The longest body read whole; a longer one arrives as an `oversized` frame. */
  readonly maxMessageBytes: number;
  readonly #reader: ReadableStreamDefaultReader<ContentLengthFrame>;
  readonly #out: SerialWriter;
  readonly #channel: ProtocolIO["channel"];
  readonly #signal: AbortSignal;
  readonly #stop: () => void;
  #closed = false;

  /** A session on `io`'s channel; a limit that is not a whole number ≥ 1 throws a RangeError. */
  constructor(io: ProtocolIO, options: ContentLengthFramerOptions = {}) {
    this.maxMessageBytes = sizeLimit("maxMessageBytes", options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES);
    // Made before the channel is touched: a limit it refuses leaves stdin unread.
    const framer = new ContentLengthFramer(options);
    this.#reader = sourceReadable(io.channel).pipeThrough(framer).getReader();
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
