/**
 * The state that must be shared when a tool runs as several processes or on several machines: idempotency
 * reservations and results, and the nonces of redeemed confirmations (docs/scaling.md).
 * @module
 */

/**
 * A key-value store with expiries, atomic per key across every process that uses it: the seam between the
 * framework's exactly-once promises and where their state lives. The tool's state directory is the default
 * (the file store, {@linkcode IdempotencyStore}); {@linkcode redisStateStore} shares it through Redis or
 * Valkey. Redeeming a nonce once is {@linkcode StateStore.reserve}: of every caller, exactly one gets `true`.
 *
 * A store that cannot be reached rejects with {@linkcode StateStoreUnavailableError}, which a keyed call
 * answers with UNAVAILABLE (12, retryable) before anything runs.
 *
 * @example
 * ```ts
 * declare const store: StateStore;
 * await store.reserve("nonce:4f2a", "1", 600_000); // true: redeemed now
 * await store.reserve("nonce:4f2a", "1", 600_000); // false: already redeemed
 * ```
 */
export interface StateStore {
  /** Creates `key` holding `value` for `ttlMs` unless it exists (and has not expired): `true` when this call did. */
  reserve(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** What `key` holds; `undefined` when nothing, or when it expired. */
  read(key: string): Promise<string | undefined>;
  /**
   * Changes `key` only if it still holds what the caller last saw, in one atomic step (see
   * {@linkcode StateSwap}): `true` when it did. A write that arrives late, after another caller changed the
   * key, changes nothing.
   */
  swap(change: StateSwap): Promise<boolean>;
}

/**
 * One conditional write of {@linkcode StateStore.swap}: when `key` holds exactly `expect` (`undefined`: it
 * is absent or expired) and, if `fence` is given, the fence's key holds exactly its value, `key` is set to
 * `value` for `ttlMs`, or removed when `value` is `undefined`. All of it is checked and done at once.
 *
 * @example
 * ```ts
 * declare const store: StateStore;
 * const renewed: StateSwap = { key: "lock:1", expect: "token-a", value: "token-a", ttlMs: 10_000 };
 * await store.swap(renewed); // false once another caller took the lock
 * await store.swap({ key: "record:1", expect: undefined, value: "pending", ttlMs: 60_000, fence: { key: "lock:1", value: "token-a" } });
 * ```
 */
export interface StateSwap {
  key: string;
  /** What `key` must hold now; `undefined`: it must be absent. */
  expect: string | undefined;
  /** What it holds after; `undefined`: it is removed. */
  value: string | undefined;
  /** How long the new value lives; unused when removing. */
  ttlMs: number;
  /** Another key that must hold exactly `value` for the write to happen (a holder's lock, say). */
  fence?: { key: string; value: string };
}

/**
 * A shared store that cannot be reached right now (refused, timed out, disconnected): nothing that needed it
 * was done, and the same call may succeed later.
 *
 * @example
 * ```ts
 * declare const store: StateStore;
 * try {
 *   await store.read("k");
 * } catch (error) {
 *   if (error instanceof StateStoreUnavailableError) console.error("retry later");
 * }
 * ```
 */
export class StateStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StateStoreUnavailableError";
  }
}

/**
 * What the instances of a fleet share (docs/scaling.md): the store of idempotency keys and redeemed
 * confirmation nonces, and the key that signs confirmations. Each is optional: without a store, keys live in
 * the tool's state directory; without a secret, each process signs with a key of its own.
 *
 * @example
 * ```ts
 * declare const redis: StateStore;
 * const shared: SharedState = { store: redis, confirmationSecret: new TextEncoder().encode("…32 bytes or more…") };
 * ```
 */
export interface SharedState {
  /** Idempotency keys and confirmation nonces; absent: the tool's state directory. */
  store?: StateStore;
  /** The HMAC key of confirmations, the same on every instance; absent: a random key per process. */
  confirmationSecret?: Uint8Array;
}
