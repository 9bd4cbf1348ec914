/**
 * A deep copy of JSON data — what a manifest holds, and what it prints. Not `structuredClone`: in Node 20
 * its first call sets up a MessageChannel and loads the worker modules, several milliseconds of the startup
 * of every `mcp serve`.
 *
 * @example
 * ```ts
 * const defaults = copyJson(["a", "b"]);
 * ```
 */
export function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
