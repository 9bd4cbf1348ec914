import type { HandledSignal } from "../../runtime/mod.ts";
import { ExitCode } from "../../exit_code.ts";

/** What an AbortController says when aborted without a reason: no reason at all. */
const DEFAULT_ABORT_MESSAGE = "This operation was aborted";

/**
 * Why an invocation was cancelled from outside: a process signal, or the caller (an MCP
 * `notifications/cancelled`). Used as the `reason` of the AbortSignal handed to the executor.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * controller.abort(new Cancellation("SIGTERM"));
 * ```
 */
export class Cancellation extends Error {
  /** The signal, or `undefined` when the caller cancelled. */
  readonly signal: HandledSignal | undefined;

  /** `said`: why the caller cancelled, when it said (the client's reason, "the server is shutting down"). */
  constructor(signal?: HandledSignal, said?: string) {
    super(
      signal !== undefined
        ? `cancelled by ${signal}`
        : said === undefined
        ? "cancelled by the caller"
        : said.startsWith("cancelled")
        ? said
        : `cancelled: ${said}`,
    );
    this.name = "Cancellation";
    this.signal = signal;
  }

  /**
   * The cancellation an abort reason stands for: the reason itself when it is one, else one that says what
   * the reason said (an Error's or DOMException's message, or a string), or "cancelled by the caller".
   *
   * @example
   * ```ts
   * Cancellation.of(new DOMException("the server is shutting down", "AbortError")).message;
   * // "cancelled: the server is shutting down"
   * ```
   */
  static of(reason: unknown): Cancellation {
    if (reason instanceof Cancellation) return reason;
    const said = reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "";
    return new Cancellation(undefined, said === "" || said === DEFAULT_ABORT_MESSAGE ? undefined : said);
  }

  /** The exit code this cancellation ends a process with: 128+N for a signal (REQ-F-013, REQ-F-069). */
  get exitCode(): number {
    if (this.signal === undefined) return ExitCode.GENERAL_ERROR;
    return ExitCode[this.signal];
  }
}
