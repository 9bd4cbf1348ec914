/**
 * Bytes ↔ messages for protocol loops of your own (`@toolwire/toolwire/framing`, `toolwire/framing` on npm):
 * newline-delimited JSON, Content-Length frames (LSP, DAP), a writer that keeps concurrent messages whole,
 * and the byte channel they run over (the process's stdio or any pair of Web Streams).
 *
 * @example
 * ```ts
 * import { LineFramer, processChannel, sourceReadable } from "@toolwire/toolwire/framing";
 *
 * // Echo every line back, a line at a time however the bytes arrive.
 * const channel = processChannel();
 * for await (const frame of sourceReadable(channel).pipeThrough(new LineFramer())) {
 *   if (frame.kind === "line") await channel.write(`${new TextDecoder().decode(frame.bytes)}\n`);
 * }
 * ```
 * @module
 */
export { type LineFrame, type LineFramerOptions, LineSplitter } from "./line_splitter.ts";
export { LineFramer } from "./line_framer.ts";
export {
  type ContentLengthFrame,
  ContentLengthFramer,
  type ContentLengthFramerOptions,
  ContentLengthSplitter,
  encodeContentLength,
  type HeaderProblem,
} from "./content_length_framer.ts";
export { SerialWriter, type SerialWriterOptions } from "./serial_writer.ts";
export { ByteBudget } from "./byte_budget.ts";
export { DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_MESSAGE_BYTES } from "./limits.ts";
export {
  type ByteChannel,
  type ByteSink,
  type ByteSource,
  processChannel,
  readChunks,
} from "../runtime/byte_channel.ts";
export { sourceReadable, streamChannel, streamSink } from "../runtime/stream_channel.ts";
export type { StdioData } from "../runtime/stdio.ts";
