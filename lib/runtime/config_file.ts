/**
 * Changing a file other programs own (an MCP client's configuration) without harming it: follow symlinks to
 * the real file (also one that does not exist yet), refuse anything but a regular file the owner lets us
 * write, keep a backup that never overwrites another, replace the content atomically with the old file's
 * permissions and owner, and serialise writers with a lock directory.
 * @module
 */
import { nodeFs as fs, nodePath } from "./node_process.ts";
import { retryWhileBusy } from "./busy_files.ts";
import { platformName } from "./process.ts";

/** `fs.constants.COPYFILE_EXCL`: the copy fails when the destination exists. */
const COPYFILE_EXCL = 1;

/** Why {@linkcode UnchangeableFile} refuses a file. */
export type UnchangeableReason = "not_regular" | "read_only" | "missing_directory" | "owner";

/**
 * A file that must not be changed, found before anything was written: not a regular file (a FIFO, a device,
 * a directory), made read-only by its owner, a link whose target's directory is missing, or one whose owner
 * a replacement could not keep.
 *
 * @example
 * ```ts
 * try {
 *   await resolveConfigFile("/home/ada/.claude.json");
 * } catch (error) {
 *   if (error instanceof UnchangeableFile) console.error(`${error.path}: ${error.reason}`);
 * }
 * ```
 */
export class UnchangeableFile extends Error {
  /** Why. */
  readonly reason: UnchangeableReason;
  /** The file (a link's target, when the link was followed). */
  readonly path: string;

  constructor(reason: UnchangeableReason, path: string, message: string) {
    super(message);
    this.name = "UnchangeableFile";
    this.reason = reason;
    this.path = path;
  }
}

/** The file a configuration path names, once its symbolic links are followed. */
export interface ConfigFile {
  /** The file to read and replace: the final target when the path is a link, dangling or not. */
  path: string;
  /** Whether a symbolic link was followed to get there. */
  linked: boolean;
  /** The existing file's permission bits and owner; absent when there is no file yet. */
  existing?: { mode: number; uid: number; gid: number };
}

const MAX_LINKS = 40;

/**
 * Follows a path's symbolic links to the file they finally name — also when that file does not exist yet
 * (a dotfiles link whose target is missing), so that writing it keeps the link a link — and refuses with
 * {@linkcode UnchangeableFile} anything there that is not a regular file, before it is ever opened: a FIFO
 * would block the reader forever. A link whose target's directory is missing is refused too: creating
 * directories at the far end of a link is not the link owner's intent.
 *
 * @example
 * ```ts
 * const file = await resolveConfigFile("/home/ada/.claude.json"); // { path: "/home/ada/dotfiles/claude.json", linked: true, … }
 * ```
 */
export async function resolveConfigFile(path: string): Promise<ConfigFile> {
  const { resolve, dirname, basename, join } = nodePath();
  let current = resolve(path);
  let linked = false;
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    let dir: string;
    try {
      dir = await fs().realpath(dirname(current));
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
      if (!linked) return { path: current, linked };
      throw new UnchangeableFile(
        "missing_directory",
        current,
        `the link leads to ${current}, whose directory does not exist`,
      );
    }
    current = join(dir, basename(current));
    let stat;
    try {
      stat = await fs().lstat(current);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return { path: current, linked };
      throw error;
    }
    if (stat.isSymbolicLink()) {
      current = resolve(dir, await fs().readlink(current));
      linked = true;
      continue;
    }
    if (!stat.isFile()) {
      throw new UnchangeableFile(
        "not_regular",
        current,
        `${current} is not a regular file (${kindOf(stat)})`,
      );
    }
    return { path: current, linked, existing: { mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid } };
  }
  throw Object.assign(new Error(`${path}: more than ${MAX_LINKS} symbolic links`), { code: "ELOOP" });
}

function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  return "a device";
}

/**
 * Reads a regular file's bytes; `undefined` when it does not exist. It is opened without blocking and
 * checked once open, so something swapped in after {@linkcode resolveConfigFile} looked (a FIFO) is refused
 * with {@linkcode UnchangeableFile}, never waited on.
 *
 * @example
 * ```ts
 * const bytes = await readRegularFile("/home/ada/.cursor/mcp.json");
 * ```
 */
export async function readRegularFile(path: string): Promise<Uint8Array | undefined> {
  const { O_RDONLY, O_NONBLOCK } = fs().constants;
  let handle;
  try {
    handle = await fs().open(path, O_RDONLY | (O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new UnchangeableFile("not_regular", path, `${path} is not a regular file (${kindOf(stat)})`);
    }
    return new Uint8Array(await handle.readFile());
  } finally {
    await handle.close();
  }
}

/**
 * Refuses with {@linkcode UnchangeableFile} a file its owner made read-only (no write bit for the owner,
 * which root would otherwise write through), or one this process may not write; a missing file passes.
 * Replacing a file only takes a writable directory, so without this a read-only file would be replaced.
 *
 * @example
 * ```ts
 * await assertWritable(await resolveConfigFile("/home/ada/.cursor/mcp.json"));
 * ```
 */
export async function assertWritable(file: ConfigFile): Promise<void> {
  if (file.existing === undefined) return;
  const readOnly = () =>
    new UnchangeableFile(
      "read_only",
      file.path,
      `${file.path} is read-only (mode ${modeText(file.existing!)})`,
    );
  if ((file.existing.mode & 0o200) === 0) throw readOnly();
  // The kernel's answer, not one computed from the mode bits (Deno's `access` ignores root's privilege):
  // opening for writing without truncating changes nothing.
  const { O_WRONLY, O_NONBLOCK } = fs().constants;
  try {
    await (await fs().open(file.path, O_WRONLY | (O_NONBLOCK ?? 0))).close();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EACCES" || code === "EPERM") throw readOnly();
    throw error;
  }
}

function modeText(existing: { mode: number }): string {
  return `0${(existing.mode & 0o777).toString(8).padStart(3, "0")}`;
}

/** Options of {@linkcode replaceTextFile}. */
export interface ReplaceOptions {
  /**
   * The permission bits of a file that does not exist yet, narrowed by the umask as any new file's are; a
   * file replaced keeps its own. @default 0o600 (client configurations hold tokens)
   */
  newFileMode?: number;
}

/**
 * Replaces a file's content atomically: the text goes to a new temporary sibling, is flushed to disk, takes
 * the permission bits, owner and group of the file it replaces, and is renamed over the target. A reader
 * sees the old content or the new, never a torn file; on failure the target is untouched and the temporary
 * file removed. An owner the temporary file cannot be given (only root may give a file away) is refused
 * with {@linkcode UnchangeableFile} before the rename: the file is left as it is rather than taken over.
 *
 * @example
 * ```ts
 * await replaceTextFile("/home/ada/.cursor/mcp.json", '{"mcpServers":{}}\n');
 * ```
 */
export async function replaceTextFile(
  path: string,
  text: string,
  options: ReplaceOptions = {},
): Promise<void> {
  let existing: { mode: number; uid: number; gid: number } | undefined;
  try {
    const stat = await fs().stat(path);
    existing = { mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid };
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    const handle = await fs().open(temporary, "wx", existing?.mode ?? options.newFileMode ?? 0o600);
    try {
      await handle.writeFile(text, "utf8");
      if (existing !== undefined) await keepOwnerAndMode(handle, path, existing);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await retryWhileBusy(() => fs().rename(temporary, path), { path, platform: platformName() });
  } catch (error) {
    await fs().rm(temporary, { force: true });
    throw error;
  }
}

type FileHandle = Awaited<ReturnType<ReturnType<typeof fs>["open"]>>;

async function keepOwnerAndMode(
  handle: FileHandle,
  path: string,
  existing: { mode: number; uid: number; gid: number },
): Promise<void> {
  const made = await handle.stat();
  if (made.uid !== existing.uid || made.gid !== existing.gid) {
    try {
      await handle.chown(existing.uid, existing.gid);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "EPERM" && code !== "EACCES") throw error;
      throw new UnchangeableFile(
        "owner",
        path,
        `${path} belongs to uid ${existing.uid}, gid ${existing.gid}: a replacement made by this user could ` +
          "not keep that owner",
      );
    }
  }
  await handle.chmod(existing.mode); // the umask may have narrowed the mode given to open; chown clears set-id bits
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
