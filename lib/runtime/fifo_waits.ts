/**
 * What keeps a Node process from exiting after a handler was abandoned in a blocking file call, and the
 * one such call it can end.
 *
 * Node runs file calls on libuv's thread pool, and every way it has to end the process joins that pool
 * first: `process.exit` and `process.reallyExit` shut libuv down before calling `exit()`, and even WASI's
 * `proc_exit`, which calls `exit()` at once, runs libuv's destructor, which joins the pool. None of them
 * kills a thread stuck in a system call, so a handler that timed out while opening a FIFO no one writes
 * (`readFile(fifo)`) holds the exit forever, after its TIMEOUT envelope was written. Nothing in Node calls
 * `_exit` from JavaScript, and a signal would end the process with its own code instead of the one to
 * deliver. What can be done is to give such a thread what it waits for: opening a FIFO blocks until the other
 * end is opened, so opening that end (without blocking) and closing it again lets the open return — a reader
 * then reads end of file at once, a writer gets EPIPE — and the pool can be joined. Nothing is written to
 * the FIFO. Linux shows, for each thread, the system call it is blocked in (`/proc/self/task/<id>/syscall`)
 * and the process's own memory (`/proc/self/mem`), where the path that call opens is.
 *
 * A thread blocked in anything else (a read from a pipe whose writer stays silent) still holds the exit.
 * @module
 */
import type * as NodeFs from "node:fs";
import { nodeProcess } from "./node_process.ts";

/** `openat`'s number on the architectures whose numbers are known here (x86-64; the generic table of arm64 and others). */
const OPENAT: Readonly<Record<string, number>> = { x64: 257, arm64: 56, riscv64: 56, loong64: 56 };

/** `openat`'s "relative to the current directory" (AT_FDCWD, -100) as the kernel shows the argument. */
const AT_FDCWD = 0xffffff9c;

/** How many times the threads are looked at: a released thread may take the next queued open, and block. */
const MAX_ROUNDS = 20;
const ROUND_PAUSE_MS = 5;

/**
 * On Node on Linux, lets every thread of the process that is blocked opening a FIFO go on (see the module
 * documentation), and returns how many it released; 0 anywhere else, and when no file call is in flight.
 * Never throws: it runs on the way out of the process.
 *
 * @example
 * ```ts
 * import { nodeProcess } from "./node_process.ts";
 *
 * releaseFifoWaits();
 * nodeProcess().exit(10);
 * ```
 */
export function releaseFifoWaits(): number {
  const process = nodeProcess();
  if (process.platform !== "linux" || !fileCallsInFlight()) return 0;
  let released = 0;
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = releaseRound();
      if (now === 0) break;
      released += now;
      // Give the released threads the moment they need to leave the call before looking again.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ROUND_PAUSE_MS);
    }
  } catch {
    // What cannot be looked at cannot be released: the exit goes on as it would have.
  }
  return released;
}

/** Whether work was given up on while it ran: see {@linkcode noteAbandonedWork}. */
let abandoned = false;

/**
 * Notes that work the process gave up on (a handler past its time limit, or past the grace after a cancel)
 * may still be running, perhaps in a file call: the exit then looks for threads stuck opening a FIFO. Looking
 * costs milliseconds, so an exit that abandoned nothing does not look — unless Node lists a file call in
 * flight (Node 20 and 24 list them; Node 26 lists none of `node:fs/promises`).
 *
 * @example
 * ```ts
 * noteAbandonedWork(); // the handler timed out; its promise is left to itself
 * ```
 */
export function noteAbandonedWork(): void {
  abandoned = true;
}

/** Whether a pool thread can be stuck in a file call: only after abandoned work, or with one in flight. */
function fileCallsInFlight(): boolean {
  if (abandoned) return true;
  const process = nodeProcess() as { getActiveResourcesInfo?: () => string[] };
  return process.getActiveResourcesInfo === undefined ||
    process.getActiveResourcesInfo().some((name) => name.startsWith("FSReq"));
}

function releaseRound(): number {
  const fs = nodeProcess().getBuiltinModule("node:fs") as typeof NodeFs;
  const openat = OPENAT[nodeProcess().arch];
  if (openat === undefined) return 0;
  let released = 0;
  const mem = fs.openSync("/proc/self/mem", "r");
  try {
    for (const thread of fs.readdirSync("/proc/self/task")) {
      const call = blockedOpen(fs, mem, thread, openat);
      if (call !== undefined && partner(fs, call)) released++;
    }
  } finally {
    fs.closeSync(mem);
  }
  return released;
}

/** A thread's blocked `openat`: the path it opens and how. */
interface BlockedOpen {
  path: string;
  flags: number;
}

function blockedOpen(
  fs: typeof NodeFs,
  mem: number,
  thread: string,
  openat: number,
): BlockedOpen | undefined {
  let line: string;
  try {
    line = fs.readFileSync(`/proc/self/task/${thread}/syscall`, "utf8");
  } catch {
    return undefined;
  }
  // "<number> <arg1> … <arg6> <sp> <pc>" while blocked in a call; "running" or "-1 …" otherwise.
  const [number, dirfd, pathPointer, flags] = line.trim().split(" ");
  if (Number(number) !== openat || dirfd === undefined || pathPointer === undefined || flags === undefined) {
    return undefined;
  }
  const bytes = new Uint8Array(4096);
  const read = fs.readSync(mem, bytes, 0, bytes.length, Number(BigInt(pathPointer)));
  const end = bytes.subarray(0, read).indexOf(0);
  if (end <= 0) return undefined;
  const name = new TextDecoder().decode(bytes.subarray(0, end));
  const base = Number(BigInt(dirfd)) === AT_FDCWD
    ? nodeProcess().cwd()
    : `/proc/self/fd/${Number(BigInt(dirfd))}`;
  return { path: name.startsWith("/") ? name : `${base}/${name}`, flags: Number(BigInt(flags)) };
}

/** Opens and closes the other end of a FIFO a thread waits to open; whether it did. */
function partner(fs: typeof NodeFs, call: BlockedOpen): boolean {
  const { constants } = fs;
  try {
    if (!fs.statSync(call.path).isFIFO()) return false;
    const access = call.flags & 3;
    // O_RDWR never waits; a reader waits for a writer, a writer for a reader.
    if (access === constants.O_RDWR) return false;
    const other = access === constants.O_RDONLY ? constants.O_WRONLY : constants.O_RDONLY;
    fs.closeSync(fs.openSync(call.path, other | constants.O_NONBLOCK));
    return true;
  } catch {
    return false;
  }
}
