import type { FileLockSignal } from "../../runtime/mod.ts";
import { sha256Tag } from "../../json.ts";
import {
  type IdempotencyKeys,
  KeyInProgressError,
  type KeySlot,
  type KeyState,
  parseRecord,
  recordSlot,
  type StoredResult,
} from "./idempotency_record.ts";
import { DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS } from "./idempotency_store.ts";
import type { StateStore } from "../contract/state_store.ts";

/**
 * How long a key stays held by a call whose process stopped renewing it (it died, or lost the store): the
 * wait of a retry that lands on another instance after a crash. The holder renews it every third of this.
 */
export const KEY_LEASE_MS = 10_000;

/** Longest pause between two looks at a held key. */
const MAX_POLL_MS = 50;

/**
 * Idempotency keys in a {@linkcode StateStore} that every instance of a tool shares (Redis, for a fleet), with
 * the file store's semantics (docs/idempotency.md): a call holds its key while it runs — an entry
 * `<prefix>lock:<sha256>` taken with {@linkcode StateStore.reserve}, renewed while the call runs, given back
 * after — and the record `<prefix>key:<sha256>` holds the reservation, then the result, for the store's
 * lifetime (the store expires it; nothing is swept). A call finding the key held waits, looking again with
 * growing pauses, up to its time limit. A holder that dies leaves its lock to expire after
 * {@linkcode KEY_LEASE_MS} and its reservation behind, so the retry hears "outcome unknown", never a rerun.
 *
 * @example
 * ```ts
 * import type { StateStore } from "../contract/state_store.ts";
 *
 * declare const shared: StateStore;
 * const keys = new SharedIdempotencyStore(shared, { lifetimeSeconds: 3600 });
 * await keys.withKey("k1", async (slot) => {
 *   if (slot.state.kind !== "free") return;
 *   await slot.reserve("sha256:…", "add");
 *   await slot.complete({ id: 1 });
 * }, { timeoutMs: 60_000 });
 * ```
 */
export class SharedIdempotencyStore implements IdempotencyKeys {
  readonly #store: StateStore;
  readonly #lifetimeMs: number;
  readonly #prefix: string;

  constructor(store: StateStore, options: { lifetimeSeconds?: number; prefix?: string } = {}) {
    this.#store = store;
    this.#lifetimeMs = (options.lifetimeSeconds ?? DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS) * 1000;
    this.#prefix = options.prefix ?? "idempotency:";
  }

  /** The recorded result for a key, if any. Never fails: a store out of reach has no result. */
  async get(key: string): Promise<StoredResult | undefined> {
    try {
      const state = await this.#state(`${this.#prefix}key:${await keyDigest(key)}`);
      return state.kind === "done" ? state.result : undefined;
    } catch {
      return undefined;
    }
  }

  /** Runs `use` while holding the key; see {@linkcode IdempotencyKeys.withKey}. */
  async withKey<T>(
    key: string,
    use: (slot: KeySlot) => Promise<T>,
    options: { signal?: FileLockSignal; timeoutMs?: number },
  ): Promise<T> {
    const digest = await keyDigest(key);
    const lock = `${this.#prefix}lock:${digest}`;
    const token = crypto.randomUUID();
    await this.#take(lock, token, options);
    const renew = setInterval(() => {
      // Only a hold still ours is renewed: one that lapsed (the store was away) may be another call's now.
      this.#store.read(lock).then((holder) =>
        holder === token ? this.#store.record(lock, token, KEY_LEASE_MS) : undefined
      ).catch(() => {});
    }, KEY_LEASE_MS / 3);
    try {
      const recordKey = `${this.#prefix}key:${digest}`;
      const state = await this.#state(recordKey);
      return await use(recordSlot(
        state,
        (record) => this.#store.record(recordKey, record, this.#lifetimeMs),
        () => this.#store.release(recordKey),
      ));
    } finally {
      clearInterval(renew);
      // Only our own hold is given back; one that cannot be (the store is gone) expires with its lease.
      await this.#store.read(lock).then((holder) => holder === token ? this.#store.release(lock) : undefined)
        .catch(() => {});
    }
  }

  /** Nothing to do: the store expires what outlived its lifetime. */
  sweep(): Promise<void> {
    return Promise.resolve();
  }

  /** Takes the key's lock, waiting while another call holds it: the store's errors end the wait at once. */
  async #take(lock: string, token: string, options: { signal?: FileLockSignal; timeoutMs?: number }) {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    for (let pause = 2;; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (await this.#store.reserve(lock, token, KEY_LEASE_MS)) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new KeyInProgressError(options.timeoutMs!);
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }

  async #state(recordKey: string): Promise<KeyState> {
    const text = await this.#store.read(recordKey);
    if (text === undefined) return { kind: "free" };
    return parseRecord(text)?.state ?? { kind: "unknown" };
  }
}

async function keyDigest(key: string): Promise<string> {
  return (await sha256Tag(key)).slice("sha256:".length);
}
