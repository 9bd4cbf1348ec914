/**
 * {@linkcode LineFramer}: the line splitter (line_splitter.ts) as a pair of Web streams, for code that pipes.
 * A protocol session feeds its splitter directly and never loads this.
 * @module
 */
import { type LineFrame, type LineFramerOptions, LineSplitter } from "./line_splitter.ts";
import { splitterStreams } from "./splitter_streams.ts";

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
