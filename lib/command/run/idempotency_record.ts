/**
 * What an idempotency key holds and how a call uses it, whatever store keeps it (the tool's state directory,
 * or a shared store for a fleet): the record's states, its text, and the interface the executor calls.
 * @module
 */
import { isRecord, parseJson } from "../../json.ts";
import type { FileLockSignal } from "../../runtime/mod.ts";

/** A key's first successful result, as replayed. */
export interface StoredResult {
  /** Digest of the command path and its arguments; the same key with another fingerprint is a CONFLICT. */
  fingerprint: string;
  /** The command's path. */
  command: string;
  /** The `data` of the first successful call. */
  data: unknown;
  /** When it was stored (ISO 8601). */
  stored_at: string;
}

/** What a key holds, as seen by the caller that holds the key's lock. */
export type KeyState =
  /** Never used, or its record outlived the store's lifetime: the call may run. */
  | { kind: "free" }
  /** A call with this key succeeded: replay it, or refuse other arguments. */
  | { kind: "done"; result: StoredResult }
  /**
   * A call reserved the key and ended without recording a result — it crashed, timed out, failed with side
   * effects, or could not write the record — or the record is unreadable. Nobody knows what it did.
   */
  | { kind: "unknown"; fingerprint?: string; reserved_at?: string };

/** One key, held exclusively for the time of {@linkcode IdempotencyStore.withKey}. */
export interface KeySlot {
  /** What the key held when the lock was taken. */
  readonly state: KeyState;
  /** Records that a call with this fingerprint is about to run; a failure here means nothing has run yet. */
  reserve(fingerprint: string, command: string): Promise<void>;
  /** Replaces the reservation with the call's result. */
  complete(data: unknown): Promise<void>;
  /** Removes the reservation of a call that changed nothing, so that a retry runs. */
  abandon(): Promise<void>;
}

/**
 * Where a {@linkcode recordSlot} writes a key's record. `write` gets the text written last by the slot
 * (`undefined` before the reservation), so that a store can write only over its own record; `remove` gets
 * the reservation's text. `holder`, when given, goes into the reservation: the holder's own token.
 */
export interface RecordPlace {
  write(record: string, previous: string | undefined): Promise<unknown>;
  remove(previous: string): Promise<unknown>;
  holder?: string;
}

/**
 * A {@linkcode KeySlot} over any place a key's record can be written and removed: the pending record on
 * `reserve`, the done one on `complete`, both with the reservation's time, fingerprint and command.
 *
 * @example
 * ```ts
 * const records = new Map<string, string>();
 * const slot = recordSlot({ kind: "free" }, {
 *   write: async (text) => void records.set("k", text),
 *   remove: async () => void records.delete("k"),
 * });
 * await slot.reserve("sha256:…", "add");
 * ```
 */
export function recordSlot(state: KeyState, place: RecordPlace): KeySlot {
  let reservedAt = "";
  let fingerprint = "";
  let command = "";
  let pending = "";
  return {
    state,
    reserve: async (callFingerprint, path) => {
      reservedAt = new Date().toISOString();
      fingerprint = callFingerprint;
      command = path;
      pending = pendingRecord(fingerprint, command, reservedAt, place.holder);
      await place.write(pending, undefined);
    },
    complete: async (data) => {
      await place.write(doneRecord(fingerprint, command, data, reservedAt), pending);
    },
    abandon: async () => {
      await place.remove(pending);
    },
  };
}

/**
 * Where idempotency keys live, as the executor uses them: the file store ({@linkcode IdempotencyStore}) or a
 * shared one ({@linkcode SharedIdempotencyStore}). Both hold a key exclusively while a call with it runs,
 * so that a concurrent call with the same key waits and then replays (docs/idempotency.md).
 *
 * @example
 * ```ts
 * declare const keys: IdempotencyKeys;
 * (await keys.get("k1"))?.data; // the first call's data, once it succeeded
 * ```
 */
export interface IdempotencyKeys {
  /** The recorded result for a key, if any and not expired. Never fails: an unreadable store has no result. */
  get(key: string): Promise<StoredResult | undefined>;
  /**
   * Runs `use` while holding the key, waiting for a concurrent call with the same key (in this process or
   * another) to finish. Rejects when that call outlasts `timeoutMs` (a `FileLockTimeoutError` or a
   * {@linkcode KeyInProgressError}), with the signal's reason when aborted, or with the store's error.
   */
  withKey<T>(
    key: string,
    use: (slot: KeySlot) => Promise<T>,
    options: { signal?: FileLockSignal; timeoutMs?: number },
  ): Promise<T>;
  /** Removes what expired, a little at a time; never fails. */
  sweep(): Promise<void>;
}

/**
 * A shared store's key is still held by another call after the waiting call's time limit.
 *
 * @example
 * ```ts
 * new KeyInProgressError(60_000).message; // "the key is still held after 60000 ms"
 * ```
 */
export class KeyInProgressError extends Error {
  constructor(timeoutMs: number) {
    super(`the key is still held after ${timeoutMs} ms`);
    this.name = "KeyInProgressError";
  }
}

/**
 * The text of a reservation: a call with this fingerprint is about to run. `holder`, the token of the call
 * that holds the key, makes the text unique, so that only that call can replace or remove it.
 *
 * @example
 * ```ts
 * pendingRecord("sha256:…", "add", "2026-01-05T10:00:00.000Z", "c0ffee"); // '{"state":"pending",…}'
 * ```
 */
export function pendingRecord(
  fingerprint: string,
  command: string,
  reservedAt: string,
  holder?: string,
): string {
  const record = { state: "pending", fingerprint, command, reserved_at: reservedAt };
  return JSON.stringify(holder === undefined ? record : { ...record, holder });
}

/**
 * The text of a key's first successful result, which replaces its reservation.
 *
 * @example
 * ```ts
 * doneRecord("sha256:…", "add", { id: 1 }, "2026-01-05T10:00:00.000Z"); // '{"state":"done",…}'
 * ```
 */
export function doneRecord(fingerprint: string, command: string, data: unknown, reservedAt: string): string {
  return JSON.stringify({
    state: "done",
    fingerprint,
    command,
    data,
    reserved_at: reservedAt,
    stored_at: new Date().toISOString(),
  });
}

/**
 * A record as written by {@linkcode pendingRecord} and {@linkcode doneRecord}, or by earlier versions (a
 * result without `state`, a reservation without `holder`), with the time its lifetime counts from. It is checked field by field: anything
 * else reads as unreadable (`undefined`), which a call treats as "unknown".
 *
 * @example
 * ```ts
 * parseRecord(pendingRecord("sha256:…", "add", new Date().toISOString()))?.state.kind; // "unknown"
 * ```
 */
export function parseRecord(text: string): { state: KeyState; at: number | undefined } | undefined {
  const record = parseJson(text);
  if (!isRecord(record)) return undefined;
  const { fingerprint, command, state } = record;
  if (typeof fingerprint !== "string" || typeof command !== "string") return undefined;
  const time = (field: string) => {
    const at = typeof record[field] === "string" ? Date.parse(record[field] as string) : NaN;
    return Number.isNaN(at) ? undefined : at;
  };
  if (state === "pending") {
    const reservedAt = typeof record.reserved_at === "string" ? { reserved_at: record.reserved_at } : {};
    return { state: { kind: "unknown", fingerprint, ...reservedAt }, at: time("reserved_at") };
  }
  if (
    (state === "done" || state === undefined) && Object.hasOwn(record, "data") &&
    typeof record.stored_at === "string"
  ) {
    return {
      state: {
        kind: "done",
        result: { fingerprint, command, data: record.data, stored_at: record.stored_at },
      },
      at: time("stored_at"),
    };
  }
  return undefined;
}
