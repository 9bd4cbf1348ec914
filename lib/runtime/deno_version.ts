/**
 * The oldest Deno toolwire runs on. The runtime adapter loads Node's built-in modules (files, child
 * processes, sockets) with `process.getBuiltinModule`, which Deno has since 2.1; on an older Deno the first
 * such load throws a TypeError that names nothing a person could act on. The check costs a start nothing:
 * it runs only once something has failed.
 * @module
 */
import { deno } from "./deno_api.ts";

/** The oldest Deno toolwire runs on, as `major.minor`. */
export const MIN_DENO_VERSION = "2.1";

/**
 * What to tell a person whose Deno is older than {@linkcode MIN_DENO_VERSION}; `undefined` on a Deno that
 * is new enough, and on Node.
 *
 * @example
 * ```ts
 * denoTooOld("2.0.6"); // "toolwire needs Deno 2.1 or later, and this is Deno 2.0.6: run `deno upgrade`"
 * denoTooOld("2.9.6"); // undefined
 * ```
 */
export function denoTooOld(version: string | undefined = deno?.version?.deno): string | undefined {
  if (version === undefined) return undefined;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [minMajor = 0, minMinor = 0] = MIN_DENO_VERSION.split(".").map(Number);
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  return `toolwire needs Deno ${MIN_DENO_VERSION} or later, and this is Deno ${version}: run \`deno upgrade\``;
}
