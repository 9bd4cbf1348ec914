/**
 * What a program hands on to a child or looks at around it: the whole environment, whether its names ignore
 * case, the working directory, and whether a path may be read without asking. Apart from process.ts: a
 * tool's own start needs none of them.
 * @module
 */
import { nodeProcess } from "./node_process.ts";
import { deno } from "./deno_api.ts";

/**
 * A copy of the whole environment, for handing to a child process.
 *
 * @example
 * ```ts
 * const env = { ...allEnv(), NO_COLOR: "1" };
 * ```
 */
export function allEnv(): Record<string, string> {
  if (deno) return deno.env.toObject();
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(nodeProcess().env)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * Whether environment variable names ignore case, as on Windows, where `Path` is `PATH`.
 *
 * @example
 * ```ts
 * const key = envNamesIgnoreCase() ? name.toUpperCase() : name;
 * ```
 */
export function envNamesIgnoreCase(): boolean {
  return deno ? deno.build.os === "windows" : nodeProcess().platform === "win32";
}

/**
 * The current working directory.
 *
 * @example
 * ```ts
 * const here = currentDir();
 * ```
 */
export function currentDir(): string {
  return deno ? deno.cwd() : nodeProcess().cwd();
}

/**
 * Whether this run may read a path without asking: always on Node; on Deno when `--allow-read` covers it.
 * A look the program can do without is skipped otherwise, where reading would make Deno stop and prompt a
 * person at a terminal.
 *
 * @example
 * ```ts
 * if (mayRead("/usr/bin/node")) console.error("the runtime can be looked at");
 * ```
 */
export function mayRead(path: string): boolean {
  const state = deno?.permissions?.querySync?.({ name: "read", path }).state;
  return state === undefined || state === "granted";
}
