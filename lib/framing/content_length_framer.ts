import { DEFAULT_MAX_MESSAGE_BYTES } from "./line_framer.ts";

/**
 * Why a header block could not be read. Each one loses the message boundary, so nothing follows it.
 *
 * @example
 * ```ts
 * if (frame.kind === "bad-header" && frame.problem === "missing-length") console.error(frame.detail);
 * ```
 */
export type HeaderProblem = "missing-length" | "invalid-length" | "header-too-long" | "malformed-header";

/**
 * One frame out of a {@linkcode ContentLengthFramer}:
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
 * Options for {@linkcode ContentLengthFramer}.
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

/**
 * The default maximum header block size: 8 KiB, as for HTTP. Real headers are under 100 bytes.
 *
 * @example
 * ```ts
 * new ContentLengthFramer({ maxHeaderBytes: DEFAULT_MAX_HEADER_BYTES / 8 });
 * ```
 */
export const DEFAULT_MAX_HEADER_BYTES = 8 * 1024;

/**
 * How much of an oversized body is kept for the `oversized` frame's `head`: enough for the `id` or `seq` a
 * client writes near the start.
 *
 * @example
 * ```ts
 * if (frame.kind === "oversized" && frame.head.length < OVERSIZED_HEAD_BYTES) console.error("input ended early");
 * ```
 */
export const OVERSIZED_HEAD_BYTES = 1024;

const CR = 0x0d;
const LF = 0x0a;
// RFC 9110 token characters: what a header name may be made of.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

type Phase =
  | { at: "header" }
  | { at: "body"; length: number; body: Uint8Array | undefined; filled: number }
  | { at: "skip"; size: number; left: number; head: Uint8Array; headFilled: number; reported: boolean }
  | { at: "lost" };

/**
 * Splits a byte stream into Content-Length framed messages: the base protocol of LSP and the framing of DAP.
 * Each message is a header block — `Name: value` lines ended by `\r\n`, the block by an empty line — then
 * exactly `Content-Length` bytes of body. `Content-Length` is required; `Content-Type` and any other header
 * are accepted and ignored; header names are case-insensitive.
 *
 * Linear in the input: each byte is looked at once, a body split over a thousand chunks is copied once into a
 * buffer of its declared size, and nothing is re-scanned or re-joined per chunk. Memory is bounded: a header
 * block longer than `maxHeaderBytes` ends framing, and a body longer than `maxMessageBytes` is counted off
 * the input without being held, keeping only its first bytes for the `oversized` frame.
 *
 * A readable/writable pair to pipe through, like `TextDecoderStream` (see `LineFramer` for why it is
 * no TransformStream subclass).
 *
 * @example
 * ```ts
 * const frames = sourceReadable(processChannel()).pipeThrough(new ContentLengthFramer({ maxMessageBytes: 1 << 20 }));
 * for await (const frame of frames) if (frame.kind === "message") handle(frame.bytes);
 * ```
 */
export class ContentLengthFramer {
  /** The frames. */
  readonly readable: ReadableStream<ContentLengthFrame>;
  /** Where the bytes go in. */
  readonly writable: WritableStream<Uint8Array>;

  /** A framer with the given limits. */
  constructor(options: ContentLengthFramerOptions = {}) {
    const maxMessage = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const maxHeader = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
    // One header buffer for the whole stream: header blocks are small and bounded.
    const header = new Uint8Array(maxHeader);
    let headerFilled = 0;
    // How much of the closing `\r\n\r\n` the last header bytes matched, carried across chunks.
    let matched = 0;
    let phase: Phase = { at: "header" };

    const startBody = (length: number): Phase => {
      if (length > maxMessage) {
        const head = new Uint8Array(Math.min(length, OVERSIZED_HEAD_BYTES));
        return { at: "skip", size: length, left: length, head, headFilled: 0, reported: false };
      }
      return { at: "body", length, body: undefined, filled: 0 };
    };

    /** Consumes header bytes from `chunk` at `start`; returns where the header block ended, or -1. */
    const scanHeader = (chunk: Uint8Array, start: number, controller: Controller): number => {
      for (let i = start; i < chunk.length; i++) {
        const byte = chunk[i]!;
        if (headerFilled === maxHeader) {
          phase = lose(controller, "header-too-long", `the header block is longer than ${maxHeader} bytes`);
          return -1;
        }
        header[headerFilled++] = byte;
        if (byte === CR) matched = matched === 2 ? 3 : 1;
        else if (byte === LF && (matched === 1 || matched === 3)) matched++;
        else matched = 0;
        if (matched === 4) {
          const parsed = parseHeader(header.subarray(0, headerFilled - 4));
          headerFilled = 0;
          matched = 0;
          phase = "problem" in parsed
            ? lose(controller, parsed.problem, parsed.detail)
            : startBody(parsed.length);
          return i + 1;
        }
      }
      return -1;
    };

    const takeBody = (
      chunk: Uint8Array,
      start: number,
      state: Extract<Phase, { at: "body" }>,
      controller: Controller,
    ) => {
      const available = chunk.length - start;
      if (state.body === undefined && available >= state.length) {
        // Copied, not a view: the producer may reuse its chunk buffer once we return.
        controller.enqueue({ kind: "message", bytes: chunk.slice(start, start + state.length) });
        phase = { at: "header" };
        return start + state.length;
      }
      state.body ??= new Uint8Array(state.length);
      const take = Math.min(available, state.length - state.filled);
      state.body.set(chunk.subarray(start, start + take), state.filled);
      state.filled += take;
      if (state.filled === state.length) {
        controller.enqueue({ kind: "message", bytes: state.body });
        phase = { at: "header" };
      }
      return start + take;
    };

    const skipBody = (
      chunk: Uint8Array,
      start: number,
      state: Extract<Phase, { at: "skip" }>,
      controller: Controller,
    ) => {
      const take = Math.min(chunk.length - start, state.left);
      const keep = Math.min(take, state.head.length - state.headFilled);
      if (keep > 0) {
        state.head.set(chunk.subarray(start, start + keep), state.headFilled);
        state.headFilled += keep;
      }
      state.left -= take;
      // Reported once the head is complete, so the consumer can answer while the rest is still skipped.
      if (!state.reported && state.headFilled === state.head.length) {
        controller.enqueue({ kind: "oversized", size: state.size, head: state.head });
        state.reported = true;
      }
      if (state.left === 0) phase = { at: "header" };
      return start + take;
    };

    const transform = new TransformStream<Uint8Array, ContentLengthFrame>({
      transform(chunk, controller) {
        let position = 0;
        while (position < chunk.length) {
          const state = phase;
          if (state.at === "lost") return;
          if (state.at === "header") {
            const end = scanHeader(chunk, position, controller);
            if (end === -1) return;
            position = end;
            // A zero-length body is complete the moment its header is.
            if (phase.at === "body" && phase.length === 0) {
              controller.enqueue({ kind: "message", bytes: new Uint8Array(0) });
              phase = { at: "header" };
            }
          } else if (state.at === "body") {
            position = takeBody(chunk, position, state, controller);
          } else {
            position = skipBody(chunk, position, state, controller);
          }
        }
      },
      flush(controller) {
        const state = phase;
        if (state.at === "header" && headerFilled > 0) {
          controller.enqueue({ kind: "truncated", bytes: headerFilled });
        }
        if (state.at === "body") controller.enqueue({ kind: "truncated", bytes: state.filled });
        if (state.at === "skip" && !state.reported) {
          controller.enqueue({
            kind: "oversized",
            size: state.size,
            head: state.head.subarray(0, state.headFilled),
          });
        }
      },
    });
    this.readable = transform.readable;
    this.writable = transform.writable;
  }
}

type Controller = TransformStreamDefaultController<ContentLengthFrame>;

function lose(controller: Controller, problem: HeaderProblem, detail: string): Phase {
  controller.enqueue({ kind: "bad-header", problem, detail });
  return { at: "lost" };
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
