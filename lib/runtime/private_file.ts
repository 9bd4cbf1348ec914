import { nodeFs as fs } from "./node_process.ts";
import { platformName } from "./process.ts";

/** Why a private file was refused; `ok` with its bytes otherwise. */
export type PrivateFile =
  | { kind: "ok"; bytes: Uint8Array }
  | { kind: "missing" | "not_file" | "too_large" | "shared" };

/**
 * Reads a small file that must stay private (a key): a regular file of at most `maxBytes`, which on POSIX
 * no one but its owner may read or write (mode 0600 or narrower). What is wrong is returned, never thrown,
 * and the content is never part of any message. Other failures (a permission) are thrown.
 *
 * @example
 * ```ts
 * const secret = await readPrivateFile("/etc/notes/confirmation.key", 4096);
 * if (secret.kind !== "ok") console.error(`refused: ${secret.kind}`);
 * ```
 */
export async function readPrivateFile(path: string, maxBytes: number): Promise<PrivateFile> {
  const { O_RDONLY, O_NONBLOCK } = fs().constants;
  let handle;
  try {
    // Without blocking: a FIFO at the path is refused once open, never waited on.
    handle = await fs().open(path, O_RDONLY | (O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: "not_file" };
    if (platformName() !== "win32" && (stat.mode & 0o077) !== 0) return { kind: "shared" };
    if (stat.size > maxBytes) return { kind: "too_large" };
    const bytes = new Uint8Array(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0 || (length += bytesRead) > maxBytes) break;
    }
    if (length > maxBytes) return { kind: "too_large" };
    return { kind: "ok", bytes: bytes.slice(0, length) };
  } finally {
    await handle.close();
  }
}
