/**
 * The file lock's options, what its holder learns, and its timeout error: what both the lock's API
 * (file_lock_api.ts, loaded at every start) and the lock itself (file_lock.ts, loaded on first use) speak.
 * @module
 */

/**
 * The listening half of an AbortSignal: an AbortSignal fits, and so does a lighter cancellation source.
 *
 * @example
 * ```ts
 * const signal: FileLockSignal = AbortSignal.timeout(1_000);
 * ```
 */
export interface FileLockSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * Options of {@linkcode withFileLock}.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext;
 * const options: FileLockOptions = { signal: ctx.signal, timeoutMs: 10_000 };
 * ```
 */
export interface FileLockOptions {
  /** Stops the wait: the call then rejects with the signal's reason and `fn` never runs. */
  signal?: FileLockSignal;
  /**
   * How long to wait for a live holder, in milliseconds; `0` makes one attempt. On expiry the call rejects
   * with {@linkcode FileLockTimeoutError}. @default no limit
   */
  timeoutMs?: number;
  /**
   * A lock its holder has not refreshed for this long is stale even when its process id looks alive (a
   * reused pid, a holder on another host). Holders refresh every third of it. @default 30000
   */
  staleMs?: number;
}

/**
 * What `fn` learns about the lock it runs under.
 *
 * @example
 * ```ts
 * import { rm } from "node:fs/promises";
 * import { withFileLock } from "@toolwire/toolwire";
 *
 * await withFileLock("/tmp/app/state.lock", async ({ recovered }) => {
 *   // the holder that died may have left its temporary file behind
 *   if (recovered) await rm("/tmp/app/state.json.tmp", { force: true });
 * });
 * ```
 */
export interface FileLockState {
  /**
   * This acquisition broke a stale lock: its holder died while holding it, so whatever that holder was
   * writing (temporary files, say) may be left half done.
   */
  readonly recovered: boolean;
}

/**
 * The lock stayed with a live holder for longer than {@linkcode FileLockOptions.timeoutMs}.
 *
 * @example
 * ```ts
 * import { withFileLock } from "./file_lock_api.ts";
 *
 * try {
 *   await withFileLock("/tmp/app/data.lock", () => {}, { timeoutMs: 0 });
 * } catch (error) {
 *   if (error instanceof FileLockTimeoutError) console.error(`busy: ${error.path}`);
 * }
 * ```
 */
export class FileLockTimeoutError extends Error {
  /** The lock file. */
  readonly path: string;
  /** How long the caller waited. */
  readonly timeoutMs: number;

  constructor(path: string, timeoutMs: number) {
    super(`the lock ${path} is still held after ${timeoutMs} ms`);
    this.name = "FileLockTimeoutError";
    this.path = path;
    this.timeoutMs = timeoutMs;
  }
}
