/**
 * The `error` of an invocation the framework itself ended — by its time limit, or by a cancellation — the
 * same wherever it ran: the executor, a protocol command's preparation, a bridged CLI's child process.
 * @module
 */
import type { ErrorDetail } from "../contract/envelope.ts";
import { ExitCode, type ExitCodeTable } from "../../exit_code.ts";
import type { Cancellation } from "./cancellation.ts";

/**
 * The `error` object of an invocation stopped by its time limit: code TIMEOUT, retryable as the command
 * declared exit 10.
 *
 * @example
 * ```ts
 * import type { ExitCodeTable } from "@toolwire/toolwire";
 *
 * declare const exitCodes: ExitCodeTable;
 * timeoutError(exitCodes, "add exceeded its time limit of 5 s").code; // "TIMEOUT"
 * ```
 */
export function timeoutError(exitCodes: ExitCodeTable, message: string, suggestion?: string): ErrorDetail {
  return {
    code: "TIMEOUT",
    message,
    retryable: exitCodes[String(ExitCode.TIMEOUT)]?.retryable ?? false,
    phase: "execution",
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}

/**
 * The `error` object of a cancelled invocation (REQ-F-013, REQ-F-069): code CANCELLED, and the signal in
 * `context.signal`.
 *
 * @example
 * ```ts
 * import { Cancellation } from "./cancellation.ts";
 *
 * cancelledError(new Cancellation("SIGTERM")).context; // { signal: "SIGTERM" }
 * ```
 */
export function cancelledError(cancellation: Cancellation): ErrorDetail {
  return {
    code: "CANCELLED",
    message: cancellation.message,
    retryable: false,
    phase: "execution",
    ...(cancellation.signal === undefined ? {} : { context: { signal: cancellation.signal } }),
  };
}
