/**
 * A number of bytes several holders share — the unfinished messages of every connection of one listener —
 * so that many connections, each within its own limit, cannot together hold more than the machine can.
 *
 * @example
 * ```ts
 * const budget = new ByteBudget(256 * 1024 * 1024);
 * if (budget.take(4096)) {
 *   // hold the bytes …
 *   budget.give(4096);
 * }
 * ```
 */
export class ByteBudget {
  /** The bytes that may be held at once. */
  readonly limit: number;
  #used = 0;

  /** A budget of `limit` bytes; a limit that is not a whole number ≥ 1 throws a RangeError. */
  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`a byte budget must be a whole number of bytes, at least 1; got ${limit}`);
    }
    this.limit = limit;
  }

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` when they fit; `false` (taking nothing) when they do not. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  /** Gives back bytes taken. */
  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
