/**
 * What `--output` asks of its target before a command runs: what the path names, and whether its directory
 * takes new files. Apart from fs.ts: loaded with the text a person reads, not by a tool's start.
 * @module
 */
import { nodeFs as fs } from "./node_process.ts";

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
