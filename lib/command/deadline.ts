import { Cancellation } from "./cancellation.ts";

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
 * @example
 * ```ts
 * const settled = await runWithDeadline((signal) => fetchAll(signal), { timeoutMs: 60_000 });
 * if (settled.kind === "timeout") console.error("too slow");
 * ```
 */
export async function runWithDeadline<T>(
  work: (signal: AbortSignal) => T | Promise<T>,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<Settled<T>> {
  const controller = new AbortController();
  const outside = options.signal;
  const running: Promise<Settled<T>> = (async () => {
    try {
      return { kind: "data", data: await work(controller.signal) } as const;
    } catch (error) {
      return { kind: "error", error } as const;
    }
  })();

  const timers: Array<ReturnType<typeof setTimeout>> = [];
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<Settled<T>>((resolve) => {
    if (options.timeoutMs <= 0) return;
    timers.push(setTimeout(() => {
      controller.abort(new DOMException("the time limit was reached", "TimeoutError"));
      resolve({ kind: "timeout" });
    }, options.timeoutMs));
  });
  const cancelled = new Promise<Settled<T>>((resolve) => {
    if (outside === undefined) return;
    onAbort = () => {
      const cancellation = outside.reason instanceof Cancellation ? outside.reason : new Cancellation();
      controller.abort(cancellation);
      const answer = () => resolve({ kind: "cancelled", cancellation });
      timers.push(setTimeout(answer, CANCEL_GRACE_MS));
      void running.then(answer);
    };
    if (outside.aborted) onAbort();
    else outside.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const settled = await Promise.race([running, deadline, cancelled]);
    // Work that ends by throwing its abort reason has still been cancelled, not failed.
    if (outside?.aborted && settled.kind !== "timeout" && settled.kind !== "cancelled") return await cancelled;
    return settled;
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (onAbort !== undefined) outside?.removeEventListener("abort", onAbort);
  }
}
