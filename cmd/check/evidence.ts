/**
 * Reading what a probe printed, and saying it briefly in a report's evidence.
 */
import type { ChildRun } from "../../lib/bridge/mod.ts";

/**
 * How a probe ended, in a few words.
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 *
 * const run = await runChild(["notes", "--definitely-not-a-flag"], { timeoutMs: 10_000 });
 * outcome(run); // "exit 2" or "did not exit in time"
 * ```
 */
export function outcome(run: ChildRun): string {
  return run.ending === "timeout" ? "did not exit in time" : `exit ${run.exit.code}`;
}

/**
 * The lines of a text that hold something.
 *
 * @example
 * ```ts
 * nonEmptyLines("a\n\nb\n"); // ["a", "b"]
 * ```
 */
export function nonEmptyLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

/**
 * A text cut to fit in one line of evidence.
 *
 * @example
 * ```ts
 * clip("x".repeat(200)).length; // 120
 * ```
 */
export function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
