/**
 * The one place where "a value now, or a promise of it" is told apart (as hono's `compose` does): the
 * methods and handlers on a call's path may answer at once, and such an answer then costs no promise
 * reaction. Every other module calls `whenReady` instead of testing for a promise itself.
 * @module
 */

/**
 * A value, or a promise of it.
 *
 * @example
 * ```ts
 * const now: MaybePromise<number> = 1;
 * const later: MaybePromise<number> = Promise.resolve(1);
 * ```
 */
export type MaybePromise<T> = T | PromiseLike<T>;

/**
 * Whether a value is a promise or any other thenable (what a handler returns is awaited only then).
 *
 * @example
 * ```ts
 * isThenable(Promise.resolve(1)); // true
 * isThenable({ then: 1 }); // false
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/**
 * Calls `then` with the value: at once when it is one, once it settles when it is a promise or another
 * thenable (then `failed`, if given, takes a rejection).
 *
 * @example
 * ```ts
 * whenReady(2, (n) => n * 2); // 4, at once
 * await whenReady(Promise.resolve(2), (n) => n * 2); // 4
 * ```
 */
export function whenReady<T, R>(
  value: MaybePromise<T>,
  then: (ready: T) => R | Promise<R>,
  failed?: (error: unknown) => R | Promise<R>,
): R | Promise<R> {
  return isThenable(value) ? Promise.resolve(value).then(then, failed) : then(value as T);
}
