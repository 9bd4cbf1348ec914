/**
 * What the programs that look at another program ask of the file system: whether a path is a directory, a
 * file's stamp, the account's home directory (which file a program name runs is program_resolution.ts's). Apart from fs.ts, which a
 * tool's own runs use: none of these is loaded by a tool's start.
 * @module
 */
import { nodeFs as fs, nodeOs as os } from "./node_process.ts";

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
