/**
 * The one seam between finding and starting programs and the machine they run on: the platform, the
 * environment (`PATH` or `Path`, `PATHEXT`, `ComSpec`, `SystemRoot`), the working directory and the file
 * tree. Resolution (program_resolution.ts) reads the machine only through a {@linkcode ProgramHost}, and so
 * does finding where a program keeps its files (the Store build of Claude Desktop, for `mcp install`), so
 * the Windows rules are proven on any platform with a host whose files are a map.
 * @module
 */
import type * as NodeFs from "node:fs";
import { nodeProcess } from "./node_process.ts";
import { platformName } from "./process.ts";
import { allEnv, currentDir } from "./environment.ts";

/** What resolving a program asks of the machine. */
export interface ProgramHost {
  /** The operating system, in Node's spelling (`win32`, `linux`, `darwin`). */
  platform: string;
  /** The environment the program will get: its `PATH` is searched. */
  env: Record<string, string>;
  /** The directory a relative program name is found from. */
  cwd: string;
  /** Whether a regular file exists at the path. */
  isFile(path: string): boolean;
  /** A file's text, or `undefined` when it cannot be read. */
  readText(path: string): string | undefined;
  /** Whether a directory exists at the path. */
  isDirectory(path: string): boolean;
  /** The names in a directory, sorted; `[]` when it does not exist or cannot be read. */
  listDir(path: string): string[];
}

/**
 * This machine as a {@linkcode ProgramHost}. The file tree is read synchronously: a spawn is synchronous,
 * and Windows itself searches `PATH` that way when it starts a program. The environment and the working
 * directory are read when first asked for: on Deno each is a permission, which a look at the file tree
 * alone must not need.
 *
 * @example
 * ```ts
 * const host = currentHost({ cwd: "/srv/app" });
 * host.isFile("/srv/app/tool.py");
 * ```
 */
export function currentHost(
  options: { env?: Record<string, string> | undefined; cwd?: string | undefined } = {},
): ProgramHost {
  const fs = nodeProcess().getBuiltinModule("node:fs") as typeof NodeFs;
  let env = options.env;
  let cwd = options.cwd;
  return {
    platform: platformName(),
    get env() {
      return env ??= allEnv();
    },
    get cwd() {
      return cwd ??= currentDir();
    },
    isFile(path) {
      try {
        return fs.statSync(path).isFile();
      } catch {
        return false;
      }
    },
    readText(path) {
      try {
        return fs.readFileSync(path, "utf8");
      } catch {
        return undefined;
      }
    },
    isDirectory(path) {
      try {
        return fs.statSync(path).isDirectory();
      } catch {
        return false;
      }
    },
    listDir(path) {
      try {
        return fs.readdirSync(path).sort();
      } catch {
        return [];
      }
    },
  };
}

/**
 * A variable of `env` by name, ignoring case on Windows, where `Path` is `PATH`.
 *
 * @example
 * ```ts
 * envValue({ Path: "C:\\Windows" }, "PATH", "win32"); // "C:\\Windows"
 * ```
 */
export function envValue(env: Record<string, string>, name: string, platform: string): string | undefined {
  if (platform !== "win32") return env[name];
  const wanted = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) if (key.toUpperCase() === wanted) return value;
  return undefined;
}
