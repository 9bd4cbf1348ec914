import { DEFAULT_MAX_MESSAGE_BYTES, sizeLimit } from "./limits.ts";
import { splitterStreams } from "./splitter_streams.ts";

// Part of this module's public surface too: the package entry point and the MCP server import it from here.
export { DEFAULT_MAX_MESSAGE_BYTES } from "./limits.ts";

/** One frame out of a {@linkcode LineFramer}: a whole line, or a line that was too long and was discarded. */
export type LineFrame =
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversized"; size: number };

/**
 * Options for {@linkcode LineSplitter} and {@linkcode LineFramer}. The limit is a whole number of bytes, at
 * least 1; anything else throws a RangeError when the splitter is made.
 *
 * @example
 * ```ts
 * const options: LineFramerOptions = { maxLineBytes: 1 << 20 };
 * ```
 */
export interface LineFramerOptions {
  /** Longest accepted line in bytes, without its line ending. Longer lines are dropped whole. @default 67108864 (64 MiB) */
  maxLineBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into newline-delimited lines (the MCP stdio framing), synchronously: feed it chunks,
 * and it hands out every complete line. Each byte is scanned once — a line split across a thousand chunks
 * costs the same as one in a single chunk — and a partial line is held only up to `maxLineBytes`: beyond
 * that the rest of the line is skipped and one `oversized` frame is emitted in its place, so memory stays
 * bounded. `\r\n` endings are accepted; blank lines are skipped; {@linkcode LineSplitter.end} delivers a last
 * line without a newline.
 *
 * A line that lies inside one chunk is handed out as a view of that chunk, not a copy.
 *
 * @example
 * ```ts
 * const splitter = new LineSplitter();
 * const frames: LineFrame[] = [];
 * splitter.push(new TextEncoder().encode('{"a":1}\n{"b":'), frames); // frames: one line
 * splitter.push(new TextEncoder().encode("2}\n"), frames); // frames: two lines
 * ```
 */
export class LineSplitter {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  #discarding = false;
  #discardedBytes = 0;

  /** A splitter with the given limit. */
  constructor(options: LineFramerOptions = {}) {
    this.#max = sizeLimit("maxLineBytes", options.maxLineBytes, DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** Splits one chunk, appending the frames it completes to `out`. */
  push(chunk: Uint8Array, out: LineFrame[]): void {
    let start = 0;
    let newline = chunk.indexOf(LF);
    while (newline !== -1) {
      this.#emit(chunk.subarray(start, newline), out);
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  /** End of input: appends the last line if it had no newline. */
  end(out: LineFrame[]): void {
    if (this.#discarding || this.#partBytes > 0) this.#emit(new Uint8Array(0), out);
  }

  #emit(tail: Uint8Array, out: LineFrame[]): void {
    if (this.#discarding) {
      out.push({ kind: "oversized", size: this.#discardedBytes + tail.length });
      this.#discarding = false;
      this.#discardedBytes = 0;
      return;
    }
    let line = tail;
    if (this.#parts.length > 0) {
      line = new Uint8Array(this.#partBytes + tail.length);
      let offset = 0;
      for (const part of this.#parts) {
        line.set(part, offset);
        offset += part.length;
      }
      line.set(tail, offset);
      this.#parts = [];
      this.#partBytes = 0;
    }
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (line.length > this.#max) out.push({ kind: "oversized", size: line.length });
    else if (line.length > 0) out.push({ kind: "line", bytes: line });
  }

  #hold(piece: Uint8Array): void {
    if (this.#discarding) {
      this.#discardedBytes += piece.length;
      return;
    }
    // One byte of slack for a `\r` that may precede the newline.
    if (this.#partBytes + piece.length > this.#max + 1) {
      this.#discarding = true;
      this.#discardedBytes = this.#partBytes + piece.length;
      this.#parts = [];
      this.#partBytes = 0;
      return;
    }
    // Copy: the producer may reuse its chunk buffer once we return.
    this.#parts.push(piece.slice());
    this.#partBytes += piece.length;
  }
}

/**
 * {@linkcode LineSplitter} as a transform stream: bytes in, {@linkcode LineFrame}s out. Like
 * `TextDecoderStream`, it is a readable/writable pair to pipe through rather than a TransformStream subclass:
 * a subclass would make Node load its Web Streams modules when this module loads, which every toolwire
 * process would pay at startup.
 *
 * @example
 * ```ts
 * import { processChannel, sourceReadable } from "@toolwire/toolwire/framing";
 *
 * const frames = sourceReadable(processChannel()).pipeThrough(new LineFramer({ maxLineBytes: 1 << 20 }));
 * for await (const frame of frames) {
 *   if (frame.kind === "line") console.log(new TextDecoder().decode(frame.bytes));
 * }
 * ```
 */
export class LineFramer {
  /** The frames. */
  readonly readable: ReadableStream<LineFrame>;
  /** Where the bytes go in. */
  readonly writable: WritableStream<Uint8Array>;

  /** A framer with the given limit. */
  constructor(options: LineFramerOptions = {}) {
    const { readable, writable } = splitterStreams(new LineSplitter(options));
    this.readable = readable;
    this.writable = writable;
  }
}
