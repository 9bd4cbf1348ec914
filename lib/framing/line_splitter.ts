import type { ByteBudget } from "./byte_budget.ts";
import { DEFAULT_MAX_MESSAGE_BYTES, sizeLimit } from "./limits.ts";

// Part of this module's public surface too: the package entry point and the MCP server import it from here.
export { DEFAULT_MAX_MESSAGE_BYTES } from "./limits.ts";

/**
 * One frame out of a {@linkcode LineSplitter} (or a `LineFramer`): a whole line, or a line that was discarded — too long, or, with
 * `bufferFull`, longer than the shared budget had room for while it arrived. With `keepHead`, a line too long
 * keeps its first `maxLineBytes` bytes as `head`.
 */
export type LineFrame =
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversized"; size: number; bufferFull?: true; head?: Uint8Array };

/**
 * Options for {@linkcode LineSplitter} and `LineFramer`. The limit is a whole number of bytes, at
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
  /**
   * Bytes shared with other splitters: a partial line held across chunks takes its bytes from here, and a
   * line the budget has no room for is dropped whole like an oversized one.
   */
  budget?: ByteBudget;
  /** A line too long keeps its first `maxLineBytes` bytes, as the `head` of its `oversized` frame. @default false */
  keepHead?: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

/** A partial line that grows past this is held in one buffer that grows in place (see `#startGrowing`). */
const GROW_IN_PLACE_BYTES = 1024 * 1024;

/** The most a line may take, whatever the limit: 4 GiB, the largest growable buffer every runtime allows. */
const MAX_HELD_BYTES = 2 ** 32;

/** An ArrayBuffer that grows in place up to its `maxByteLength` (ES2024), typed for the ES2022 library. */
interface GrowableBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

const GrowableBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => GrowableBuffer;

/**
 * Splits a byte stream into newline-delimited lines (the MCP stdio framing), synchronously: feed it chunks,
 * and it hands out every complete line. Each byte is scanned once — a line split across a thousand chunks
 * costs the same as one in a single chunk — and a partial line is held only up to `maxLineBytes`: beyond
 * that the rest of the line is skipped and one `oversized` frame is emitted in its place, so memory stays
 * bounded. `\r\n` endings are accepted; blank lines are skipped; {@linkcode LineSplitter.end} delivers a last
 * line without a newline.
 *
 * A line that lies inside one chunk is handed out as a view of that chunk, not a copy. A line of over a MiB
 * is collected in one buffer that grows in place (a resizable ArrayBuffer) and handed out as a view of it,
 * so its bytes are copied once and never held twice. A line is at most 4 GiB, whatever the limit.
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
  /** The most a partial line may hold: the limit plus a byte for a `\r` before the newline. */
  readonly #holdLimit: number;
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  /** A long partial line, held here instead of in `#parts`: its first `#partBytes` bytes. */
  #growing: GrowableBuffer | undefined;
  #discarding = false;
  #discardedBytes = 0;
  readonly #budget: ByteBudget | undefined;
  /** The bytes of the partial line taken from the budget. */
  #budgeted = 0;
  /** The line being discarded ran out of budget, not over the limit. */
  #bufferFull = false;
  readonly #keepHead: boolean;
  /** The first bytes of the line being discarded, with `keepHead`. */
  #head: Uint8Array | undefined;

  /** A splitter with the given limit. */
  constructor(options: LineFramerOptions = {}) {
    this.#max = sizeLimit("maxLineBytes", options.maxLineBytes, DEFAULT_MAX_MESSAGE_BYTES);
    this.#holdLimit = Math.min(this.#max + 1, MAX_HELD_BYTES);
    this.#budget = options.budget;
    this.#keepHead = options.keepHead === true;
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
      const size = this.#discardedBytes + tail.length;
      out.push(this.#oversized(size, this.#head));
      this.#discarding = false;
      this.#discardedBytes = 0;
      this.#bufferFull = false;
      this.#head = undefined;
      return;
    }
    const size = this.#partBytes + tail.length;
    if (size > this.#holdLimit) {
      // Too long even without a `\r` before the newline: counted, never joined. What is held stays within
      // the limit, so the tail is not empty.
      out.push(this.#oversized(size - (tail[tail.length - 1] === CR ? 1 : 0), this.#headOf(tail)));
      this.#release();
      return;
    }
    let line = tail;
    if (this.#growing !== undefined) {
      this.#grow(tail);
      line = new Uint8Array(this.#growing, 0, size);
    } else if (this.#parts.length > 0) {
      line = new Uint8Array(size);
      let offset = 0;
      for (const part of this.#parts) {
        line.set(part, offset);
        offset += part.length;
      }
      line.set(tail, offset);
    }
    this.#release();
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (line.length > this.#max) out.push(this.#oversized(line.length, line.slice(0, this.#max)));
    else if (line.length > 0) out.push({ kind: "line", bytes: line });
  }

  #oversized(size: number, head: Uint8Array | undefined): LineFrame {
    const frame: LineFrame = { kind: "oversized", size };
    if (this.#bufferFull) frame.bufferFull = true;
    if (this.#keepHead && head !== undefined) frame.head = head;
    return frame;
  }

  /** With `keepHead`, the first `maxLineBytes` of what is held and then `more`; else nothing. */
  #headOf(more: Uint8Array): Uint8Array | undefined {
    if (!this.#keepHead) return undefined;
    const head = new Uint8Array(Math.min(this.#max, this.#partBytes + more.length));
    let offset = 0;
    const held = this.#growing === undefined
      ? this.#parts
      : [new Uint8Array(this.#growing, 0, this.#partBytes)];
    for (const part of [...held, more]) {
      if (offset >= head.length) break;
      const piece = part.subarray(0, head.length - offset);
      head.set(piece, offset);
      offset += piece.length;
    }
    return head;
  }

  #hold(piece: Uint8Array): void {
    if (this.#discarding) {
      this.#discardedBytes += piece.length;
      return;
    }
    const size = this.#partBytes + piece.length;
    const fits = size <= this.#holdLimit;
    if (!fits || (this.#budget !== undefined && !this.#budget.take(piece.length))) {
      this.#discarding = true;
      this.#discardedBytes = size;
      this.#bufferFull = fits;
      this.#head = this.#headOf(piece);
      this.#release();
      return;
    }
    this.#budgeted += this.#budget === undefined ? 0 : piece.length;
    if (this.#growing === undefined && size > GROW_IN_PLACE_BYTES) this.#startGrowing();
    // Copy: the producer may reuse its chunk buffer once we return.
    if (this.#growing !== undefined) return this.#grow(piece);
    this.#parts.push(piece.slice());
    this.#partBytes = size;
  }

  /**
   * Moves the parts held so far into a buffer that grows in place: from here on each piece of the line is
   * copied once, into place. Joining parts at the end needs the parts and the joined line at once, twice
   * the line. Where no such buffer can be reserved, the parts go on.
   */
  #startGrowing(): void {
    let buffer: GrowableBuffer;
    try {
      buffer = new GrowableBuffer(this.#partBytes, { maxByteLength: this.#holdLimit });
    } catch {
      return;
    }
    const bytes = new Uint8Array(buffer);
    let offset = 0;
    for (const part of this.#parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    this.#parts = [];
    this.#growing = buffer;
  }

  /** Appends to the growable buffer; the caller has checked that the line stays within `#holdLimit`. */
  #grow(piece: Uint8Array): void {
    const buffer = this.#growing!;
    const size = this.#partBytes + piece.length;
    // Doubling: the resizes (each a system call) stay logarithmic in the line's length.
    if (size > buffer.byteLength) {
      buffer.resize(Math.min(buffer.maxByteLength, Math.max(size, 2 * buffer.byteLength)));
    }
    new Uint8Array(buffer, this.#partBytes, piece.length).set(piece);
    this.#partBytes = size;
  }

  /** Lets go of the partial line, and of its bytes in the budget. */
  #release(): void {
    this.#parts = [];
    this.#partBytes = 0;
    this.#growing = undefined;
    if (this.#budgeted > 0) {
      this.#budget!.give(this.#budgeted);
      this.#budgeted = 0;
    }
  }
}
