/**
 * What a `unix:` listening path can be on each platform. On POSIX it is a Unix domain socket's file path.
 * On Windows, Node listens on a named pipe instead, whose name is `\\.\pipe\<name>` (or `\\?\pipe\<name>`),
 * never a file path; Deno there can listen on neither, only on TCP.
 * @module
 */
import { deno } from "./deno_api.ts";
import { platformName } from "./process.ts";
import type { ProgramHost } from "./program_host.ts";

/** The machine a socket path is checked for: the platform of the one seam, and the runtime. */
export interface SocketPlatform extends Pick<ProgramHost, "platform"> {
  /** The runtime that will listen. */
  runtime: "node" | "deno";
}

/**
 * This machine as a {@linkcode SocketPlatform}.
 *
 * @example
 * ```ts
 * currentSocketPlatform(); // { platform: "linux", runtime: "node" }
 * ```
 */
export function currentSocketPlatform(): SocketPlatform {
  return { platform: platformName(), runtime: deno ? "deno" : "node" };
}

/**
 * Whether a path names a Windows named pipe: `\\.\pipe\<name>` or `\\?\pipe\<name>`, any case.
 *
 * @example
 * ```ts
 * isNamedPipe("\\\\.\\pipe\\notes"); // true
 * isNamedPipe("/tmp/notes.sock"); // false
 * ```
 */
export function isNamedPipe(path: string): boolean {
  return /^\\\\[.?]\\pipe\\[^\\]/i.test(path);
}

/**
 * Why `path` cannot be listened on as a `unix:` address on `where`, or `undefined` when it can be tried.
 *
 * @example
 * ```ts
 * unixListenProblem("/tmp/notes.sock", { platform: "win32", runtime: "node" });
 * // "on Windows, unix: takes a named pipe, \\.\pipe\<name>, not a file path: got '/tmp/notes.sock'"
 * ```
 */
export function unixListenProblem(path: string, where: SocketPlatform): string | undefined {
  if (where.platform !== "win32") return undefined;
  if (where.runtime === "deno") {
    return "Deno on Windows cannot listen on a unix: address (it has neither Unix sockets nor named pipes " +
      "there); listen on tcp:127.0.0.1:<port> or http://127.0.0.1:<port>/mcp, or run the tool on Node";
  }
  if (isNamedPipe(path)) return undefined;
  return `on Windows, unix: takes a named pipe, \\\\.\\pipe\\<name>, not a file path: got '${path}'`;
}
