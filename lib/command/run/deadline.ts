import { CancelScope, type CancelSignal } from "../../protocol/cancel_scope.ts";
import { noteAbandonedWork } from "../../runtime/mod.ts";
import { Cancellation } from "./cancellation.ts";
import { isThenable } from "../../when_ready.ts";
import { clearLongTimeout, type LongTimeout, setLongTimeout } from "./time_limit.ts";

/** How a piece of work under {@linkcode runWithDeadline} ended. */
export type Settled<T> =
  | { kind: "data"; data: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  | { kind: "cancelled"; cancellation: Cancellation };

/** How long cancelled work gets to run its cleanup before the framework answers without it. */
export const CANCEL_GRACE_MS = 2_000;

/**
 * Runs work against a hard deadline and outside cancellation. When the time is up the result is `timeout`
 * even if the work ignores its AbortSignal and never settles (REQ-F-011: enforced without the command's
 * help). Outside cancellation aborts the work's signal and waits up to {@linkcode CANCEL_GRACE_MS} for its
 * cleanup (`finally` blocks) before answering `cancelled`.
 *
 * This is on the path of every command and every MCP `tools/call`, so it is kept lean: work that returns a
 * plain value has finished, and its outcome is returned as it is, not in a promise; otherwise one promise
 * is settled by whichever of work, deadline and cancellation comes first (not a race of three), and the
 * work's AbortController is made only when the work reads `scope.signal` or something aborts it (see
 * {@linkcode CancelScope}).
 *
 * @example
 * ```ts
 * const settled = await runWithDeadline(
 *   (scope) => fetch("https://example.com/", { signal: scope.signal }),
 *   60_000,
 * );
 * if (settled.kind === "timeout") console.error("too slow");
 * ```
 */
export function runWithDeadline<T>(
  work: (scope: CancelScope) => T | Promise<T>,
  timeoutMs: number,
  outside?: CancelSignal,
): Settled<T> | Promise<Settled<T>> {
  const scope = new CancelScope();
  // The work starts first, as it always has: it sees a live signal even when the outside is already aborted.
  let running: Promise<T>;
  try {
    const returned = work(scope);
    // Work that returned a plain value has finished: no deadline to arm, no race to run.
    if (!isThenable(returned) && outside?.aborted !== true) {
      return { kind: "data", data: returned };
    }
    running = Promise.resolve(returned);
  } catch (error) {
    if (outside?.aborted !== true) return { kind: "error", error };
    running = Promise.reject(error);
  }

  return new Promise<Settled<T>>((resolve) => {
    let timer: LongTimeout | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    let cancellation: Cancellation | undefined;
    let done = false;
    const finish = (settled: Settled<T>) => {
      if (done) return;
      done = true;
      clearLongTimeout(timer);
      clearLongTimeout(graceTimer);
      outside?.removeEventListener("abort", onAbort);
      resolve(settled);
    };
    const onAbort = () => {
      cancellation = Cancellation.of(outside!.reason);
      scope.abort(cancellation);
      const answer = cancellation;
      graceTimer = setTimeout(() => {
        noteAbandonedWork();
        finish({ kind: "cancelled", cancellation: answer });
      }, CANCEL_GRACE_MS);
    };
    // Work that ends — even by throwing its abort reason — once the outside has cancelled was cancelled, not failed.
    const ended = (settled: Settled<T>) => {
      if (outside?.aborted && cancellation === undefined) onAbort();
      finish(cancellation === undefined ? settled : { kind: "cancelled", cancellation });
    };

    if (timeoutMs > 0) {
      timer = setLongTimeout(() => {
        scope.abort(new DOMException("the time limit was reached", "TimeoutError"));
        noteAbandonedWork();
        finish({ kind: "timeout" });
      }, timeoutMs);
    }
    if (outside !== undefined) {
      if (outside.aborted) onAbort();
      else outside.addEventListener("abort", onAbort, { once: true });
    }
    running.then(
      (data) => ended({ kind: "data", data }),
      (error: unknown) => ended({ kind: "error", error }),
    );
  });
}
