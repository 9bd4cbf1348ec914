/**
 * Planting lock files the way `withFileLock` writes them (docs/idempotency.md, "The file lock"), and
 * waiting on the file system, for tests that set up a crashed or a live holder.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";

/** Writes a lock file held by `pid` on this host, last refreshed `ageMs` ago. */
export function plantLock(path: string, pid: number, ageMs = 0): void {
  const token = crypto.randomUUID().replaceAll("-", "");
  writeFileSync(
    path,
    JSON.stringify({ pid, host: hostname(), token, acquired_at: new Date().toISOString() }),
  );
  backdate(path, ageMs);
}

/** Sets a file's modification time `ageMs` into the past. */
export function backdate(path: string, ageMs: number): void {
  const then = new Date(Date.now() - ageMs);
  utimesSync(path, then, then);
}

/** The pid of a process that has exited and been reaped: no process has it now. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["--version"], { stdio: "ignore" });
  await new Promise((resolve) => child.on("close", resolve));
  return child.pid!;
}

/** Polls until `predicate` holds; fails after `timeoutMs`, naming what it waited for. */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Waits until `dir` holds a file whose name matches `pattern` (or the time is up, when `orAfterMs` is given). */
export async function waitForFile(dir: string, pattern: RegExp, orAfterMs?: number): Promise<boolean> {
  const until = Date.now() + (orAfterMs ?? 15_000);
  for (;;) {
    if (existsSync(dir) && readdirSync(dir).some((name) => pattern.test(name))) return true;
    if (Date.now() > until) {
      if (orAfterMs !== undefined) return false;
      throw new Error(`timed out waiting for a file matching ${pattern} in ${dir}`);
    }
    await sleep(10);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
