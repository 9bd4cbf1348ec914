/**
 * A synchronous splitter (`LineSplitter`, `ContentLengthSplitter`) cuts bytes into frames; this module puts
 * Web Streams around one, so that each framer is its splitter and nothing more.
 * @module
 */

/**
 * What {@linkcode splitterStreams} needs of a splitter: chunks in, frames appended to `out`, and a last call
 * at the end of input for what was left.
 *
 * @example
 * ```ts
 * import { type LineFrame, LineSplitter } from "@toolwire/toolwire/framing";
 *
 * const splitter: Splitter<LineFrame> = new LineSplitter();
 * ```
 */
export interface Splitter<F> {
  /** Splits one chunk, appending the frames it completes to `out`. */
  push(chunk: Uint8Array, out: F[]): void;
  /** End of input: appends what the last bytes make. */
  end(out: F[]): void;
}

/**
 * A splitter as a readable/writable pair to pipe through, like `TextDecoderStream`: bytes into `writable`,
 * frames out of `readable`, in order. A pair rather than a TransformStream subclass: a subclass would make
 * Node load its Web Streams modules when the framer's module loads, which every toolwire process would pay
 * at startup.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "@toolwire/toolwire/framing";
 *
 * const { readable, writable } = splitterStreams(new LineSplitter({ maxLineBytes: 1 << 20 }));
 * ```
 */
export function splitterStreams<F>(
  splitter: Splitter<F>,
): { readable: ReadableStream<F>; writable: WritableStream<Uint8Array> } {
  const frames: F[] = [];
  const deliver = (controller: TransformStreamDefaultController<F>) => {
    for (const frame of frames) controller.enqueue(frame);
    frames.length = 0;
  };
  return new TransformStream<Uint8Array, F>({
    transform(chunk, controller) {
      splitter.push(chunk, frames);
      deliver(controller);
    },
    flush(controller) {
      splitter.end(frames);
      deliver(controller);
    },
  });
}
