import { missingPermission } from "../runtime/mod.ts";
import type { ErrorDetail } from "./envelope.ts";

/**
 * The envelope error for something a handler or the framework threw that is not a `CommandError`, and the
 * stack trace worth logging (none for a missing permission: the message says what to do). A permission the
 * runtime refused (Deno without `--allow-env`, `--allow-read`, …) gets `PERMISSION_REQUIRED` and names the
 * flag to add; anything else is `GENERAL_ERROR`. Both exit 1, which every command declares.
 *
 * @example
 * ```ts
 * const { error, stack } = unexpectedError(new TypeError("boom"), "unexpected error");
 * // error.code === "GENERAL_ERROR", error.message === "unexpected error: boom"
 * ```
 */
export function unexpectedError(thrown: unknown, prefix: string): { error: ErrorDetail; stack?: string } {
  const missing = missingPermission(thrown);
  if (missing !== undefined) {
    const grant = missing.flag ?? "the permission it names";
    return {
      error: {
        code: "PERMISSION_REQUIRED",
        message: `the runtime refused a permission this command needs: ${missing.message}`,
        retryable: false,
        phase: "execution",
        suggestion: `start the tool with ${grant}`,
      },
    };
  }
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  const stack = thrown instanceof Error ? thrown.stack : undefined;
  return {
    error: { code: "GENERAL_ERROR", message: `${prefix}: ${message}`, retryable: false, phase: "execution" },
    ...(stack === undefined ? {} : { stack }),
  };
}
