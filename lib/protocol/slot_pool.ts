/**
 * Requests a protocol session has open at once before it stops reading, unless told otherwise. It lives
 * here, with the pool that enforces it, so that `mcp serve` does not load the LSP/DAP request table
 * (in_flight.ts) into the first npm chunk for one number.
 */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/**
 * The one bound on in-flight work of every protocol session: a counting semaphore. `take` gets a slot at
 * once (`undefined`) or once one is given back (a promise, first come first served); `give` returns one,
 * passing it straight to the first waiter; `whenFree` waits for room without taking it. One pool bounds one
 * MCP connection (a slot held until the answer is written) or the running requests of an LSP/DAP session;
 * a pool shared by several connections bounds them all together.
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
  /** Who waits only for room, not for a slot: told each time a slot comes free. */
  #roomWaiters: Array<() => void> = [];

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
    if (waiter !== undefined) return waiter();
    this.#taken--;
    if (this.#roomWaiters.length === 0) return;
    const roomWaiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const resolve of roomWaiters) resolve();
  }

  /** Resolves once fewer than `size` slots are taken: `undefined` when there is room now. Takes nothing. */
  whenFree(): Promise<void> | undefined {
    if (this.#taken < this.size) return undefined;
    return new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
  }
}
