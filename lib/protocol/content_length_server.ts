/**
 * What an LSP or DAP server does with its input, in one place: the session skeleton (frame_session.ts) over
 * Content-Length frames, and the rules for a frame that is not a whole message — an oversized body is
 * answered and skipped, input cut off inside a message is logged, a header without a usable length is
 * reported and ends the session — plus the response that must go out even when JSON cannot hold it. Each
 * protocol supplies only its own wording, as {@linkcode FrameAnswers}.
 * @module
 */
import {
  type ContentLengthFrame,
  type ContentLengthFramerOptions,
  ContentLengthSplitter,
} from "../framing/content_length_framer.ts";
import { DEFAULT_MAX_MESSAGE_BYTES, sizeLimit } from "../framing/limits.ts";
import type { CancelScope } from "./cancel_scope.ts";
import { FrameSession, type FrameStep } from "./frame_session.ts";
import type { InFlight } from "./in_flight.ts";
import type { ProtocolFailure, ProtocolIO } from "./protocol_io.ts";
import { framingFailure } from "./session_end.ts";

/**
 * What a message handler tells the server: go on (`undefined`), or end the session with this result.
 *
 * @example
 * ```ts
 * declare const method: string;
 * const outcome: FrameOutcome = method === "exit" ? { end: undefined } : undefined;
 * ```
 */
export type FrameOutcome = { end: ProtocolFailure | undefined } | undefined;

/**
 * How one protocol answers the frames of a Content-Length session: the whole messages, and in its own terms
 * the two framing problems a client must hear about.
 *
 * @example
 * ```ts
 * declare function dispatch(bytes: Uint8Array): Promise<FrameOutcome>;
 * declare function idIn(head: Uint8Array): number | null;
 * declare function reply(id: number | null, code: number, message: string): Promise<void>;
 *
 * const answers: FrameAnswers = {
 *   name: "lsp",
 *   message: (bytes) => dispatch(bytes),
 *   oversized: (head, problem) => reply(idIn(head), -32600, `Invalid request: ${problem}`),
 *   framingLost: (problem) => reply(null, -32700, `Parse error: ${problem}`),
 * };
 * ```
 */
export interface FrameAnswers {
  /** The protocol's name, which starts each of its log lines: `lsp`, `dap`. */
  readonly name: string;
  /**
   * Handles one whole message. The next message waits for the promise: a handler that starts a request
   * resolves once the request has a slot, not once it is answered.
   */
  message(bytes: Uint8Array): Promise<FrameOutcome>;
  /**
   * Answers a message that was skipped for its size. `head` is its first bytes (enough for an id or a seq
   * written near the start); `problem` says what happened, e.g. "the message is 9000 bytes, over the limit of
   * 4096; it was skipped".
   */
  oversized(head: Uint8Array, problem: string): Promise<void>;
  /** Tells the client that no later message can be framed (`problem` says why), as the session ends. */
  framingLost(problem: string): Promise<void>;
}

/**
 * An LSP or DAP server's session on a protocol command's stdin and stdout.
 *
 * @example
 * ```ts
 * import type { ProtocolIO } from "./protocol_io.ts";
 *
 * declare const io: ProtocolIO;
 * declare const answers: FrameAnswers;
 * const server = new ContentLengthServer<number>(io, "lsp", { maxInFlight: 16 });
 * const end = await server.run(answers);
 * ```
 */
export class ContentLengthServer<K> {
  readonly #session: FrameSession<ContentLengthFrame, K, ProtocolFailure | undefined>;
  readonly #io: ProtocolIO;
  readonly #maxMessageBytes: number;

  /** A server on `io`; a limit that is not a whole number ≥ 1 throws a RangeError before stdin is touched. */
  constructor(io: ProtocolIO, name: string, options: ContentLengthFramerOptions & { maxInFlight?: number }) {
    this.#io = io;
    this.#maxMessageBytes = sizeLimit("maxMessageBytes", options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES);
    this.#session = new FrameSession(io.channel, {
      name,
      splitter: new ContentLengthSplitter(options),
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      signal: io.signal,
      log: io.log,
    });
  }

  /** The requests being answered. */
  get requests(): InFlight<K> {
    return this.#session.requests;
  }

  /** Aborted when the session ends: the scope of handlers that are no request's. */
  get ended(): CancelScope {
    return this.#session.ended;
  }

  /** Writes one framed message whole; resolves once it is handed to stdout (dropped once the session ended). */
  send(bytes: Uint8Array): Promise<void> {
    return this.#session.send(bytes);
  }

  /**
   * Serves until the input ends (the open requests are answered first), a signal, or a message or a lost
   * frame boundary ends the session; resolves how it ended.
   */
  async run(answers: FrameAnswers): Promise<void | ProtocolFailure> {
    return await this.#session.run((frame) => this.#frame(frame, answers));
  }

  #frame(frame: ContentLengthFrame, answers: FrameAnswers): FrameStep<ProtocolFailure | undefined> {
    switch (frame.kind) {
      case "message":
        return answers.message(frame.bytes);
      case "oversized":
        return answers.oversized(
          frame.head,
          `the message is ${frame.size} bytes, over the limit of ${this.#maxMessageBytes}; it was skipped`,
        ).then(() => undefined);
      case "truncated":
        // Nobody is left to answer: the input is over.
        this.#io.log(
          `${answers.name}: the input ended inside a message; its ${frame.bytes} bytes were dropped`,
        );
        return undefined;
      case "bad-header":
        return answers.framingLost(`${frame.detail}; no later message can be framed`).then(() => {
          this.#io.log(`${answers.name}: ${frame.detail}; the session ends`);
          return { end: framingFailure(frame.detail) };
        });
    }
  }
}

/**
 * Frames a response, or — when JSON cannot hold it (a cycle, a BigInt, a `toJSON` that throws) — the failure
 * `fallback` builds from the reason, e.g. "cannot be serialised as JSON: Do not know how to serialize a
 * BigInt". So every request is answered exactly once, and a message is never torn or half written.
 * `fallback`'s message must be one JSON can hold.
 *
 * @example
 * ```ts
 * import { encodeContentLength } from "@toolwire/toolwire/framing";
 * import { errorResponse, resultResponse } from "./json_rpc.ts";
 *
 * const id = 7;
 * const result = { size: 10n }; // JSON cannot hold a BigInt
 * const bytes = frameResponse(encodeContentLength, resultResponse(id, result), (reason) =>
 *   errorResponse(id, { code: -32603, message: `Internal error: the result ${reason}` }));
 * ```
 */
export function frameResponse<M>(
  frame: (message: M) => Uint8Array,
  response: M,
  fallback: (reason: string) => M,
): Uint8Array {
  try {
    return frame(response);
  } catch (error) {
    return frame(fallback(`cannot be serialised as JSON: ${errorText(error)}`));
  }
}

/**
 * What a thrown value says, for a message to the client. Never throws itself: a handler may throw anything,
 * even a value `String` cannot convert (an object without a prototype), and its request must still be
 * answered.
 *
 * @example
 * ```ts
 * errorText(new Error("no such file")); // "no such file"
 * errorText(Object.create(null)); // "a value that cannot be shown as text"
 * ```
 */
export function errorText(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return "a value that cannot be shown as text";
  }
}
