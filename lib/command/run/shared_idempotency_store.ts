import type { FileLockSignal } from "../../runtime/mod.ts";
import { sha256Tag } from "../../json.ts";
import {
  type IdempotencyKeys,
  type KeySlot,
  type KeyState,
  parseRecord,
  recordSlot,
  type StoredResult,
} from "./idempotency_record.ts";
import { DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS } from "./idempotency_store.ts";
import { KEY_LEASE_MS, KeyHold } from "./key_hold.ts";
import { type StateStore, StateStoreUnavailableError } from "../contract/state_store.ts";
import { errorMessage } from "./thrown_error.ts";

/**
 * How long a holder keeps trying to withdraw a reservation the store did not confirm, before it leaves the
 * record to expire with the store's lifetime.
 */
const WITHDRAW_MS = 6 * KEY_LEASE_MS;

/** The first pause between two tries of a withdrawal; each doubles, up to a second. */
const WITHDRAW_FIRST_PAUSE_MS = 50;

/**
 * Idempotency keys in a {@linkcode StateStore} that every instance of a tool shares (Redis, for a fleet), with
 * the file store's semantics (docs/idempotency.md): a call holds its key while it runs — an entry
 * `<prefix>lock:<sha256>` taken with {@linkcode StateStore.reserve}, renewed while the call runs, given back
 * after ({@linkcode KeyHold}) — and the record `<prefix>key:<sha256>` holds the reservation, then the result,
 * for the store's lifetime (the store expires it; nothing is swept). A call finding the key held waits,
 * looking again with growing pauses, up to its time limit. A holder that dies leaves its lock to expire after
 * {@linkcode KEY_LEASE_MS} and its reservation behind, so the retry hears "outcome unknown", never a rerun.
 *
 * Every write is a {@linkcode StateStore.swap} over what this holder saw: the reservation only while the key
 * is free and the lock still holds this holder's token, the result and a withdrawal only over this holder's
 * own reservation. A write that arrives late, after the lock lapsed and another call took the key, changes
 * nothing. The handler runs only while the holder's lease lasts; a reservation the store did not confirm is
 * withdrawn in the background, so that a retry with the key runs.
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
    const hold = new KeyHold(this.#store, `${this.#prefix}lock:${digest}`);
    await step("take the key", () => hold.take(options));
    const record = `${this.#prefix}key:${digest}`;
    // Set when a reservation may have landed that no handler will follow: its withdrawal gives the lock back.
    let withdrawal: Promise<void> | undefined;
    try {
      const state = await step("read the key's record", () => this.#state(record));
      return await use(recordSlot(state, {
        holder: hold.token,
        write: async (text, previous) => {
          if (previous !== undefined) return await this.#replace(record, previous, text);
          try {
            await this.#reserve(hold, record, text);
          } catch (error) {
            if (error instanceof ReservationUnconfirmed) withdrawal = this.#withdraw(hold, record, text);
            throw error;
          }
        },
        remove: (previous) => this.#replace(record, previous, undefined),
      }));
    } finally {
      hold.stopRenewing();
      // Only our own hold is given back; one that cannot be (the store is gone) expires with its lease.
      if (withdrawal === undefined) await hold.giveBack().catch(() => {});
    }
  }

  /** Nothing to do: the store expires what outlived its lifetime. */
  sweep(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Writes the reservation if the key is free and the lock still this holder's, then checks the lease:
   * a handler never starts on a hold the store may have let go.
   */
  async #reserve(hold: KeyHold, record: string, pending: string): Promise<void> {
    let written: boolean;
    try {
      written = await this.#store.swap({
        key: record,
        expect: undefined,
        value: pending,
        ttlMs: this.#lifetimeMs,
        fence: { key: hold.lock, value: hold.token },
      });
    } catch (error) {
      throw new ReservationUnconfirmed(
        `the store did not confirm the key's reservation: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    if (!written) {
      throw new StateStoreUnavailableError(
        "this call's hold of the key lapsed while the store was slow to answer, and another call has the key now",
      );
    }
    if (!hold.valid) {
      throw new ReservationUnconfirmed("this call's hold of the key could not be renewed in time");
    }
  }

  /** Replaces (or removes) this holder's own record `previous`: never another holder's. */
  async #replace(record: string, previous: string, text: string | undefined): Promise<void> {
    const what = text === undefined ? "remove the key's reservation" : "record the result";
    const swapped = await step(
      what,
      () => this.#store.swap({ key: record, expect: previous, value: text, ttlMs: this.#lifetimeMs }),
    );
    if (!swapped) throw new Error(`could not ${what}: the key's record is no longer this call's reservation`);
  }

  /**
   * Withdraws a reservation that no handler will follow, trying again with growing pauses for up to
   * `WITHDRAW_MS`: first the lock's token is changed, so that the reservation, if still on its way,
   * can no longer land; then the reservation is removed if it did; then the lock is given back. The key stays
   * held throughout, so that a retry waits for the withdrawal instead of finding the reservation.
   */
  async #withdraw(hold: KeyHold, record: string, pending: string): Promise<void> {
    const deadline = Date.now() + WITHDRAW_MS;
    for (let pause = WITHDRAW_FIRST_PAUSE_MS;; pause = Math.min(pause * 2, 1_000)) {
      try {
        await hold.retire();
        await this.#store.swap({ key: record, expect: pending, value: undefined, ttlMs: 0 });
        await hold.giveBack();
        return;
      } catch {
        if (Date.now() + pause > deadline) return;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  async #state(recordKey: string): Promise<KeyState> {
    const text = await this.#store.read(recordKey);
    if (text === undefined) return { kind: "free" };
    return parseRecord(text)?.state ?? { kind: "unknown" };
  }
}

/**
 * The store did not confirm a reservation, or confirmed it after the holder's lease: no handler ran, and the
 * reservation (if it landed) is withdrawn in the background.
 */
class ReservationUnconfirmed extends StateStoreUnavailableError {
  constructor(why: string, options?: { cause?: unknown }) {
    super(
      `${why}; no handler ran, and the reservation is being withdrawn: a retry with the same key runs once ` +
        `that is done (should the store stay away longer than the key's ${KEY_LEASE_MS / 1000} s lease, a ` +
        `retry may report IDEMPOTENCY_OUTCOME_UNKNOWN)`,
      options,
    );
  }
}

/** Runs one store step, naming it in the store's error. */
async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof StateStoreUnavailableError)) throw error;
    throw new StateStoreUnavailableError(`could not ${what}: ${error.message}`, { cause: error });
  }
}

async function keyDigest(key: string): Promise<string> {
  return (await sha256Tag(key)).slice("sha256:".length);
}
