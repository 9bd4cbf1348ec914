/**
 * The size limits of toolwire's framers, in one place: the newline framing of MCP and the Content-Length
 * framing of LSP and DAP read from the same defaults, and their servers and command flags quote them from
 * here. See docs/framing.md for what happens at each limit.
 * @module
 */

/**
 * The default maximum message size: 64 MiB. A longer line (MCP) or body (LSP, DAP) is skipped whole and
 * answered with an error, without being held in memory.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "@toolwire/toolwire/framing";
 *
 * const splitter = new LineSplitter({ maxLineBytes: DEFAULT_MAX_MESSAGE_BYTES / 4 });
 * ```
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The default maximum Content-Length header block size: 8 KiB, as for HTTP. Real headers are under 100 bytes.
 *
 * @example
 * ```ts
 * import { ContentLengthFramer } from "@toolwire/toolwire/framing";
 *
 * const framer = new ContentLengthFramer({ maxHeaderBytes: DEFAULT_MAX_HEADER_BYTES / 8 });
 * ```
 */
export const DEFAULT_MAX_HEADER_BYTES = 8 * 1024;

/**
 * How much of an oversized Content-Length body is kept for the `oversized` frame's `head`: enough for the
 * `id` or `seq` a client writes near the start, so the skipped request can still be answered.
 *
 * @example
 * ```ts
 * import type { ContentLengthFrame } from "@toolwire/toolwire/framing";
 *
 * declare const frame: ContentLengthFrame;
 * if (frame.kind === "oversized") console.log(frame.head.length <= OVERSIZED_HEAD_BYTES); // true
 * ```
 */
export const OVERSIZED_HEAD_BYTES = 1024;

/**
 * A size limit from the options, or its default. A limit that is not a whole number of bytes ≥ 1 (`NaN`,
 * `Infinity`, a fraction, zero or less) throws a RangeError at construction: left in place, `NaN` would
 * disable the limit (every comparison with it is false) and a negative size would break the buffers.
 *
 * @example
 * ```ts
 * declare const options: { maxMessageBytes?: number };
 * const max = sizeLimit("maxMessageBytes", options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES);
 * ```
 */
export function sizeLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of bytes, at least 1; got ${value}`);
  }
  return value;
}
