/**
 * Messages over Content-Length framing (the base protocol of LSP and the framing of DAP), written and read
 * the way a client does, noting anything on stdout that is not a message of the protocol.
 */
import { encodeContentLength } from "../../lib/framing/mod.ts";
import { isRecord } from "../../lib/bridge/mod.ts";
import { clip } from "./evidence.ts";
import type { ServerSession } from "./server_session.ts";

/** The body of a well-framed message that is not JSON. */
export const NOT_JSON = "{this is not json";

/** A header block without a usable Content-Length: where the next message starts is lost. */
export const BAD_HEADER = "Content-Length: not-a-number\r\n\r\n";

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Why a JSON value is not a message of the protocol, or `undefined` when it is one. */
export type MessageProblem = (value: unknown) => string | undefined;

/**
 * One Content-Length framed conversation over a {@linkcode ServerSession} opened with that framing.
 *
 * @example
 * ```ts
 * import { isRecord } from "../../lib/json.ts";
 * import { ServerSession } from "./server_session.ts";
 *
 * const session = new ServerSession(["dbg", "debug-adapter"], "content-length");
 * const wire = new FramedWire(session, 10_000, (value) => isRecord(value) ? undefined : "not an object");
 * await wire.send({ seq: 1, type: "request", command: "initialize" });
 * const response = await wire.until((message) => message.type === "response");
 * ```
 */
export class FramedWire {
  readonly #session: ServerSession;
  readonly #timeoutMs: number;
  readonly #problem: MessageProblem;
  #impurity: string | undefined;
  #lost = false;

  constructor(session: ServerSession, timeoutMs: number, problem: MessageProblem) {
    this.#session = session;
    this.#timeoutMs = timeoutMs;
    this.#problem = problem;
  }

  /** The first thing read from stdout that was not a message of the protocol. */
  get impurity(): string | undefined {
    return this.#impurity;
  }

  /** True once a header block without a usable length was read: no later message can be found. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Frames and writes one message. */
  async send(message: object | string): Promise<void> {
    await this.#session.write(encodeContentLength(message));
  }

  /** Writes text as it is, framing and all. */
  async sendRaw(text: string): Promise<void> {
    await this.#session.write(encoder.encode(text));
  }

  /**
   * Reads messages until `matches` accepts one; `undefined` when none does in time, stdout ended, or its
   * framing was lost.
   */
  async until(
    matches: (message: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown> | undefined> {
    const deadline = Date.now() + this.#timeoutMs;
    while (!this.#lost && Date.now() < deadline) {
      const frame = await this.#session.nextFrame(deadline - Date.now());
      if (frame === undefined) return undefined;
      if (frame.kind === "bad-header") {
        this.#lost = true;
        this.#note(
          `stdout is not Content-Length framed: ${frame.detail} (stdout began ${
            clip(JSON.stringify(this.#session.stdoutHead))
          })`,
        );
      } else if (frame.kind === "truncated") {
        this.#note(`stdout ended inside a message, ${frame.bytes} bytes into it`);
      } else if (frame.kind === "message") {
        const message = this.#message(frame.bytes);
        if (message !== undefined && matches(message)) return message;
      }
      // An oversized frame is a message too large for the checker to hold, not a sign of impurity.
    }
    return undefined;
  }

  #message(bytes: Uint8Array): Record<string, unknown> | undefined {
    let value: unknown;
    try {
      value = JSON.parse(strictUtf8.decode(bytes));
    } catch {
      this.#note(`a frame's body is not JSON: ${clip(new TextDecoder().decode(bytes))}`);
      return undefined;
    }
    const problem = this.#problem(value);
    if (problem === undefined && isRecord(value)) return value;
    this.#note(`${problem ?? "a frame's body is not a JSON object"}: ${clip(JSON.stringify(value))}`);
    return undefined;
  }

  #note(problem: string): void {
    this.#impurity ??= problem;
  }
}
