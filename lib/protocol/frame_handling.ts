/**
 * What an LSP or DAP server does with each frame its input is cut into, in one place: the read loop, the
 * rules for a frame that is not a whole message (an oversized body is answered and skipped, input cut off
 * inside a message is logged, a header without a usable length is reported and ends the session), and the
 * response that must go out even when JSON cannot hold it. Each protocol supplies only its own wording, as a
 * {@linkcode FrameAnswers}.
 * @module
 */
import type { ContentLengthFrame, ContentLengthFramerOptions } from "../framing/content_length_framer.ts";
import { ContentLengthSession } from "./content_length_session.ts";
import { InFlight } from "./in_flight.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "./slot_pool.ts";
import type { ProtocolFailure, ProtocolIO } from "./protocol_loop.ts";
import { framingFailure } from "./session_end.ts";

/**
 * What a frame handler tells the loop: go on (`undefined`), or end the session with this result.
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
 * the two framing problems a client must hear about. What is logged and when the session ends is the same for
 * every protocol, and is {@linkcode FrameLoop}'s.
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
  /** Handles one whole message. */
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
 * The half of an LSP or DAP server that is the same for both: the session on stdin and stdout, the requests
 * in progress, and the read loop that hands each frame to the protocol's {@linkcode FrameAnswers}.
 *
 * @example
 * ```ts
 * import type { ProtocolIO } from "@toolwire/toolwire";
 *
 * declare const io: ProtocolIO;
 * declare const answers: FrameAnswers;
 * const loop = new FrameLoop<number, string>(io, { maxInFlight: 16 });
 * const end = await loop.run(answers);
 * ```
 */
export class FrameLoop<K, T> {
  /** Where frames come from and whole messages go. */
  readonly session: ContentLengthSession;
  /** The requests being answered; reading pauses while they are at their bound. */
  readonly requests: InFlight<K, T>;
  /** Aborted when the session ends, however it ends: the signal of handlers that are no request's. */
  readonly ended: AbortController = new AbortController();
  readonly #io: ProtocolIO;

  /**
   * A loop on `io`, with the server's options (`LspOptions`, `DapOptions`); a limit that is not a whole
   * number ≥ 1 throws a RangeError.
   */
  constructor(io: ProtocolIO, options: ContentLengthFramerOptions & { maxInFlight?: number }) {
    this.#io = io;
    this.session = new ContentLengthSession(io, options);
    this.requests = new InFlight(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    // A signal ends the process within a grace period: handlers stop now, nothing waits for them.
    io.signal.addEventListener("abort", () => this.requests.abortAll(), { once: true });
  }

  /**
   * Reads until the input ends (then the open requests are answered first, unless a signal ended the
   * process) or a message or a lost frame boundary ends the session, and resolves how it ended. However it
   * ends, open requests are aborted, `ended` fires and the session is flushed.
   */
  async run(answers: FrameAnswers): Promise<void | ProtocolFailure> {
    const io = this.#io;
    try {
      for (;;) {
        await this.requests.room();
        const frame = await this.session.next();
        if (frame === undefined) break;
        const outcome = await handleFrame(frame, answers, io, this.session.maxMessageBytes);
        if (outcome !== undefined) return outcome.end;
      }
      if (!io.signal.aborted) await this.requests.answered();
      return undefined;
    } finally {
      this.requests.abortAll();
      this.ended.abort();
      await this.session.close();
    }
  }
}

async function handleFrame(
  frame: ContentLengthFrame,
  answers: FrameAnswers,
  io: ProtocolIO,
  maxMessageBytes: number,
): Promise<FrameOutcome> {
  switch (frame.kind) {
    case "message":
      return await answers.message(frame.bytes);
    case "oversized":
      await answers.oversized(
        frame.head,
        `the message is ${frame.size} bytes, over the limit of ${maxMessageBytes}; it was skipped`,
      );
      return undefined;
    case "truncated":
      // Nobody is left to answer: the input is over.
      io.log(`${answers.name}: the input ended inside a message; its ${frame.bytes} bytes were dropped`);
      return undefined;
    case "bad-header":
      await answers.framingLost(`${frame.detail}; no later message can be framed`);
      io.log(`${answers.name}: ${frame.detail}; the session ends`);
      return { end: framingFailure(frame.detail) };
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
