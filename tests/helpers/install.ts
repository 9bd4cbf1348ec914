/**
 * Running the real `mcp install` against files in a temporary directory that is also HOME, so nothing can
 * touch the real home; and running it as an unprivileged user, for the behaviour that differs under root.
 */
import { execFileSync } from "node:child_process";
import { chownSync, lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type Loose, NOTES, run, type RunResult, tempDir } from "./run.ts";

/** A temporary directory that is HOME and the working directory of every install in one test. */
export interface Sandbox {
  home: string;
  cleanup(): void;
}

/** A fresh sandbox. */
export function sandbox(): Sandbox {
  const dir = tempDir("toolwire-install-");
  return { home: dir.path, cleanup: dir.cleanup };
}

// The variables that move a client's configuration are cleared, so the defaults under HOME are what counts.
// Deno keeps its cache under HOME unless told otherwise: it stays where it was, outside the sandbox.
export function sandboxEnv(box: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: box.home,
    XDG_CONFIG_HOME: "",
    CLAUDE_CONFIG_DIR: "",
    APPDATA: "",
    // The toolwire binary keeps its Node compile cache under HOME too: it stays where it was.
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
    DENO_DIR: process.env.DENO_DIR || join(homedir(), ".cache", "deno"),
    ...extra,
  };
}

/** Options of {@linkcode install}. */
export interface InstallOptions {
  /** The program before `mcp install`. @default the `notes` example */
  program?: readonly string[];
  env?: Record<string, string>;
  /** @default the sandbox */
  cwd?: string;
  /** Run as the unprivileged user of {@linkcode UNPRIVILEGED}. */
  unprivileged?: boolean;
  /** With `unprivileged`: another user id (and group), which needs `setpriv`. @default 65534 */
  uid?: number;
}

/** Runs `<program> --format json mcp install <args>` in the sandbox. */
export async function install(
  box: Sandbox,
  args: string[],
  options: InstallOptions = {},
): Promise<RunResult> {
  const argv = [...(options.program ?? NOTES), "--format", "json", "mcp", "install", ...args];
  const env = sandboxEnv(box, options.env);
  if (options.unprivileged === true) {
    if (UNPRIVILEGED.prefix === undefined) throw new Error(UNPRIVILEGED.skip);
    const uid = options.uid ?? UNPRIVILEGED.uid;
    const prefix = uid === UNPRIVILEGED.uid
      ? UNPRIVILEGED.prefix
      : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
    // Deno compiles the sources into its cache: the user gets one of its own.
    env.DENO_DIR = denoDirOf(uid);
    return await run([...prefix, ...argv], { env, cwd: options.cwd ?? box.home });
  }
  return await run(argv, { env, cwd: options.cwd ?? box.home });
}

/** The user `nobody` (65534) and how to run a program as it, or why that is not possible here. */
export const UNPRIVILEGED: { uid: number; gid: number; prefix: string[] | undefined; skip: string } = (() => {
  const uid = 65534;
  const gid = 65534;
  if (process.platform === "win32") return { uid, gid, prefix: undefined, skip: "no POSIX users on Windows" };
  if (process.getuid?.() !== 0) {
    return { uid, gid, prefix: undefined, skip: "only root can run a program as another user" };
  }
  const prefix = [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups"];
  try {
    execFileSync("setpriv", [...prefix, "true"], { stdio: "ignore" });
    return { uid, gid, prefix: ["setpriv", ...prefix], skip: "" };
  } catch {
    try {
      execFileSync("runuser", ["-u", "nobody", "--", "true"], { stdio: "ignore" });
      return { uid, gid, prefix: ["runuser", "-u", "nobody", "--"], skip: "" };
    } catch {
      return { uid, gid, prefix: undefined, skip: "neither setpriv nor runuser can run a program as nobody" };
    }
  }
})();

function denoDirOf(uid: number): string {
  const dir = join(tmpdir(), `toolwire-test-deno-${uid}`);
  mkdirSync(dir, { recursive: true });
  chownSync(dir, uid, uid);
  return dir;
}

/** Whether the tests run as root. */
export const AS_ROOT = process.getuid?.() === 0;

/** Hands a sandbox (and what is in it) to the unprivileged user. */
export function giveToUnprivileged(box: Sandbox): void {
  const give = (path: string) => {
    chownSync(path, UNPRIVILEGED.uid, UNPRIVILEGED.gid);
    if (lstatSync(path).isDirectory()) { for (const name of readdirSync(path)) give(join(path, name)); }
  };
  give(box.home);
}

/** A file's JSON. */
export function readJson(path: string): Loose {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Every file below a directory, as relative paths. */
export function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) out.push(...filesBelow(path).map((inner) => join(name, inner)));
    else out.push(name);
  }
  return out.sort();
}

/** The backups `mcp install` kept beside a configuration. */
export function backupsOf(config: string): string[] {
  const dir = join(config, "..");
  const base = config.slice(dir.length + 1);
  return readdirSync(dir).filter((name) => name.startsWith(`${base}.`) && name.endsWith(".bak"));
}
