import { nodeFs as fs, nodeOs as os, nodePath } from "./node_process.ts";
import { retryWhileBusy } from "./busy_files.ts";
import { platformName } from "./process.ts";
import type { ProgramHost } from "./program_host.ts";

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
 * reader sees the old content or the new, never a torn file. On Windows a rename over a file another program
 * holds open is tried again for a moment (busy_files.ts).
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
    await retryWhileBusy(() => fs().rename(temporary, path), { path, platform: platformName() });
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

/**
 * Where {@linkcode userStateHome} looks: the platform of the one seam, and the facts it reads, each only
 * when needed (on Deno each is a permission).
 */
export interface StatePlace extends Pick<ProgramHost, "platform"> {
  /** One environment variable; `undefined` when unset. */
  env(name: string): string | undefined;
  /** The home directory. */
  home(): string;
}

/**
 * The directory a program keeps its own state under (each tool in a directory of its name): the
 * `XDG_STATE_HOME` a person set; else, on Windows, `%LOCALAPPDATA%`, where data that belongs to one
 * machine lives (not the roaming profile, not a hidden folder of the home directory); else
 * `~/.local/state`. A relative value of either variable is ignored, as the XDG specification says.
 *
 * @example
 * ```ts
 * const place = { platform: "win32", env: () => "C:\\Users\\ada\\AppData\\Local", home: () => "C:\\Users\\ada" };
 * userStateHome(place); // "C:\\Users\\ada\\AppData\\Local"
 * ```
 */
export function userStateHome(place: StatePlace): string {
  const path = place.platform === "win32" ? nodePath().win32 : nodePath().posix;
  const absolute = (name: string) => {
    const value = place.env(name);
    return value !== undefined && path.isAbsolute(value) ? value : undefined;
  };
  const xdg = absolute("XDG_STATE_HOME");
  if (xdg !== undefined) return xdg;
  if (place.platform !== "win32") return path.join(place.home(), ".local", "state");
  return absolute("LOCALAPPDATA") ?? path.join(place.home(), "AppData", "Local");
}
