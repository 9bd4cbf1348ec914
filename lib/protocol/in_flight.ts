import { SlotPool } from "./slot_pool.ts";

/**
 * The requests a protocol server is answering at once. Each gets an AbortController, so a cancellation or the
 * end of the session reaches its handler, and each is answered exactly once: the handler's result and a
 * cancellation race to {@linkcode InFlight.claim} the request, and only the winner writes a response. The
 * number running is bounded, so a flood of requests makes the server stop reading instead of growing without
 * limit.
 *
 * @example
 * ```ts
 * declare function threads(signal: AbortSignal): Promise<object>;
 * declare function respond(id: number, body: object): Promise<void>;
 *
 * const inFlight = new InFlight<number, string>(64);
 * await inFlight.room();
 * inFlight.start(7, "threads", async (signal) => {
 *   const body = await threads(signal);
 *   if (inFlight.claim(7)) await respond(7, body);
 * });
 * ```
 */
export class InFlight<K, T> {
  readonly #slots: SlotPool;
  readonly #unanswered = new Map<K, Entry<T>>();
  /** The running handlers' controllers, answered or not: a cancelled handler still running holds its slot. */
  readonly #running = new Set<AbortController>();

  /** `limit`: how many may run at once. */
  constructor(limit: number) {
    this.#slots = new SlotPool(limit);
  }

  /** Whether a request with this key is running and not yet answered. */
  has(key: K): boolean {
    return this.#unanswered.has(key);
  }

  /**
   * Starts `work` for a request in a slot of its own (after {@linkcode InFlight.room}, one is free; else the
   * work waits for one); `value` is handed back by {@linkcode InFlight.cancel}. `work` must not throw.
   */
  start(key: K, value: T, work: (signal: AbortSignal) => Promise<void>): void {
    const controller = new AbortController();
    const entry: Entry<T> = { value, controller, done: Promise.resolve() };
    this.#unanswered.set(key, entry);
    this.#running.add(controller);
    const slot = this.#slots.take();
    entry.done = (slot === undefined ? work(controller.signal) : slot.then(() => work(controller.signal)))
      .catch(() => {})
      .finally(() => {
        this.#slots.give();
        this.#running.delete(controller);
        if (this.#unanswered.get(key) === entry) this.#unanswered.delete(key);
      });
  }

  /** Takes the right to answer a request: `true` once, for whoever asks first. */
  claim(key: K): boolean {
    return this.#unanswered.delete(key);
  }

  /** Claims a request and aborts its handler; returns its value when the caller must answer it as cancelled. */
  cancel(key: K): T | undefined {
    const entry = this.#unanswered.get(key);
    if (entry === undefined) return undefined;
    this.#unanswered.delete(key);
    entry.controller.abort(new DOMException("The client cancelled the request", "AbortError"));
    return entry.value;
  }

  /** Resolves once fewer than the limit are running; a cancelled handler still running still counts. */
  async room(): Promise<void> {
    await this.#slots.whenFree();
  }

  /**
   * Resolves once every request started so far has been answered. A cancelled request was answered when it
   * was cancelled, so a handler that ignores its signal does not hold this up.
   */
  async answered(): Promise<void> {
    while (this.#unanswered.size > 0) {
      await Promise.race([...this.#unanswered.values()].map((entry) => entry.done));
    }
  }

  /** Aborts every running handler; their answers are no longer wanted. */
  abortAll(): void {
    this.#unanswered.clear();
    for (const controller of this.#running) {
      controller.abort(new DOMException("The session ended", "AbortError"));
    }
  }
}

interface Entry<T> {
  value: T;
  controller: AbortController;
  /** Settles when the handler's work has finished, answered or not. */
  done: Promise<void>;
}
