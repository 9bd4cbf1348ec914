/**
 * Ending a child's whole process tree on Windows, which has no process groups: `taskkill /T /F` walks the
 * tree down from the child by parent ids and ends each process. It can only do so while the child is
 * alive — once it has exited, what it started has no living parent to be found by, and its id may be
 * reused — so a child is killed this way only before its exit is seen.
 * @module
 */
import type * as NodeChildProcess from "node:child_process";
import { nodePath, nodeProcess } from "./node_process.ts";
import { envValue } from "./program_host.ts";
import type { ProgramLaunch } from "./program_resolution.ts";

/**
 * The command that ends the process `pid` and every process it started: `taskkill /T /F /PID <pid>`, from
 * the system directory (never whatever `taskkill` is first on `Path`).
 *
 * @example
 * ```ts
 * taskkillLaunch(4242, { SystemRoot: "C:\\Windows" });
 * // { file: "C:\\Windows\\System32\\taskkill.exe", args: ["/T", "/F", "/PID", "4242"], verbatim: false }
 * ```
 */
export function taskkillLaunch(pid: number, env: Record<string, string>): ProgramLaunch {
  const root = envValue(env, "SystemRoot", "win32") ?? "C:\\Windows";
  return {
    file: nodePath().win32.join(root, "System32", "taskkill.exe"),
    args: ["/T", "/F", "/PID", String(pid)],
    verbatim: false,
  };
}

/**
 * Starts `taskkill` on the tree of `pid` and lets it run on its own. It is detached: Node puts the
 * children it spawns in a job that ends them when this process exits, and this is often the last thing
 * this process does. Returns whether it could be started.
 *
 * @example
 * ```ts
 * declare const childPid: number;
 * killProcessTree(childPid);
 * ```
 */
export function killProcessTree(pid: number): boolean {
  const process = nodeProcess();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  const launch = taskkillLaunch(pid, env);
  try {
    const childProcess = process.getBuiltinModule("node:child_process") as typeof NodeChildProcess;
    const taskkill = childProcess.spawn(launch.file, launch.args, {
      stdio: "ignore",
      detached: true,
      windowsHide: true,
    });
    taskkill.once("error", () => {});
    taskkill.unref();
    return true;
  } catch {
    return false;
  }
}
