/** Requests a protocol session has open at once before it stops reading, unless told otherwise. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/**
 * The one bound on in-flight work of every protocol session: a counting semaphore. `take` gets a slot at
 * once (`undefined`) or once one is given back (a promise, first come first served); `give` returns one,
 * passing it straight to the first waiter. A pool made inside another (`new SlotPool(64, shared)`) hands out
 * a slot only with one of the enclosing pool: one pool per connection inside one per listener bounds each
 * connection and all of them together.
 *
 * @example
 * ```ts
 * const shared = new SlotPool(256);
 * const connection = new SlotPool(64, shared);
 * const waiting = connection.take(); // undefined: taken at once, in both pools
 * connection.give();
 * ```
 */
export class SlotPool {
  /** Slots in this pool. */
  readonly size: number;
  readonly #enclosing: SlotPool | undefined;
  #taken = 0;
  readonly #waiters: Array<() => void> = [];

  /** A pool of `size` slots (at least 1), inside `enclosing` when given. */
  constructor(size: number, enclosing?: SlotPool) {
    this.size = Math.max(1, size);
    this.#enclosing = enclosing;
  }

  /** Slots taken now. */
  get taken(): number {
    return this.#taken;
  }

  /** Takes a slot (and one of the enclosing pool): `undefined` when both were free, else a promise. */
  take(): Promise<void> | undefined {
    const own = this.#takeOwn();
    const enclosing = this.#enclosing;
    if (enclosing === undefined) return own;
    return own === undefined ? enclosing.take() : own.then(() => enclosing.take());
  }

  /** Gives a slot back — the enclosing pool's first, so waiters of other pools move on too. */
  give(): void {
    this.#enclosing?.give();
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) return waiter();
    this.#taken--;
  }

  #takeOwn(): Promise<void> | undefined {
    if (this.#taken < this.size) {
      this.#taken++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
