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
 * Whether a path names an existing directory.
 *
 * @example
 * ```ts
 * if (!(await isDirectory("/srv/app"))) console.error("no such directory");
 * ```
 */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await fs().stat(path)).isDirectory();
  } catch {
    return false;
  }
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
 * The home directory the user database gives this process's user, whatever `HOME` says (the fallback when
 * `HOME` is unset or unusable); `undefined` when the user has no entry. On Deno it takes `--allow-sys`.
 *
 * @example
 * ```ts
 * const home = accountHomeDir(); // "/home/ada"
 * ```
 */
export function accountHomeDir(): string | undefined {
  try {
    return os().userInfo().homedir || undefined;
  } catch (error) {
    // A uid without a passwd entry (a container's arbitrary user) has no home to fall back on.
    if (
      (error as { code?: string }).code === "ENOENT" ||
      (error as { code?: string }).code === "ERR_SYSTEM_ERROR"
    ) {
      return undefined;
    }
    throw error;
  }
}

/** What a path names, following symbolic links. */
export type PathKind = "file" | "directory" | "other" | "missing";

/**
 * What a path names: a regular file, a directory, something else (a device, a FIFO, a socket), or nothing —
 * also when a component of its parent is not a directory. Other failures (a permission, a loop of links)
 * are thrown.
 *
 * @example
 * ```ts
 * if ((await pathKind("/tmp/report.json")) === "directory") console.error("that is a directory");
 * ```
 */
export async function pathKind(path: string): Promise<PathKind> {
  try {
    const stat = await fs().stat(path);
    return stat.isFile() ? "file" : stat.isDirectory() ? "directory" : "other";
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw error;
  }
}

/**
 * Creates an empty file that must not exist yet, then removes it: whether the directory takes new files right
 * now (a read-only mount or a pseudo file system refuses, whatever the permission bits say). Throws why not.
 *
 * @example
 * ```ts
 * await probeCreate("/srv/out/report.json.probe");
 * ```
 */
export async function probeCreate(path: string): Promise<void> {
  const handle = await fs().open(path, "wx", 0o600);
  try {
    await handle.close();
  } finally {
    await fs().rm(path, { force: true });
  }
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
 * What changes when a file is replaced or rewritten — its inode, size and modification time — as one string,
 * or `undefined` when there is no such file. Two stamps differ when the file was changed in between (an edit
 * within the file system's time resolution that keeps the size is the one change it can miss).
 *
 * @example
 * ```ts
 * const before = await fileStamp("/usr/local/bin/mytool");
 * ```
 */
export async function fileStamp(path: string): Promise<string | undefined> {
  try {
    const stat = await fs().stat(path);
    return stat.isFile() ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file a program name runs: a name with a slash as it is (against `cwd`), any other one looked up in the
 * directories of `PATH` (the first that has it); `undefined` when none has it.
 *
 * @example
 * ```ts
 * import { getEnv } from "./process.ts";
 *
 * const python = await findProgram("python3", getEnv("PATH") ?? "", ".");
 * ```
 */
export async function findProgram(name: string, path: string, cwd: string): Promise<string | undefined> {
  const { isAbsolute, join, delimiter } = nodePath();
  if (name.includes("/")) return isAbsolute(name) ? name : join(cwd, name);
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (await fileStamp(candidate) !== undefined) return candidate;
  }
  return undefined;
}
