import {
  DEFAULT_MAX_HEADER_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  OVERSIZED_HEAD_BYTES,
  sizeLimit,
} from "./limits.ts";
import { splitterStreams } from "./splitter_streams.ts";

// Part of this module's public surface too: the package entry point exports the module whole.
export { DEFAULT_MAX_HEADER_BYTES, OVERSIZED_HEAD_BYTES } from "./limits.ts";

/**
 * Why a header block could not be read. Each one loses the message boundary, so nothing follows it.
 *
 * @example
 * ```ts
 * declare const frame: ContentLengthFrame;
 * if (frame.kind === "bad-header" && frame.problem === "missing-length") console.error(frame.detail);
 * ```
 */
export type HeaderProblem = "missing-length" | "invalid-length" | "header-too-long" | "malformed-header";

/**
 * One frame out of a {@linkcode ContentLengthSplitter} or {@linkcode ContentLengthFramer}:
 * - `message`: one whole body.
 * - `oversized`: a body longer than `maxMessageBytes`, skipped without being held; `head` is its first bytes
 *   (at most {@linkcode OVERSIZED_HEAD_BYTES}), enough to read a request's id and answer it. Framing goes on.
 * - `bad-header`: the header block gives no usable length, so where the next message starts is unknown. It is
 *   the last frame: the framer discards the rest of the input.
 * - `truncated`: the input ended inside a message; `bytes` were received and dropped.
 *
 * @example
 * ```ts
 * function describe(frame: ContentLengthFrame): string {
 *   switch (frame.kind) {
 *     case "message": return `${frame.bytes.length} bytes`;
 *     case "oversized": return `skipped ${frame.size} bytes`;
 *     case "bad-header": return `framing lost: ${frame.detail}`;
 *     case "truncated": return `input ended inside a message`;
 *   }
 * }
 * ```
 */
export type ContentLengthFrame =
  | { kind: "message"; bytes: Uint8Array }
  | { kind: "oversized"; size: number; head: Uint8Array }
  | { kind: "bad-header"; problem: HeaderProblem; detail: string }
  | { kind: "truncated"; bytes: number };

/**
 * Options for {@linkcode ContentLengthSplitter} and {@linkcode ContentLengthFramer}. Each limit is a whole
 * number of bytes, at least 1; anything else throws a RangeError when the splitter is made.
 *
 * @example
 * ```ts
 * const options: ContentLengthFramerOptions = { maxMessageBytes: 1 << 20, maxHeaderBytes: 1024 };
 * ```
 */
export interface ContentLengthFramerOptions {
  /** Longest accepted body in bytes; longer bodies are skipped. @default 67108864 (64 MiB) */
  maxMessageBytes?: number;
  /** Longest accepted header block in bytes, its closing `\r\n\r\n` included. @default 8192 */
  maxHeaderBytes?: number;
}

const CR = 0x0d;
const LF = 0x0a;
// RFC 9110 token characters: what a header name may be made of.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

type Phase =
  | { at: "header" }
  | { at: "body"; length: number; body: Uint8Array | undefined; filled: number }
  | { at: "skip"; size: number; left: number; head: Uint8Array; headFilled: number; reported: boolean }
  | { at: "lost" };

const AT_HEADER: Phase = { at: "header" };
const LOST: Phase = { at: "lost" };

/**
 * Splits a byte stream into Content-Length framed messages (the base protocol of LSP and the framing of DAP),
 * synchronously: feed it chunks, and it hands out every frame they complete. Each message is a header block —
 * `Name: value` lines ended by `\r\n`, the block by an empty line — then exactly `Content-Length` bytes of
 * body. `Content-Length` is required; `Content-Type` and any other header are accepted and ignored; header
 * names are case-insensitive.
 *
 * Linear in the input: each byte is looked at once, a body split over a thousand chunks is copied once into a
 * buffer of its declared size, and nothing is re-scanned or re-joined per chunk. Memory is bounded: a header
 * block longer than `maxHeaderBytes` ends framing, and a body longer than `maxMessageBytes` is counted off
 * the input without being held, keeping only its first bytes for the `oversized` frame. Every frame owns its
 * bytes: the caller may reuse a chunk's buffer as soon as `push` returns.
 *
 * @example
 * ```ts
 * const splitter = new ContentLengthSplitter();
 * const frames: ContentLengthFrame[] = [];
 * splitter.push(new TextEncoder().encode("Content-Length: 2\r\n\r\n{}Content-Len"), frames); // one message
 * splitter.end(frames); // and a `truncated` frame for the 11 bytes of the unfinished header
 * ```
 */
export class ContentLengthSplitter {
  readonly #maxMessage: number;
  // One header buffer for the whole stream: header blocks are small and bounded.
  readonly #header: Uint8Array;
  #headerFilled = 0;
  // How much of the closing `\r\n\r\n` the last header bytes matched, carried across chunks.
  #matched = 0;
  #phase: Phase = AT_HEADER;

  /** A splitter with the given limits. */
  constructor(options: ContentLengthFramerOptions = {}) {
    this.#maxMessage = sizeLimit("maxMessageBytes", options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES);
    this.#header = new Uint8Array(
      sizeLimit("maxHeaderBytes", options.maxHeaderBytes, DEFAULT_MAX_HEADER_BYTES),
    );
  }

  /** Splits one chunk, appending the frames it completes to `out`. Input after a `bad-header` is ignored. */
  push(chunk: Uint8Array, out: ContentLengthFrame[]): void {
    let position = 0;
    while (position < chunk.length) {
      const phase = this.#phase;
      if (phase.at === "lost") return;
      if (phase.at === "header") position = this.#scanHeader(chunk, position, out);
      else if (phase.at === "body") position = this.#takeBody(chunk, position, phase, out);
      else position = this.#skipBody(chunk, position, phase, out);
    }
  }

  /**
   * End of input: appends a `truncated` frame if it ended inside a message, or the `oversized` frame of a
   * skipped body whose head had not all arrived. Input pushed afterwards is ignored.
   */
  end(out: ContentLengthFrame[]): void {
    const phase = this.#phase;
    this.#phase = LOST;
    if (phase.at === "header" && this.#headerFilled > 0) {
      out.push({ kind: "truncated", bytes: this.#headerFilled });
    }
    if (phase.at === "body") out.push({ kind: "truncated", bytes: phase.filled });
    if (phase.at === "skip" && !phase.reported) {
      out.push({ kind: "oversized", size: phase.size, head: phase.head.subarray(0, phase.headFilled) });
    }
  }

  /** Consumes header bytes from `start`; returns where it stopped: the body's start, or the chunk's end. */
  #scanHeader(chunk: Uint8Array, start: number, out: ContentLengthFrame[]): number {
    const header = this.#header;
    for (let i = start; i < chunk.length; i++) {
      if (this.#headerFilled === header.length) {
        this.#lose(out, "header-too-long", `the header block is longer than ${header.length} bytes`);
        return chunk.length;
      }
      const byte = chunk[i]!;
      header[this.#headerFilled++] = byte;
      const matched = this.#matched;
      if (byte === CR) this.#matched = matched === 2 ? 3 : 1;
      else if (byte === LF && (matched === 1 || matched === 3)) this.#matched = matched + 1;
      else this.#matched = 0;
      if (this.#matched === 4) {
        const parsed = parseHeader(header.subarray(0, this.#headerFilled - 4));
        this.#headerFilled = 0;
        this.#matched = 0;
        if ("problem" in parsed) this.#lose(out, parsed.problem, parsed.detail);
        else this.#startBody(parsed.length, out);
        return i + 1;
      }
    }
    return chunk.length;
  }

  #startBody(length: number, out: ContentLengthFrame[]): void {
    if (length === 0) {
      // Complete the moment its header is.
      out.push({ kind: "message", bytes: new Uint8Array(0) });
    } else if (length > this.#maxMessage) {
      const head = new Uint8Array(Math.min(length, OVERSIZED_HEAD_BYTES));
      this.#phase = { at: "skip", size: length, left: length, head, headFilled: 0, reported: false };
    } else {
      this.#phase = { at: "body", length, body: undefined, filled: 0 };
    }
  }

  #takeBody(
    chunk: Uint8Array,
    start: number,
    phase: Extract<Phase, { at: "body" }>,
    out: ContentLengthFrame[],
  ): number {
    const available = chunk.length - start;
    if (phase.body === undefined && available >= phase.length) {
      // Copied, not a view: the producer may reuse its chunk buffer once we return.
      out.push({ kind: "message", bytes: chunk.slice(start, start + phase.length) });
      this.#phase = AT_HEADER;
      return start + phase.length;
    }
    phase.body ??= new Uint8Array(phase.length);
    const take = Math.min(available, phase.length - phase.filled);
    phase.body.set(take === chunk.length ? chunk : chunk.subarray(start, start + take), phase.filled);
    phase.filled += take;
    if (phase.filled === phase.length) {
      out.push({ kind: "message", bytes: phase.body });
      this.#phase = AT_HEADER;
    }
    return start + take;
  }

  #skipBody(
    chunk: Uint8Array,
    start: number,
    phase: Extract<Phase, { at: "skip" }>,
    out: ContentLengthFrame[],
  ): number {
    const take = Math.min(chunk.length - start, phase.left);
    const keep = Math.min(take, phase.head.length - phase.headFilled);
    if (keep > 0) {
      phase.head.set(chunk.subarray(start, start + keep), phase.headFilled);
      phase.headFilled += keep;
    }
    phase.left -= take;
    // Reported once the head is complete, so the consumer can answer while the rest is still skipped.
    if (!phase.reported && phase.headFilled === phase.head.length) {
      out.push({ kind: "oversized", size: phase.size, head: phase.head });
      phase.reported = true;
    }
    if (phase.left === 0) this.#phase = AT_HEADER;
    return start + take;
  }

  /** Ends framing: where the next message starts is unknown, so nothing after this can be trusted. */
  #lose(out: ContentLengthFrame[], problem: HeaderProblem, detail: string): void {
    out.push({ kind: "bad-header", problem, detail });
    this.#phase = LOST;
  }
}

/**
 * {@linkcode ContentLengthSplitter} as a transform stream: bytes in, {@linkcode ContentLengthFrame}s out. A
 * readable/writable pair to pipe through, like `TextDecoderStream` (see `LineFramer` for why it is no
 * TransformStream subclass).
 *
 * @example
 * ```ts
 * import { processChannel, sourceReadable } from "@toolwire/toolwire/framing";
 *
 * const framer = new ContentLengthFramer({ maxMessageBytes: 1 << 20 });
 * for await (const frame of sourceReadable(processChannel()).pipeThrough(framer)) {
 *   if (frame.kind === "message") console.log(new TextDecoder().decode(frame.bytes));
 * }
 * ```
 */
export class ContentLengthFramer {
  /** The frames. */
  readonly readable: ReadableStream<ContentLengthFrame>;
  /** Where the bytes go in. */
  readonly writable: WritableStream<Uint8Array>;

  /** A framer with the given limits; a limit that is not a whole number ≥ 1 throws a RangeError. */
  constructor(options: ContentLengthFramerOptions = {}) {
    const { readable, writable } = splitterStreams(new ContentLengthSplitter(options));
    this.readable = readable;
    this.writable = writable;
  }
}

/** Reads `Content-Length` out of a header block (its closing empty line removed). */
function parseHeader(block: Uint8Array): { length: number } | { problem: HeaderProblem; detail: string } {
  let text = "";
  for (const byte of block) {
    // Headers are ASCII; a control character other than the CRLF separators means this is not a header.
    if (byte > 0x7e || (byte < 0x20 && byte !== 0x09 && byte !== CR && byte !== LF)) {
      return {
        problem: "malformed-header",
        detail: `the header block contains the byte 0x${byte.toString(16).padStart(2, "0")}`,
      };
    }
    text += String.fromCharCode(byte);
  }
  let length: string | undefined;
  for (const line of text.split("\r\n")) {
    if (/[\r\n]/.test(line)) {
      return { problem: "malformed-header", detail: "a header line holds a bare CR or LF" };
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? "" : line.slice(0, colon);
    if (!TOKEN.test(name)) {
      return {
        problem: "malformed-header",
        detail: `not a header line: ${JSON.stringify(line.slice(0, 80))}`,
      };
    }
    if (name.toLowerCase() !== "content-length") continue;
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    // Two different lengths make the boundary ambiguous; an identical repeat is harmless, as in HTTP.
    if (length !== undefined && length !== value) {
      return {
        problem: "invalid-length",
        detail: `conflicting Content-Length values ${length} and ${value}`,
      };
    }
    length = value;
  }
  if (length === undefined) {
    return { problem: "missing-length", detail: "the header block has no Content-Length" };
  }
  const parsed = Number(length);
  if (!/^\d+$/.test(length) || !Number.isSafeInteger(parsed)) {
    return {
      problem: "invalid-length",
      detail: `Content-Length must be a byte count, got ${JSON.stringify(length.slice(0, 40))}`,
    };
  }
  return { length: parsed };
}

const encoder = new TextEncoder();

/**
 * Frames one message for LSP or DAP: a `Content-Length` header counting the body's UTF-8 bytes (not its
 * UTF-16 string length), then the body. An object is serialised with `JSON.stringify` first, which throws on
 * a cycle or a BigInt; a string is taken as JSON text already.
 *
 * @example
 * ```ts
 * encodeContentLength({ jsonrpc: "2.0", id: 1, result: "é" });
 * // bytes of 'Content-Length: 37\r\n\r\n{"jsonrpc":"2.0","id":1,"result":"é"}'
 * ```
 */
export function encodeContentLength(message: string | object): Uint8Array {
  const body = encoder.encode(typeof message === "string" ? message : JSON.stringify(message));
  const header = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
  const framed = new Uint8Array(header.length + body.length);
  framed.set(header, 0);
  framed.set(body, header.length);
  return framed;
}
