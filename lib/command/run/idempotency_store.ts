import {
  ensureDir,
  type FileLockSignal,
  joinPath,
  listDir,
  modifiedAtMs,
  readTextIfExists,
  removeFile,
  withFileLock,
  writeTextAtomic,
} from "../../runtime/mod.ts";
import type { InputIssue } from "../input/input_values.ts";
import { canonicalJson, isRecord, parseJson, sha256Tag } from "../../json.ts";
import {
  type IdempotencyKeys,
  type KeySlot,
  type KeyState,
  parseRecord,
  recordSlot,
  type StoredResult,
} from "./idempotency_record.ts";
import type { StateStore, StateSwap } from "../contract/state_store.ts";

export type { IdempotencyKeys, KeySlot, KeyState, StoredResult } from "./idempotency_record.ts";

/** How long a key's record is kept unless the tool says otherwise: one day. */
export const DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS = 86_400;

/** Longest accepted idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

/** How many directory entries one sweep looks at: cleaning never costs a call more than this. */
const SWEEP_BATCH = 64;
/** A process sweeps one store at most this often (an MCP server runs many calls; a CLI run sweeps once). */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Temporary and lock files live for milliseconds (a held lock is refreshed every few seconds): one this old
 * was left by a process that died.
 */
const LEFTOVER_AGE_MS = 10 * 60_000;

const RECORD_NAME = /^([0-9a-f]{64})\.json$/;
/** An entry of the store's key-value side ({@linkcode StateStore}): a name no idempotency record can have. */
const ENTRY_NAME = /^([0-9a-f]{64})\.state\.json$/;

const lastSweep = new Map<string, number>();

/**
 * The input issue of an idempotency key that is empty or too long, under the name the caller used
 * (`--idempotency-key` on the CLI, `idempotency_key` over MCP); `undefined` when it is fine or absent.
 *
 * @example
 * ```ts
 * idempotencyKeyIssue("", "--idempotency-key")?.message; // "--idempotency-key must be 1 to 256 characters"
 * ```
 */
export function idempotencyKeyIssue(key: string | undefined, label: string): InputIssue | undefined {
  if (key === undefined || (key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH)) return undefined;
  return { field: label, message: `${label} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` };
}

/**
 * The on-disk idempotency store (REQ-C-007), shared by every process of a tool: one record per key, named
 * by the key's SHA-256 so that no key can address a path outside the directory, written atomically
 * (temporary file, then rename), next to the key's lock file. A call reserves its key before its handler
 * runs and records the result after; records live for the store's lifetime and are swept a few at a time.
 * The semantics are described in docs/idempotency.md.
 *
 * It is also the default {@linkcode StateStore}: entries `<sha256>.state.json`, each written under its own
 * file lock and holding its expiry, where a tool's processes on one host redeem confirmation nonces.
 *
 * @example
 * ```ts
 * const store = new IdempotencyStore("/tmp/notes/.idempotency", { lifetimeSeconds: 3600 });
 * const fingerprint = await callFingerprint("add", { flags: { title: "x" }, args: {} });
 * await store.withKey("k1", async (slot) => {
 *   if (slot.state.kind !== "free") return;
 *   await slot.reserve(fingerprint, "add");
 *   await slot.complete({ id: 1 });
 * }, { timeoutMs: 60_000 });
 * (await store.get("k1"))?.data; // { id: 1 }
 * ```
 */
export class IdempotencyStore implements IdempotencyKeys, StateStore {
  readonly #dir: string;
  readonly #lifetimeMs: number;

  constructor(dir: string, options: { lifetimeSeconds?: number } = {}) {
    this.#dir = dir;
    this.#lifetimeMs = (options.lifetimeSeconds ?? DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS) * 1000;
  }

  /** The recorded result for a key, if any and not expired. Never fails: an unreadable store has no result. */
  async get(key: string): Promise<StoredResult | undefined> {
    try {
      const state = await this.#state(await keyDigest(key));
      return state.kind === "done" ? state.result : undefined;
    } catch {
      return undefined;
    }
  }

  /** Creates the entry `key` for `ttlMs` unless a live one exists, under the entry's lock. */
  async reserve(key: string, value: string, ttlMs: number): Promise<boolean> {
    await this.sweep();
    return await this.#withEntry(key, async (file) => {
      if (await entryValue(file) !== undefined) return false;
      await writeEntry(file, value, ttlMs);
      return true;
    });
  }

  /** The entry's value, unless absent or expired. */
  async read(key: string): Promise<string | undefined> {
    return await entryValue(this.#entryPath(await keyDigest(key)));
  }

  /** Changes the entry `key` if it and the fence hold what is expected, under both entries' locks. */
  async swap(change: StateSwap): Promise<boolean> {
    const fence = change.fence;
    return await this.#withEntry(change.key, async (file) => {
      if (await entryValue(file) !== change.expect) return false;
      if (
        fence !== undefined && await entryValue(this.#entryPath(await keyDigest(fence.key))) !== fence.value
      ) {
        return false;
      }
      if (change.value === undefined) await removeFile(file);
      else await writeEntry(file, change.value, change.ttlMs);
      return true;
    }, fence?.key);
  }

  /**
   * Runs `use` on the entry `key` under its lock, and under the lock of `also` too when given: the two are
   * taken in the order of their digests, so that two callers locking the same pair never wait on each other.
   */
  async #withEntry<T>(key: string, use: (file: string) => Promise<T>, also?: string): Promise<T> {
    const digest = await keyDigest(key);
    await ensureDir(this.#dir);
    const file = this.#entryPath(digest);
    const lock = (each: string) => joinPath(this.#dir, `${each}.state.lock`);
    const options = { timeoutMs: ENTRY_LOCK_TIMEOUT_MS };
    const other = also === undefined ? digest : await keyDigest(also);
    if (other === digest) return await withFileLock(lock(digest), () => use(file), options);
    const [first, second] = [digest, other].sort() as [string, string];
    return await withFileLock(
      lock(first),
      () => withFileLock(lock(second), () => use(file), options),
      options,
    );
  }

  #entryPath(digest: string): string {
    return joinPath(this.#dir, `${digest}.state.json`);
  }

  /**
   * Runs `use` while holding the key's lock, which waits for a concurrent call with the same key (in this
   * process or another) to finish. Rejects with a `FileLockTimeoutError` when that call outlasts
   * `timeoutMs`, with the signal's reason when aborted, or with the file system's error when the store
   * cannot be read or written.
   */
  async withKey<T>(
    key: string,
    use: (slot: KeySlot) => Promise<T>,
    options: { signal?: FileLockSignal; timeoutMs?: number },
  ): Promise<T> {
    const digest = await keyDigest(key);
    await ensureDir(this.#dir);
    return await withFileLock(this.#path(digest, "lock"), async () => {
      const file = this.#path(digest, "json");
      const state = await this.#state(digest);
      return await use(recordSlot(state, {
        write: (record) => writeTextAtomic(file, record),
        remove: () => removeFile(file),
      }));
    }, options);
  }

  /**
   * Removes expired records, and what crashed writers left (lock and temporary files untouched for ten
   * minutes), looking at no more than a small batch of entries from a random starting point, at most once a
   * minute per process. Errors are ignored: cleaning is opportunistic.
   */
  async sweep(): Promise<void> {
    const now = Date.now();
    if (now - (lastSweep.get(this.#dir) ?? -Infinity) < SWEEP_INTERVAL_MS) return;
    lastSweep.set(this.#dir, now);
    const names = await listDir(this.#dir).catch(() => [] as string[]);
    const start = Math.floor(Math.random() * names.length);
    for (let i = 0; i < Math.min(SWEEP_BATCH, names.length); i++) {
      await this.#sweepEntry(names[(start + i) % names.length]!).catch(() => {});
    }
  }

  async #sweepEntry(name: string): Promise<void> {
    const path = joinPath(this.#dir, name);
    const modified = await modifiedAtMs(path);
    if (modified === undefined) return;
    const age = Date.now() - modified;
    const entry = ENTRY_NAME.exec(name);
    if (entry !== null) {
      // Judged again under the entry's lock: a call may have just written it anew.
      const lock = joinPath(this.#dir, `${entry[1]!}.state.lock`);
      await withFileLock(lock, async () => {
        if (await entryValue(path) === undefined) await removeFile(path);
      }, { timeoutMs: 0 });
      return;
    }
    const record = RECORD_NAME.exec(name);
    if (record !== null) {
      if (age < this.#lifetimeMs) return;
      // Under the key's lock, and judged again there: a call may have just reused the key.
      const digest = record[1]!;
      await withFileLock(this.#path(digest, "lock"), async () => {
        if ((await this.#state(digest)).kind === "free") await removeFile(path);
      }, { timeoutMs: 0 });
    } else if (age < LEFTOVER_AGE_MS) {
      return;
    } else if (name.endsWith(".lock") || name.endsWith(".break")) {
      // Taking a lock breaks it if its holder is gone; releasing it removes the file.
      await withFileLock(path, () => {}, { timeoutMs: 0 });
    } else if (name.endsWith(".tmp")) {
      await removeFile(path);
    }
  }

  async #state(digest: string): Promise<KeyState> {
    const file = this.#path(digest, "json");
    const text = await readTextIfExists(file);
    if (text === undefined) return { kind: "free" };
    const record = parseRecord(text);
    const recordedAt = record?.at ?? await modifiedAtMs(file) ?? Date.now();
    if (recordedAt + this.#lifetimeMs <= Date.now()) return { kind: "free" };
    return record?.state ?? { kind: "unknown" };
  }

  #path(digest: string, extension: "json" | "lock"): string {
    return joinPath(this.#dir, `${digest}.${extension}`);
  }
}

/**
 * The fingerprint of one call: its path and its validated input, canonically serialised and hashed.
 *
 * @example
 * ```ts
 * await callFingerprint("add", { flags: { title: "x" }, args: {} }); // "sha256:…"
 * ```
 */
export function callFingerprint(path: string, input: { flags: unknown; args: unknown }): Promise<string> {
  return sha256Tag(canonicalJson({ path, flags: input.flags, args: input.args }));
}

async function keyDigest(key: string): Promise<string> {
  return (await sha256Tag(key)).slice("sha256:".length);
}

/** An entry's lock is held for one read and one write: waiting longer means the host is in trouble. */
const ENTRY_LOCK_TIMEOUT_MS = 10_000;

function writeEntry(file: string, value: string, ttlMs: number): Promise<void> {
  return writeTextAtomic(file, JSON.stringify({ value, expires_at: Date.now() + ttlMs }));
}

/** An entry's value, or `undefined` when it is absent, expired or unreadable (an unreadable one is stale). */
async function entryValue(file: string): Promise<string | undefined> {
  const entry = parseJson(await readTextIfExists(file) ?? "null");
  if (!isRecord(entry) || typeof entry.value !== "string" || typeof entry.expires_at !== "number") {
    return undefined;
  }
  return entry.expires_at > Date.now() ? entry.value : undefined;
}
