/**
 * Changing a file other programs own (an MCP client's configuration) without harming it: follow a symlink to
 * the real file, keep a backup that never overwrites another, replace the content atomically with the old
 * file's permissions, and serialise writers with a lock directory.
 * @module
 */
import { nodeFs as fs, nodePath } from "./node_process.ts";

/** `fs.constants.COPYFILE_EXCL`: the copy fails when the destination exists. */
const COPYFILE_EXCL = 1;

/**
 * A path made absolute against the current directory.
 *
 * @example
 * ```ts
 * absolutePath("tools/cli.py"); // "/home/ada/project/tools/cli.py"
 * ```
 */
export function absolutePath(path: string): string {
  return nodePath().resolve(path);
}

/**
 * The directory part of a path.
 *
 * @example
 * ```ts
 * parentDir("/home/ada/.cursor/mcp.json"); // "/home/ada/.cursor"
 * ```
 */
export function parentDir(path: string): string {
  return nodePath().dirname(path);
}

/**
 * The file a path finally names, symlinks followed — so replacing it keeps a dotfiles link intact — or the
 * absolute path itself when nothing exists there yet.
 *
 * @example
 * ```ts
 * await realFilePath("/home/ada/.claude.json"); // "/home/ada/dotfiles/claude.json"
 * ```
 */
export async function realFilePath(path: string): Promise<string> {
  try {
    return await fs().realpath(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return nodePath().resolve(path);
    throw error;
  }
}

/**
 * Copies a file byte for byte to a destination that must not exist yet; `false` when it does.
 *
 * @example
 * ```ts
 * const config = "/home/ada/.claude.json";
 * if (!(await copyFileExclusive(config, `${config}.bak`))) console.error("a backup is already there");
 * ```
 */
export async function copyFileExclusive(from: string, to: string): Promise<boolean> {
  try {
    await fs().copyFile(from, to, COPYFILE_EXCL);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Replaces a file's content atomically: the text goes to a new temporary sibling, is flushed to disk, takes
 * the permissions of the file it replaces (0600 for a new file: client configurations hold tokens), and is
 * renamed over the target. A reader sees the old content or the new, never a torn file; on failure the
 * target is untouched and the temporary file removed.
 *
 * @example
 * ```ts
 * await replaceTextFile("/home/ada/.cursor/mcp.json", '{"mcpServers":{}}\n');
 * ```
 */
export async function replaceTextFile(path: string, text: string): Promise<void> {
  let mode = 0o600;
  try {
    mode = (await fs().stat(path)).mode & 0o777;
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    const handle = await fs().open(temporary, "wx", mode);
    try {
      await handle.writeFile(text, "utf8");
      await handle.chmod(mode); // the umask may have narrowed the mode given to open
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs().rename(temporary, path);
  } catch (error) {
    await fs().rm(temporary, { force: true });
    throw error;
  }
}

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
