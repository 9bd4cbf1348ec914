import type { HandledSignal } from "../../runtime/mod.ts";
import { ExitCode } from "../../exit_code.ts";

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

  constructor(signal?: HandledSignal) {
    super(signal === undefined ? "cancelled by the caller" : `cancelled by ${signal}`);
    this.name = "Cancellation";
    this.signal = signal;
  }

  /** The exit code this cancellation ends a process with: 128+N for a signal (REQ-F-013, REQ-F-069). */
  get exitCode(): number {
    if (this.signal === undefined) return ExitCode.GENERAL_ERROR;
    return ExitCode[this.signal];
  }
}
