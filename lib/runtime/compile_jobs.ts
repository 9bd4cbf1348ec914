/**
 * Node's exit can deadlock: `process.exit` shuts V8's worker threads down before the heap, and a background
 * compile job (Sparkplug's) that is waiting for the main thread to collect garbage then waits for ever
 * (nodejs/node#54918, seen on Node 26 about once in ten exits of a `toolwire check` that read 64 MiB lines;
 * never in 90 with these jobs on the main thread). A process that churns through big outputs turns them off.
 * @module
 */
import { deno } from "./deno_api.ts";
import { nodeProcess } from "./node_process.ts";

/**
 * On Node, compiles baseline code on the main thread from now on, so that no background compile job can
 * hold the exit; nothing on Deno. Loading `node:v8` costs ~1.5 ms, so only a long, memory-heavy command
 * calls it.
 *
 * @example
 * ```ts
 * compileOnMainThread();
 * ```
 */
export function compileOnMainThread(): void {
  if (deno !== undefined) return;
  const v8 = nodeProcess().getBuiltinModule("node:v8") as { setFlagsFromString(flags: string): void };
  v8.setFlagsFromString("--no-concurrent-sparkplug");
}
