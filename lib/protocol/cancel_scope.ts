/**
 * The one cancellation type of the project: what a request, a tool call or a command's handler is cancelled
 * through. It reads like an AbortSignal (`aborted`, `reason`, `addEventListener("abort", …)`) and hands out a
 * real one on demand, but builds it only then: most requests are never cancelled and never read their
 * signal, and an AbortSignal is costly to make (docs/performance.md#cancellation).
 * @module
 */

/**
 * A cancellation that builds its AbortSignal only when `signal` is read. Listeners added with
 * `addEventListener` are called once, on the first `abort`, like an AbortSignal's; one added after the abort
 * is never called.
 *
 * @example
 * ```ts
 * const scope = new CancelScope();
 * scope.addEventListener("abort", () => console.error(`stopped: ${String(scope.reason)}`));
 * scope.abort(new DOMException("the client went away", "AbortError"));
 * scope.signal.aborted; // true
 * ```
 */
export class CancelScope {
  #controller: AbortController | undefined;
  #listeners: Array<() => void> | undefined;
  /** Whether `abort` was called. */
  aborted = false;
  /** What `abort` was called with (a DOMException "AbortError" when called with nothing). */
  reason: unknown = undefined;

  /** An AbortSignal that follows this scope: made on the first read, aborted at once if the scope is. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the scope and its signal, and calls the listeners; later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    this.#controller?.abort(this.reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) { for (const listener of listeners) listener(); }
  }

  /** Calls `listener` on the abort; never when already aborted. */
  addEventListener(_type: "abort", listener: () => void, _options?: { once?: boolean }): void {
    if (!this.aborted) (this.#listeners ??= []).push(listener);
  }

  /** Forgets a listener added with `addEventListener`. */
  removeEventListener(_type: "abort", listener: () => void): void {
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.#listeners!.splice(index, 1);
  }
}

/**
 * What work listens to for cancellation from outside: an AbortSignal, or a {@linkcode CancelScope} (which
 * then never needs to build one).
 *
 * @example
 * ```ts
 * function onCancel(cancel: CancelSignal, listener: () => void): void {
 *   if (cancel.aborted) listener();
 *   else cancel.addEventListener("abort", listener, { once: true });
 * }
 * ```
 */
export type CancelSignal = AbortSignal | CancelScope;
