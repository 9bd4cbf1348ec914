/**
 * A counting semaphore for in-flight work: `take` gets a slot at once (`undefined`) or once one is given
 * back (a promise, first come first served); `give` returns one, passing it straight to the first waiter.
 * One pool bounds one MCP connection; a pool shared by several connections bounds them all together.
 *
 * @example
 * ```ts
 * const pool = new SlotPool(2);
 * const waiting = pool.take(); // undefined: taken at once
 * pool.give();
 * ```
 */
export class SlotPool {
  readonly size: number;
  #taken = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(size: number) {
    this.size = Math.max(1, size);
  }

  /** Slots taken now. */
  get taken(): number {
    return this.#taken;
  }

  /** Takes a slot: `undefined` when one was free, else a promise that resolves once one is handed over. */
  take(): Promise<void> | undefined {
    if (this.#taken < this.size) {
      this.#taken++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Gives a slot back, or passes it to the first waiter. */
  give(): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter();
    else this.#taken--;
  }
}
