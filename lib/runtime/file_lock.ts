import type { FileHandle } from "node:fs/promises";
import { missingPermission } from "./permission.ts";
import { nodeFs as fs, nodeOs as os, nodePath, nodeProcess } from "./node_process.ts";
import { monotonicMs } from "./process.ts";
import { linkLockFile } from "./lock_link.ts";
import {
  type FileLockOptions,
  type FileLockSignal,
  type FileLockState,
  FileLockTimeoutError,
} from "./file_lock_types.ts";

/** How long a holder may go without refreshing its lock before others treat it as stale. */
const DEFAULT_STALE_MS = 30_000;
/** A lock file whose content cannot be read (not written by this module, or a directory) is stale after this. */
const UNREADABLE_GRACE_MS = 2_000;
/** The longest pause between two attempts while a live holder has the lock. */
const MAX_PAUSE_MS = 25;
/** How many guards deep a breaker goes when breakers themselves died mid-break (each level needs a death). */
const MAX_BREAK_DEPTH = 3;
/** A lock file is a few dozen bytes; more than this is not one of ours. */
const MAX_LOCK_BYTES = 4096;

/**
 * What {@linkcode withFileLock} runs, in this module that it loads on its first call (file_lock_api.ts).
 *
 * @example
 * ```ts
 * const count = await holdFileLock("/tmp/app/counter.lock", () => 1, { timeoutMs: 5_000 });
 * ```
 */
export async function holdFileLock<T>(
  path: string,
  fn: (lock: FileLockState) => T | Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const deadline = options.timeoutMs === undefined
    ? Infinity
    : monotonicMs() + Math.max(0, options.timeoutMs);
  const gate = nodePath().resolve(path);
  await enterGate(gate, path, deadline, options);
  try {
    const held = await acquire(path, staleMs, deadline, options);
    const heartbeat = setInterval(() => void refresh(path), Math.max(10, staleMs / 3));
    try {
      return await fn({ recovered: held.recovered });
    } finally {
      clearInterval(heartbeat);
      await releaseOwn(path, held.token);
    }
  } finally {
    leaveGate(gate);
  }
}

/**
 * Waiters in one process queue in memory, one of them at a time at the file: they do not poll the file
 * system against each other, they are served in order, and a process killed mid-attempt leaves at most one
 * temporary file per lock.
 */
interface Gate {
  waiters: (() => void)[];
}

const gates = new Map<string, Gate>();

async function enterGate(
  key: string,
  path: string,
  deadline: number,
  options: FileLockOptions,
): Promise<void> {
  throwIfAborted(options.signal);
  const gate = gates.get(key);
  if (gate === undefined) {
    gates.set(key, { waiters: [] });
    return;
  }
  if (deadline - monotonicMs() <= 0) throw new FileLockTimeoutError(path, options.timeoutMs ?? 0);
  await new Promise<void>((resolvePromise, reject) => {
    const signal = options.signal;
    const leave = (error: unknown) => {
      const index = gate.waiters.indexOf(enter);
      if (index !== -1) gate.waiters.splice(index, 1);
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    };
    const onAbort = () => leave(abortReason(signal!));
    const enter = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolvePromise();
    };
    const timer = deadline === Infinity ? undefined : setTimeout(
      () => leave(new FileLockTimeoutError(path, options.timeoutMs ?? 0)),
      deadline - monotonicMs(),
    );
    gate.waiters.push(enter);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Hands the gate to the next waiter in this process, or closes it. */
function leaveGate(key: string): void {
  const gate = gates.get(key)!;
  const next = gate.waiters.shift();
  if (next === undefined) gates.delete(key);
  else next();
}

async function acquire(
  path: string,
  staleMs: number,
  deadline: number,
  options: FileLockOptions,
): Promise<{ token: string; recovered: boolean }> {
  const token = newToken();
  let recovered = false;
  let pauseMs = 1;
  for (;;) {
    throwIfAborted(options.signal);
    if (await create(path, token)) return { token, recovered };
    // Waiting only looks (cheaper than an attempt to create): a crowd of waiters must not slow the holder.
    for (;;) {
      const seen = await inspect(path, staleMs);
      if (seen === "absent") break;
      if (seen === "stale" && await breakStale(path, staleMs, 0)) {
        recovered = true;
        break;
      }
      const left = deadline - monotonicMs();
      if (left <= 0) throw new FileLockTimeoutError(path, options.timeoutMs ?? 0);
      await pause(Math.min(left, pauseMs * (0.5 + Math.random())), options.signal);
      pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
    }
  }
}

/**
 * Takes `path` if nobody holds it. The content goes to a temporary file first and is hard-linked into place,
 * which fails if the lock exists: a reader never sees a lock without its owner.
 */
async function create(path: string, token: string): Promise<boolean> {
  const text = JSON.stringify({
    pid: nodeProcess().pid,
    host: hostName(),
    token,
    acquired_at: new Date().toISOString(),
  });
  const temporary = `${path}.${token}.tmp`;
  try {
    await fs().writeFile(temporary, text, { mode: 0o600 });
    return await linkLockFile(temporary, path, text);
  } finally {
    // Also after a failed write (a full disk): the empty file must not stay behind.
    await fs().rm(temporary, { force: true }).catch(() => {});
  }
}

/**
 * Whether the lock at `path` is absent, held, or stale. The content and the time are read from one open
 * file, so a lock replaced meanwhile is never judged by its predecessor's age.
 */
async function inspect(path: string, staleMs: number): Promise<"absent" | "live" | "stale"> {
  const found = await readLock(path);
  if (found === undefined) return "absent";
  const age = Date.now() - found.mtimeMs;
  const owner = parseOwner(found.text);
  if (owner === undefined) return age > UNREADABLE_GRACE_MS ? "stale" : "live";
  if (owner.host === hostName() && !isProcessAlive(owner.pid)) return "stale";
  return age > staleMs ? "stale" : "live";
}

/**
 * Removes the stale lock at `path` if, under the guard `<path>.break`, it is still stale. Returns whether
 * it removed it; `false` also when another breaker holds the guard (after breaking that guard if it is
 * stale itself).
 */
async function breakStale(path: string, staleMs: number, depth: number): Promise<boolean> {
  const guard = `${path}.break`;
  const token = newToken();
  if (!(await create(guard, token))) {
    if (depth < MAX_BREAK_DEPTH && await inspect(guard, staleMs) === "stale") {
      await breakStale(guard, staleMs, depth + 1);
    }
    return false;
  }
  try {
    // Judged again under the guard: between the first look and now another breaker may have removed it
    // and a live process taken the lock afresh.
    if (await inspect(path, staleMs) !== "stale") return false;
    await fs().rm(path, { recursive: true, force: true });
    await removeLeftovers(path);
    return true;
  } finally {
    await releaseOwn(guard, token);
  }
}

/**
 * Temporary files of lock attempts whose makers died between writing and removing them. A live attempt's
 * file may go too: its link then fails with ENOENT and it simply tries again.
 */
async function removeLeftovers(path: string): Promise<void> {
  const { basename, dirname, join } = nodePath();
  const prefix = `${basename(path)}.`;
  const directory = dirname(path);
  for (const name of await fs().readdir(directory)) {
    if (name.startsWith(prefix) && name.endsWith(".tmp")) {
      await fs().rm(join(directory, name), { force: true });
    }
  }
}

async function releaseOwn(path: string, token: string): Promise<void> {
  try {
    const found = await readLock(path);
    if (found !== undefined && parseOwner(found.text)?.token === token) await fs().rm(path, { force: true });
  } catch {
    // Unremovable: the lock goes stale once the refreshes stop (see withFileLock).
  }
}

async function refresh(path: string): Promise<void> {
  const now = new Date();
  await fs().utimes(path, now, now).catch(() => {});
}

async function readLock(path: string): Promise<{ text: string | undefined; mtimeMs: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await fs().open(path, "r");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    const stat = await fs().lstat(path).catch((lstatError: unknown) => {
      if (errorCode(lstatError) === "ENOENT") return undefined;
      throw lstatError;
    });
    return stat === undefined ? undefined : { text: undefined, mtimeMs: stat.mtimeMs };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > MAX_LOCK_BYTES) return { text: undefined, mtimeMs: stat.mtimeMs };
    const buffer = new Uint8Array(MAX_LOCK_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0);
    return { text: new TextDecoder().decode(buffer.subarray(0, bytesRead)), mtimeMs: stat.mtimeMs };
  } finally {
    await handle.close();
  }
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

function parseOwner(text: string | undefined): LockOwner | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { pid, host, token } = value as Record<string, unknown>;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (typeof host !== "string" || typeof token !== "string") return undefined;
  return { pid, host, token };
}

/** Whether a process with this id exists on this host. Signal 0 checks without sending; EPERM means it exists. */
function isProcessAlive(pid: number): boolean {
  try {
    nodeProcess().kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

let host: string | undefined;

/** This host's name; "" when the runtime may not ask (Deno without --allow-sys): then every lock is local. */
function hostName(): string {
  if (host !== undefined) return host;
  try {
    host = os().hostname();
  } catch (error) {
    if (missingPermission(error) === undefined) throw error;
    host = "";
  }
  return host;
}

function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function throwIfAborted(signal: FileLockSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

function abortReason(signal: FileLockSignal): unknown {
  return signal.reason ?? new DOMException("the wait for a lock was aborted", "AbortError");
}

function pause(ms: number, signal: FileLockSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    // An abort event fires once: a signal aborted before this pause would never wake it.
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
