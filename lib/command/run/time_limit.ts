import { monotonicMs } from "../../runtime/mod.ts";

/**
 * The longest delay `setTimeout` honours. Both runtimes keep the delay in a signed 32-bit integer: a longer
 * one (25 days and a little) fires at once, so a long time limit would end work the moment it starts.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A time limit in seconds as the milliseconds a timer waits: 0 stays 0 (no limit), and any positive limit is
 * rounded to whole milliseconds but never below 1, so that a tiny limit never becomes none. A huge one is
 * held at `Number.MAX_SAFE_INTEGER` ms (285 000 years), so that it stays an exact, finite number — in JSON
 * too. Callers refuse a negative or non-number limit first; this throws a RangeError on one, as a
 * programming error.
 *
 * @example
 * ```ts
 * limitMs(1.1); // 1100
 * limitMs(0.0000001); // 1
 * limitMs(0); // 0: no limit
 * ```
 */
export function limitMs(seconds: number): number {
  if (!(seconds >= 0)) throw new RangeError(`a time limit is seconds >= 0, got ${seconds}`);
  return seconds === 0 ? 0 : Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, Math.round(seconds * 1000)));
}

/** A timer that waits longer than one `setTimeout` can: it re-arms until its deadline. */
class ChainedTimeout {
  #handle: ReturnType<typeof setTimeout> | undefined;
  readonly #deadline: number;
  readonly #callback: () => void;

  constructor(callback: () => void, ms: number) {
    this.#callback = callback;
    this.#deadline = monotonicMs() + ms;
    this.#arm();
  }

  #arm(): void {
    // Measured from the monotonic clock at each step, so the steps' own delays do not add up.
    const left = this.#deadline - monotonicMs();
    this.#handle = left <= MAX_TIMER_MS
      ? setTimeout(this.#callback, Math.max(0, left))
      : setTimeout(() => this.#arm(), MAX_TIMER_MS);
  }

  clear(): void {
    clearTimeout(this.#handle);
  }
}

/** A timer of {@linkcode setLongTimeout}, cleared with {@linkcode clearLongTimeout}. */
export type LongTimeout = ReturnType<typeof setTimeout> | ChainedTimeout;

/**
 * `setTimeout` for any delay: up to {@linkcode MAX_TIMER_MS} it is `setTimeout` itself; a longer delay is
 * chained through several timers instead of firing at once. An infinite delay never fires. Every timer fed
 * by a user-given duration goes through here.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const seconds = 30 * 86_400; // longer than one setTimeout can wait
 * const timer = setLongTimeout(() => controller.abort(), limitMs(seconds));
 * clearLongTimeout(timer);
 * ```
 */
export function setLongTimeout(callback: () => void, ms: number): LongTimeout {
  return ms <= MAX_TIMER_MS ? setTimeout(callback, ms) : new ChainedTimeout(callback, ms);
}

/**
 * Cancels a timer of {@linkcode setLongTimeout} or of `setTimeout`; `undefined` or a timer that has fired is
 * fine. `undefined` touches no timer function at all: a run that never armed a timer pays nothing for one
 * (docs/performance.md#what-a-start-must-not-touch-on-deno).
 *
 * @example
 * ```ts
 * const timer = setLongTimeout(() => console.log("never"), 1_000);
 * clearLongTimeout(timer);
 * ```
 */
export function clearLongTimeout(timer: LongTimeout | undefined): void {
  if (timer instanceof ChainedTimeout) timer.clear();
  else if (timer !== undefined) clearTimeout(timer);
}
