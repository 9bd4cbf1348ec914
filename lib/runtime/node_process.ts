/**
 * Node's `process`, read from the global instead of imported. Importing `node:process` as an ES module makes
 * Node build a module facade that reads every property of `process` once — creating stdin, stdout and stderr
 * and computing `allowedNodeEnvironmentFlags` — about a millisecond of every start, before the tool has done
 * anything. Deno 2 has the same global.
 * @module
 */

/**
 * The running process (Node's `process`, or Deno's Node-compatible one).
 *
 * @example
 * ```ts
 * import { process } from "./node_process.ts";
 *
 * process.exitCode = 0;
 * ```
 */
export const process: NodeJS.Process = globalThis.process;
