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

const lastSweep = new Map<string, number>();

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
export class IdempotencyStore {
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
      let reservedAt = "";
      let fingerprint = "";
      let command = "";
      return await use({
        state,
        reserve: async (callFingerprint, path) => {
          reservedAt = new Date().toISOString();
          fingerprint = callFingerprint;
          command = path;
          await writeTextAtomic(
            file,
            JSON.stringify({ state: "pending", fingerprint, command, reserved_at: reservedAt }),
          );
        },
        complete: async (data) => {
          const record = {
            state: "done",
            fingerprint,
            command,
            data,
            reserved_at: reservedAt,
            stored_at: new Date().toISOString(),
          };
          await writeTextAtomic(file, JSON.stringify(record));
        },
        abandon: () => removeFile(file),
      });
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

/**
 * A record as written by {@linkcode IdempotencyStore.withKey}, or by earlier versions (a result without
 * `state`). The file is checked field by field: anything else reads as unreadable, which is "unknown".
 */
function parseRecord(text: string): { state: KeyState; at: number | undefined } | undefined {
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
