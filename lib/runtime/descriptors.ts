/**
 * How many more file descriptors this process may open: its soft limit less those open now (Linux, from
 * /proc; `undefined` elsewhere or when /proc cannot be read). A server keeps its connections within this
 * headroom, so that it can still start a child or open a file — and because Deno's HTTP server stops
 * accepting for good once an accept fails for want of a descriptor.
 * @module
 */
import { nodeFs } from "./node_process.ts";

/**
 * The descriptors left under the soft limit, or `undefined` when it cannot be told.
 *
 * @example
 * ```ts
 * const left = await descriptorHeadroom(); // e.g. 1000 under `ulimit -n 1024`
 * ```
 */
export async function descriptorHeadroom(): Promise<number | undefined> {
  try {
    const limits = await nodeFs().readFile("/proc/self/limits", "utf8");
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
    if (soft === undefined || soft === "unlimited") return undefined;
    const open = (await nodeFs().readdir("/proc/self/fd")).length;
    return Number(soft) - open;
  } catch {
    return undefined;
  }
}
