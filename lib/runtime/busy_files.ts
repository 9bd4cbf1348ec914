/**
 * Files another program holds open, on Windows. There, an antivirus scanner, a search indexer or an editor
 * that has a file open makes a rename over it, or a new file where one is being deleted, fail for a moment
 * with `EPERM`, `EACCES` or `EBUSY`; the same operation a few milliseconds later succeeds. Such an operation
 * is tried again with a bounded back-off, and one that still fails is reported as a file in use, not as a
 * missing permission. On POSIX those codes mean what they say, and are final at once.
 * @module
 */

/** How many times an operation on a busy file is tried on Windows, the first try included. */
export const BUSY_FILE_ATTEMPTS = 10;
/** The pause before the second try; it doubles up to {@linkcode BUSY_FILE_MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 10;
/** The longest pause between two tries: the ten tries span about 1.3 s in all. */
export const BUSY_FILE_MAX_PAUSE_MS = 250;
/** What Windows answers while another program holds the file. */
const BUSY_CODES = new Set(["EPERM", "EACCES", "EBUSY"]);

/**
 * A file operation that kept failing on Windows because another program held the file, for every try.
 * Its `code` is `EBUSY` whatever the last try's was: the file is in use, which is not a permission problem.
 *
 * @example
 * ```ts
 * try {
 *   await retryWhileBusy(() => Promise.resolve(), { path: "C:\\Users\\ada\\notes.json", platform: "win32" });
 * } catch (error) {
 *   if (error instanceof FileInUseError) console.error(`${error.path} is open in another program`);
 * }
 * ```
 */
export class FileInUseError extends Error {
  /** Always `EBUSY`. */
  readonly code = "EBUSY";
  /** The file. */
  readonly path: string;
  /** The code of the last try (`EPERM`, `EACCES` or `EBUSY`). */
  readonly lastCode: string;

  constructor(path: string, lastCode: string, cause: unknown) {
    super(
      `${path} is in use by another program (an antivirus scanner, an indexer or an editor may hold it open): ` +
        `it failed with ${lastCode} ${BUSY_FILE_ATTEMPTS} times over about 1.3 s`,
      { cause },
    );
    this.name = "FileInUseError";
    this.path = path;
    this.lastCode = lastCode;
  }
}

/** Options of {@linkcode retryWhileBusy}. */
export interface BusyRetryOptions {
  /** The file the operation is on, for the error. */
  path: string;
  /** The operating system, in Node's spelling: only `win32` retries. */
  platform: string;
  /** Waits between two tries. @default a timer */
  pause?: (ms: number) => Promise<void>;
}

/**
 * Runs `operation`, and on Windows runs it again while it fails with `EPERM`, `EACCES` or `EBUSY`, up to
 * {@linkcode BUSY_FILE_ATTEMPTS} tries with a doubling pause; then throws {@linkcode FileInUseError}. Any
 * other error, and every error on POSIX, is thrown at once as it is.
 *
 * @example
 * ```ts
 * import { nodeFs } from "./node_process.ts";
 *
 * await retryWhileBusy(() => nodeFs().rename("notes.json.tmp", "notes.json"), {
 *   path: "notes.json",
 *   platform: "win32",
 * });
 * ```
 */
export async function retryWhileBusy<T>(operation: () => Promise<T>, options: BusyRetryOptions): Promise<T> {
  const pause = options.pause ?? sleep;
  let pauseMs = FIRST_PAUSE_MS;
  for (let attempt = 1;; attempt++) {
    try {
      return await operation();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (options.platform !== "win32" || typeof code !== "string" || !BUSY_CODES.has(code)) throw error;
      if (attempt === BUSY_FILE_ATTEMPTS) throw new FileInUseError(options.path, code, error);
    }
    await pause(pauseMs);
    pauseMs = Math.min(pauseMs * 2, BUSY_FILE_MAX_PAUSE_MS);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
