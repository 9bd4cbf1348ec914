/**
 * What the library and tools call of the file lock: {@linkcode withFileLock} and its timeout error. The lock
 * itself (file_lock.ts) is loaded on its first use: most runs of most tools take no lock, and in the build it
 * sits in a chunk of its own, which a tool's start then neither loads nor parses
 * (docs/architecture.md#the-bundle).
 * @module
 */
import type { FileLockOptions, FileLockState } from "./file_lock_types.ts";

export {
  type FileLockOptions,
  type FileLockSignal,
  type FileLockState,
  FileLockTimeoutError,
} from "./file_lock_types.ts";

/**
 * Runs `fn` while holding an exclusive lock that works across processes on one host (and across hosts on a
 * shared file system, through the staleness rule). The lock is the file at `path`, created with its whole
 * content at once (a hard link to a finished temporary file), naming the holder's pid, host and a random
 * token; the holder refreshes its modification time while `fn` runs and removes it afterwards, if it is
 * still its own. The directory must exist.
 *
 * A lock is stale when its holder's pid is no longer alive on this host (broken at once: a `kill -9` costs
 * nothing), when it was not refreshed for `staleMs`, or when its content is unreadable and older than a
 * short grace. Breaking is itself exclusive: a breaker first takes the guard `<path>.break` (a lock of the
 * same kind, so a breaker that dies is broken in turn), then checks again that the lock is stale, and only
 * then removes it — two processes that find the same stale lock never both go on to hold it.
 *
 * A lock that cannot be removed on release (its directory became unwritable) goes stale `staleMs` later.
 * The lock's code (file_lock.ts) is loaded on the first call.
 *
 * @example
 * ```ts
 * import { readFile, writeFile } from "node:fs/promises";
 * import { withFileLock } from "@toolwire/toolwire";
 *
 * // Read-modify-write of a shared file by many processes: no update is lost.
 * const next = await withFileLock("/tmp/app/counter.lock", async () => {
 *   const value = Number(await readFile("/tmp/app/counter", "utf8")) + 1;
 *   await writeFile("/tmp/app/counter", String(value));
 *   return value;
 * }, { timeoutMs: 5_000 });
 * ```
 */
export async function withFileLock<T>(
  path: string,
  fn: (lock: FileLockState) => T | Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const { holdFileLock } = await import("./file_lock.ts");
  return await holdFileLock(path, fn, options);
}
