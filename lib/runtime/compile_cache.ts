/**
 * Node's module compile cache for a program: V8 keeps the code it compiled for the program's modules in a
 * directory, and the next start reads it back instead of compiling again.
 * @module
 */
import { deno } from "./deno_api.ts";
import { nodeOs, nodePath, nodeProcess } from "./node_process.ts";

/** The part of `node:module` this uses; Node 20 has none of it (the types are Node 20's). */
interface CompileCacheModule {
  enableCompileCache?(directory: string): { directory?: string };
}

/**
 * Turns on Node's compile cache (Node >= 22.1) in `$XDG_CACHE_HOME/<program>/node-compile-cache`, or under
 * `~/.cache` without that variable, and returns the directory in use. Only modules compiled after the call
 * are cached, so a program calls it first and imports the rest of itself with `import()`.
 *
 * The cache is an optimisation, so nothing here is ever an error: on Node 20, on Deno (which keeps its own
 * code cache), or when the directory cannot be made or written, the program runs as it would without it and
 * the result is `undefined`. `NODE_COMPILE_CACHE=<dir>` (Node's own, set before the start) wins, and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns the cache off.
 *
 * @example
 * ```ts
 * enableCompileCache("my-tool"); // ~/.cache/my-tool/node-compile-cache, or undefined on Deno
 * const program = "./my_tool_main.ts"; // the rest of the program, compiled with the cache on
 * await import(program);
 * ```
 */
export function enableCompileCache(program: string): string | undefined {
  if (deno) return undefined;
  const process = nodeProcess();
  const module = process.getBuiltinModule("node:module") as CompileCacheModule;
  if (typeof module.enableCompileCache !== "function") return undefined;
  try {
    const path = nodePath();
    const xdg = process.env.XDG_CACHE_HOME;
    // The XDG rule: a relative value is ignored.
    const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(nodeOs().homedir(), ".cache");
    return module.enableCompileCache(path.join(base, program, "node-compile-cache")).directory;
  } catch {
    // No home directory to be found: no cache.
    return undefined;
  }
}
