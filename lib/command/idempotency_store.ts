import { ensureDir, joinPath, readTextIfExists, writeTextAtomic } from "../runtime/mod.ts";
import type { InputIssue } from "./input_values.ts";
import { canonicalJson, sha256Tag } from "./manifest.ts";

/** What the store keeps for one idempotency key: the first successful result and what produced it. */
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

/** Longest accepted idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

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
 * An on-disk idempotency store (REQ-C-007): one JSON file per key, named by the key's SHA-256 so that no key
 * can address a path outside the directory, written atomically (temporary file, then rename).
 *
 * @example
 * ```ts
 * const store = new IdempotencyStore("/tmp/notes/idempotency");
 * await store.put("k1", { fingerprint, command: "add", data: { id: 1 }, stored_at: new Date().toISOString() });
 * (await store.get("k1"))?.data; // { id: 1 }
 * ```
 */
export class IdempotencyStore {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The stored result for a key, if any. A corrupt record reads as absent rather than failing the call. */
  async get(key: string): Promise<StoredResult | undefined> {
    const text = await readTextIfExists(await this.#file(key));
    if (text === undefined) return undefined;
    try {
      const record = JSON.parse(text) as StoredResult;
      return typeof record?.fingerprint === "string" ? record : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stores the first successful result for a key. */
  async put(key: string, record: StoredResult): Promise<void> {
    await ensureDir(this.#dir);
    await writeTextAtomic(await this.#file(key), JSON.stringify(record));
  }

  async #file(key: string): Promise<string> {
    const digest = (await sha256Tag(key)).slice("sha256:".length);
    return joinPath(this.#dir, `${digest}.json`);
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
