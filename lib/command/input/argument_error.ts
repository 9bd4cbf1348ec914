import { makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import type { InputIssue } from "./input_values.ts";

/**
 * The ARG_ERROR envelope of input that failed validation (REQ-F-002: nothing ran): every issue, their
 * messages joined, and the first suggestion — or `fallback` when no issue has one.
 *
 * @example
 * ```ts
 * import { monotonicMs } from "../../runtime/process.ts";
 *
 * argumentErrorEnvelope([{ field: "--limit", message: "--limit expects an integer, got 'x'" }], monotonicMs());
 * ```
 */
export function argumentErrorEnvelope(
  issues: InputIssue[],
  startedAt: number,
  fallback?: string,
): ResponseEnvelope {
  const suggestion = issues.find((issue) => issue.suggestion)?.suggestion ?? fallback;
  return makeEnvelope({
    exitCode: ExitCode.ARG_ERROR,
    error: {
      code: "ARG_ERROR",
      message: issues.map((issue) => issue.message).join("; "),
      retryable: false,
      phase: "validation",
      ...(suggestion === undefined ? {} : { suggestion }),
      issues,
    },
    startedAt,
  });
}
