/**
 * Putting a lock file into place only if none is there: a hard link of a complete temporary file, or, on a
 * file system without hard links (a link refused with `EPERM`, …), an exclusive create. On Windows that
 * create may fail for a moment with `EPERM` while another program holds the path (a lock being deleted, a
 * scanner): it is tried again (busy_files.ts), not taken for a final refusal.
 * @module
 */
import { nodeFs as fs } from "./node_process.ts";
import { platformName } from "./process.ts";
import { retryWhileBusy } from "./busy_files.ts";
import type { ProgramHost } from "./program_host.ts";

/** File systems without hard links (FAT, some network shares) answer `link` with one of these. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/**
 * The machine {@linkcode linkLockFile} works on: the real one, or a simulated one in the tests — the
 * platform of the one seam ({@linkcode ProgramHost}) and the two asynchronous file operations it takes.
 */
export interface LockFiles extends Pick<ProgramHost, "platform"> {
  /** Makes `to` a hard link of `from`; fails with `EEXIST` when `to` exists. */
  link(from: string, to: string): Promise<void>;
  /** Creates `path` with `text`; fails with `EEXIST` when it exists. */
  createExclusive(path: string, text: string): Promise<void>;
  /** Waits between two tries on a busy file. @default a timer */
  pause?: (ms: number) => Promise<void>;
}

/**
 * This machine as {@linkcode LockFiles}.
 *
 * @example
 * ```ts
 * const files = machineLockFiles();
 * files.platform; // "linux"
 * ```
 */
export function machineLockFiles(): LockFiles {
  return {
    platform: platformName(),
    link: (from, to) => fs().link(from, to),
    createExclusive: (path, text) => fs().writeFile(path, text, { flag: "wx", mode: 0o600 }),
  };
}

/**
 * Puts the lock `path` into place with the content of `temporary` (which holds `text`): `true` when it is
 * taken, `false` when another holder has it or a breaker removed `temporary` meanwhile (the next attempt
 * may succeed). A busy file on Windows that stays busy throws `FileInUseError`.
 *
 * @example
 * ```ts
 * const taken = await linkLockFile("/tmp/app.lock.1f2e.tmp", "/tmp/app.lock", '{"pid":1}');
 * ```
 */
export async function linkLockFile(
  temporary: string,
  path: string,
  text: string,
  files: LockFiles = machineLockFiles(),
): Promise<boolean> {
  try {
    await files.link(temporary, path);
    return true;
  } catch (error) {
    const code = errorCode(error);
    // ENOENT: a breaker removed the temporary file as a leftover; this attempt failed, the next one may not.
    if (code === "EEXIST" || code === "ENOENT") return false;
    // On Windows EPERM may also be a path held for a moment: the create below finds out, and retries it.
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
  }
  // Without hard links the content lands just after the file appears; the unreadable-grace rule covers that.
  try {
    const retried = { path, platform: files.platform, ...(files.pause ? { pause: files.pause } : {}) };
    await retryWhileBusy(() => files.createExclusive(path, text), retried);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
