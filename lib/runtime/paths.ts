/**
 * Paths as the runtime writes them: absolute, relative, their parts and separators, and whether two name
 * one file.
 * @module
 */
import { nodeFs as fs, nodePath } from "./node_process.ts";
import { platformName } from "./process.ts";

/**
 * A path made absolute against the current directory.
 *
 * @example
 * ```ts
 * absolutePath("tools/cli.py"); // "/home/ada/project/tools/cli.py"
 * ```
 */
export function absolutePath(path: string): string {
  return nodePath().resolve(path);
}

/**
 * The directory part of a path.
 *
 * @example
 * ```ts
 * parentDir("/home/ada/.cursor/mcp.json"); // "/home/ada/.cursor"
 * ```
 */
export function parentDir(path: string): string {
  return nodePath().dirname(path);
}

/**
 * The path of `to` relative to the directory `from` (`""` for the directory itself), with the platform's
 * separator, which {@linkcode pathSeparator} names.
 *
 * @example
 * ```ts
 * relativePath("/home/ada/project", "/home/ada/project/tools/cli.py"); // "tools/cli.py"
 * ```
 */
export function relativePath(from: string, to: string): string {
  return nodePath().relative(from, to);
}

/**
 * The platform's path separator: `/`, or `\\` on Windows.
 *
 * @example
 * ```ts
 * ["tools", "cli.py"].join(pathSeparator()); // "tools/cli.py"
 * ```
 */
export function pathSeparator(): string {
  return nodePath().sep;
}

/**
 * The separator of the directories in `PATH`: `:`, or `;` on Windows.
 *
 * @example
 * ```ts
 * "/usr/bin:/bin".split(pathDelimiter()); // ["/usr/bin", "/bin"]
 * ```
 */
export function pathDelimiter(): string {
  return nodePath().delimiter;
}

/**
 * Whether two paths name the same file once their symbolic links are followed; `false` when either is
 * missing.
 *
 * @example
 * ```ts
 * await sameFile("/usr/bin/node", "/usr/local/bin/node");
 * ```
 */
export async function sameFile(a: string, b: string): Promise<boolean> {
  try {
    return (await fs().realpath(a)) === (await fs().realpath(b));
  } catch {
    return false;
  }
}

/**
 * Whether a path is absolute on this platform: a relative one means something else in every directory.
 *
 * @example
 * ```ts
 * isAbsolutePath("~/.config"); // false
 * ```
 */
export function isAbsolutePath(path: string): boolean {
  return nodePath().isAbsolute(path);
}

/**
 * The path of `to` inside the directory `from` with `/` between its parts on every platform (`""` for the
 * directory itself), as a file checked in with a project holds it: read on macOS and Linux too, where a
 * backslash is part of a name, while Windows takes `/` as well. `undefined` when `to` is not absolute or
 * not inside `from` (another drive included). Both are read by the rules of `platform`.
 *
 * @example
 * ```ts
 * portableRelativePath("C:\\work\\app", "C:\\work\\app\\tools\\cli.js", "win32"); // "tools/cli.js"
 * ```
 */
export function portableRelativePath(
  from: string,
  to: string,
  platform = platformName(),
): string | undefined {
  const path = platform === "win32" ? nodePath().win32 : nodePath().posix;
  if (!path.isAbsolute(to)) return undefined;
  const relative = path.relative(from, to);
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return undefined;
  }
  return relative.split(path.sep).join("/");
}
