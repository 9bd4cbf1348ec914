/**
 * One call's hold of an idempotency key's lock in a shared store: taken, renewed, its lease tracked here,
 * and given back — every write to the lock made only while it still holds this call's token.
 * @module
 */
import { type FileLockSignal, monotonicMs } from "../../runtime/mod.ts";
import type { StateStore } from "../contract/state_store.ts";
import { KeyInProgressError } from "./idempotency_record.ts";

/**
 * How long a key stays held by a call whose process stopped renewing it (it died, or lost the store): the
 * wait of a retry that lands on another instance after a crash. The holder renews it every third of this.
 */
export const KEY_LEASE_MS = 10_000;

/**
 * How much sooner than the store the holder counts its lease as over: more than one store command may take
 * (2 s by default), so that a holder never acts on a lease the store may already have let go.
 */
export const LEASE_MARGIN_MS = 3_000;

/** Longest pause between two looks at a held key. */
const MAX_POLL_MS = 50;

/**
 * The lock `lock` held with a random token: {@linkcode KeyHold.take} waits for it, then a timer renews it
 * every third of {@linkcode KEY_LEASE_MS} with a swap that only succeeds while the lock still holds the
 * token. The lease counts from when each successful take or renewal was sent, less
 * {@linkcode LEASE_MARGIN_MS}: {@linkcode KeyHold.valid} is false once it ran out or a renewal found the lock
 * taken by someone else.
 *
 * @example
 * ```ts
 * import type { StateStore } from "../contract/state_store.ts";
 *
 * declare const store: StateStore;
 * const hold = new KeyHold(store, "idempotency:lock:ab12");
 * await hold.take({ timeoutMs: 5_000 });
 * hold.valid; // true while the lease lasts
 * hold.stopRenewing();
 * await hold.giveBack();
 * ```
 */
export class KeyHold {
  readonly lock: string;
  /** What the lock holds while this hold has it. */
  readonly token: string = crypto.randomUUID();
  readonly #store: StateStore;
  /** When the lease runs out, as {@linkcode monotonicMs} counts. */
  #validUntil = -Infinity;
  /** What the lock holds now, as far as this hold knows; `undefined` once it is not this hold's. */
  #held: string | undefined;
  #renewal: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  constructor(store: StateStore, lock: string) {
    this.#store = store;
    this.lock = lock;
  }

  /** Takes the lock, waiting while another call holds it; the store's errors end the wait at once. */
  async take(options: { signal?: FileLockSignal; timeoutMs?: number }): Promise<void> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    for (let pause = 2;; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      if (options.signal?.aborted) throw options.signal.reason;
      const sentAt = monotonicMs();
      if (await this.#store.reserve(this.lock, this.token, KEY_LEASE_MS)) {
        this.#held = this.token;
        this.#extend(sentAt);
        this.#renewal = setInterval(() => this.#renew(), KEY_LEASE_MS / 3);
        return;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new KeyInProgressError(options.timeoutMs!);
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }

  /** Whether the lease still lasts: the lock is this hold's, and will be for a little while yet. */
  get valid(): boolean {
    return this.#held === this.token && monotonicMs() < this.#validUntil;
  }

  /** Ends the renewals (the lease then runs out by itself). */
  stopRenewing(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  /**
   * Changes the lock's token, keeping the lock held: a write fenced on the old token (a reservation still
   * on its way) can no longer land. A lock that is no longer this hold's is left alone.
   */
  async retire(): Promise<void> {
    if (this.#held !== this.token) return;
    const retired = `${this.token}:retired`;
    const swapped = await this.#store.swap({
      key: this.lock,
      expect: this.token,
      value: retired,
      ttlMs: KEY_LEASE_MS,
    });
    this.#held = swapped ? retired : undefined;
  }

  /** Removes the lock if it is still this hold's (a compare-and-delete). */
  async giveBack(): Promise<void> {
    const held = this.#held;
    if (held === undefined) return;
    await this.#store.swap({ key: this.lock, expect: held, value: undefined, ttlMs: 0 });
    this.#held = undefined;
  }

  #renew(): void {
    // One renewal at a time: on a stalled link, renewals would only pile up behind each other.
    if (this.#renewing || this.#held !== this.token) return;
    this.#renewing = true;
    const sentAt = monotonicMs();
    this.#store.swap({ key: this.lock, expect: this.token, value: this.token, ttlMs: KEY_LEASE_MS })
      .then((renewed) => {
        if (renewed) this.#extend(sentAt);
        // Lapsed and maybe taken by another call: never this hold's again (nothing sets its token anew).
        else if (this.#held === this.token) this.#held = undefined;
      })
      .catch(() => {})
      .finally(() => {
        this.#renewing = false;
      });
  }

  #extend(sentAt: number): void {
    this.#validUntil = Math.max(this.#validUntil, sentAt + KEY_LEASE_MS - LEASE_MARGIN_MS);
  }
}
