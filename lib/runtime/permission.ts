/**
 * Deno runs code with no permissions unless granted (`--allow-env`, `--allow-read`, …), and refuses an
 * operation it was not granted with a `NotCapable` error. Node's permission model (`--permission`) refuses
 * with `ERR_ACCESS_DENIED`. Both mean the same for a tool: it was started without a permission it needs.
 * @module
 */

/** A permission the runtime refused. */
export interface MissingPermission {
  /** What the runtime said. */
  message: string;
  /** The flag to start the tool with, when the runtime names one (`--allow-env`). */
  flag?: string;
}

/**
 * The missing permission behind `error`, or `undefined` when it is another kind of error.
 *
 * @example
 * ```ts
 * try {
 *   Deno.env.get("HOME");
 * } catch (error) {
 *   const missing = missingPermission(error);
 *   if (missing) console.error(`start the tool with ${missing.flag ?? "the permission it needs"}`);
 * }
 * ```
 */
export function missingPermission(error: unknown): MissingPermission | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
  if (name !== "NotCapable" && code !== "ERR_ACCESS_DENIED") return undefined;
  const text = typeof message === "string" ? message : String(error);
  const flag = text.match(/--allow-[a-z-]+/)?.[0];
  return flag === undefined ? { message: text } : { message: text, flag };
}
