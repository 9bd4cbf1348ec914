/**
 * Readings from Linux's /proc: a server's CPU time (coarse from /proc/<pid>/stat, fine from the schedstat of
 * each of its threads), its peak RSS, and the machine's load. The bench runs on Linux only because of these.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/** Clock ticks per second, the unit of utime and stime. */
export const CLK_TCK = clockTicks();

function clockTicks(): number {
  try {
    const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/**
 * utime + stime of a process, in milliseconds.
 *
 * @example
 * ```ts
 * const before = cpuMs(pid);
 * ```
 */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/**
 * The same CPU time at nanosecond resolution: the on-CPU time of every thread (/proc/<pid>/task/<tid>/schedstat,
 * first field). At 100 ticks a second, utime+stime moves in 10 ms steps — coarse for a phase of the bare
 * loop, which takes ~100 ms in all — so ratios are also shown from this. NaN where schedstat is missing.
 *
 * @example
 * ```ts
 * const before = preciseCpuMs(pid);
 * ```
 */
export function preciseCpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/**
 * A `kB` field of /proc/<pid>/status, in MiB; `VmHWM` is the peak RSS so far.
 *
 * @example
 * ```ts
 * const peak = statusMiB(pid, "VmHWM");
 * ```
 */
export function statusMiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * This process's (the client's) CPU time, in milliseconds.
 *
 * @example
 * ```ts
 * const before = clientCpuMs();
 * ```
 */
export function clientCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * The 1, 5 and 15 minute load averages.
 *
 * @example
 * ```ts
 * console.log(`load average: ${loadAverage()}`); // "0.52 0.61 0.70"
 * ```
 */
export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
