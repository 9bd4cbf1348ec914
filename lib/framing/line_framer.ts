/** One frame out of a {@linkcode LineFramer}: a whole line, or a line that was too long and was discarded. */
export type LineFrame =
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversized"; size: number };

/** Options for {@linkcode LineFramer}. */
export interface LineFramerOptions {
  /** Longest accepted line in bytes, without its line ending. Longer lines are dropped whole. @default 67108864 (64 MiB) */
  maxLineBytes?: number;
}

/** The default maximum message size: 64 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into newline-delimited lines (the MCP stdio framing). Each byte is scanned once — a
 * line split across a thousand chunks costs the same as one in a single chunk — and a partial line is held
 * only up to `maxLineBytes`: beyond that the rest of the line is skipped and one `oversized` frame is emitted
 * in its place, so memory stays bounded and the stream goes on. `\r\n` endings are accepted; blank lines are
 * skipped; a last line without a newline is still delivered at end of input.
 *
 * @example
 * ```ts
 * const frames = stdinReadable().pipeThrough(new LineFramer({ maxLineBytes: 1 << 20 }));
 * for await (const frame of frames) if (frame.kind === "line") handle(frame.bytes);
 * ```
 */
export class LineFramer extends TransformStream<Uint8Array, LineFrame> {
  constructor(options: LineFramerOptions = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    let parts: Uint8Array[] = [];
    let partBytes = 0;
    let discarding = false;
    let discardedBytes = 0;

    const emit = (controller: TransformStreamDefaultController<LineFrame>, tail: Uint8Array) => {
      if (discarding) {
        controller.enqueue({ kind: "oversized", size: discardedBytes + tail.length });
        discarding = false;
        discardedBytes = 0;
        return;
      }
      let line = tail;
      if (parts.length > 0) {
        line = new Uint8Array(partBytes + tail.length);
        let offset = 0;
        for (const part of parts) {
          line.set(part, offset);
          offset += part.length;
        }
        line.set(tail, offset);
        parts = [];
        partBytes = 0;
      }
      if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
      if (line.length > max) controller.enqueue({ kind: "oversized", size: line.length });
      else if (line.length > 0) controller.enqueue({ kind: "line", bytes: line });
    };

    const hold = (piece: Uint8Array) => {
      if (discarding) {
        discardedBytes += piece.length;
        return;
      }
      // One byte of slack for a `\r` that may precede the newline.
      if (partBytes + piece.length > max + 1) {
        discarding = true;
        discardedBytes = partBytes + piece.length;
        parts = [];
        partBytes = 0;
        return;
      }
      // Copy: the producer may reuse its chunk buffer once we return.
      parts.push(piece.slice());
      partBytes += piece.length;
    };

    super({
      transform(chunk, controller) {
        let start = 0;
        let newline = chunk.indexOf(LF);
        while (newline !== -1) {
          emit(controller, chunk.subarray(start, newline));
          start = newline + 1;
          newline = chunk.indexOf(LF, start);
        }
        if (start < chunk.length) hold(chunk.subarray(start));
      },
      flush(controller) {
        if (discarding || partBytes > 0) emit(controller, new Uint8Array(0));
      },
    });
  }
}
