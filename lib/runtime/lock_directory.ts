/**
 * Writers of a file other programs own take turns on a lock directory beside it (`<file>.lock`): made with
 * `mkdir`, which is atomic everywhere, and broken once it is older than a writer can take.
 * @module
 */
import { nodeFs as fs } from "./node_process.ts";

/** Options of {@linkcode withLockDirectory}. */
export interface LockDirectoryOptions {
  /** Give up waiting after this many milliseconds. @default 15000 */
  waitMs?: number;
  /** A lock older than this was left by a process that died holding it, and is taken over. @default 10000 */
  staleMs?: number;
  /** Stops the wait. */
  signal?: AbortSignal;
}

/**
 * Thrown by {@linkcode withLockDirectory} when another process held the lock for the whole wait.
 *
 * @example
 * ```ts
 * try {
 *   await withLockDirectory("/home/ada/.claude.json", async () => {}, { waitMs: 1_000 });
 * } catch (error) {
 *   if (error instanceof LockDirectoryTimeout) console.error(`busy: ${error.lockPath}`);
 * }
 * ```
 */
export class LockDirectoryTimeout extends Error {
  /** The lock directory. */
  readonly lockPath: string;

  constructor(lockPath: string) {
    super(`${lockPath} is held by another process`);
    this.name = "LockDirectoryTimeout";
    this.lockPath = lockPath;
  }
}

/**
 * Runs `fn` while holding the lock of a file another program owns: the directory `<path>.lock`, created
 * atomically — the convention of `proper-lockfile`, which MCP clients written in Node use for their own
 * configuration, so they and this one exclude each other. (toolwire's own state uses `withFileLock`, whose
 * stale-lock breaking is exclusive; a foreign convention cannot be changed.) A lock older than
 * `staleMs` (a holder killed mid-write) is taken over; every other wait is bounded by `waitMs`.
 *
 * @example
 * ```ts
 * await withLockDirectory("/home/ada/.claude.json", async () => {
 *   // read, change and replace the file: no other writer gets in between
 * });
 * ```
 */
export async function withLockDirectory<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockDirectoryOptions = {},
): Promise<T> {
  const lockPath = `${path}.lock`;
  const waitMs = options.waitMs ?? 15_000;
  const staleMs = options.staleMs ?? 10_000;
  const giveUpAt = Date.now() + waitMs;
  let pause = 10;
  while (true) {
    options.signal?.throwIfAborted();
    try {
      await fs().mkdir(lockPath);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const since = await lockAge(lockPath);
    if (since !== undefined && since > staleMs) {
      await fs().rm(lockPath, { recursive: true, force: true });
      continue;
    }
    if (Date.now() >= giveUpAt) throw new LockDirectoryTimeout(lockPath);
    await new Promise((done) => setTimeout(done, pause));
    pause = Math.min(pause * 2, 200);
  }
  try {
    return await fn();
  } finally {
    await fs().rm(lockPath, { recursive: true, force: true });
  }
}

async function lockAge(lockPath: string): Promise<number | undefined> {
  try {
    return Date.now() - (await fs().stat(lockPath)).mtimeMs;
  } catch {
    return undefined; // released meanwhile: try again at once
  }
}
