import { nodeFs as fs, nodeOs as os, nodePath } from "./node_process.ts";

/**
 * Reads a UTF-8 text file; `undefined` when it does not exist.
 *
 * @example
 * ```ts
 * const text = await readTextIfExists("/tmp/notes.json");
 * ```
 */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await fs().readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Writes a file atomically: the text goes to a temporary sibling that is then renamed over the target, so a
 * reader sees the old content or the new, never a torn file.
 *
 * @example
 * ```ts
 * await writeTextAtomic("/tmp/notes.json", "{}");
 * ```
 */
export async function writeTextAtomic(path: string, text: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await fs().writeFile(temporary, text, { encoding: "utf8", mode: 0o600 });
    await fs().rename(temporary, path);
  } catch (error) {
    await fs().rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Creates a directory and its parents (`mode` narrowed by the umask, private by default); a no-op when it
 * exists.
 *
 * @example
 * ```ts
 * await ensureDir("/tmp/notes");
 * ```
 */
export async function ensureDir(path: string, mode = 0o700): Promise<void> {
  await fs().mkdir(path, { recursive: true, mode });
}

/**
 * Joins path segments with the platform separator.
 *
 * @example
 * ```ts
 * joinPath("/home/a", ".local", "share"); // "/home/a/.local/share"
 * ```
 */
export function joinPath(...segments: string[]): string {
  return nodePath().join(...segments);
}

/**
 * The current user's home directory.
 *
 * @example
 * ```ts
 * const home = homeDir();
 * ```
 */
export function homeDir(): string {
  return os().homedir();
}

/**
 * The directory part of a path (`.` for a bare file name).
 *
 * @example
 * ```ts
 * parentDir("/tmp/out/report.json"); // "/tmp/out"
 * ```
 */
export function parentDir(path: string): string {
  return nodePath().dirname(path);
}

/**
 * Removes a file; a no-op when it does not exist.
 *
 * @example
 * ```ts
 * await removeFile("/tmp/notes/old.json");
 * ```
 */
export async function removeFile(path: string): Promise<void> {
  await fs().rm(path, { force: true });
}

/**
 * The names in a directory (not their paths); `[]` when the directory does not exist.
 *
 * @example
 * ```ts
 * for (const name of await listDir("/tmp/notes")) console.error(name);
 * ```
 */
export async function listDir(path: string): Promise<string[]> {
  try {
    return await fs().readdir(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * When a file or directory was last modified, in milliseconds since the epoch; `undefined` when it does not
 * exist. A symbolic link is judged by itself, not by its target.
 *
 * @example
 * ```ts
 * const modified = await modifiedAtMs("/tmp/notes/notes.json");
 * ```
 */
export async function modifiedAtMs(path: string): Promise<number | undefined> {
  try {
    return (await fs().lstat(path)).mtimeMs;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}
