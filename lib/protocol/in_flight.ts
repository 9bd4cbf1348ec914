import { CancelScope } from "./cancel_scope.ts";
import { SlotPool } from "./slot_pool.ts";

/**
 * The requests a protocol session is answering: the one flow-control design of MCP, LSP and DAP sessions.
 * Each request runs in a slot of a {@linkcode SlotPool}, held until its work — handler and written answer —
 * is done, so a client that floods the server, or stops reading its answers, makes the server stop reading
 * instead of growing without limit. Each request is answered at most once: whoever
 * {@linkcode InFlight.claim}s it first (its handler's answer, or a cancellation) wins. Each has a
 * {@linkcode CancelScope}, which a cancellation or the end of the session aborts.
 *
 * @example
 * ```ts
 * declare function threads(signal: AbortSignal): Promise<object>;
 * declare function respond(id: number, body: object): Promise<void>;
 *
 * const requests = new InFlight<number>(64);
 * const waiting = requests.start(7, whenSettled(async (scope) => {
 *   const body = await threads(scope.signal);
 *   if (requests.claim(7)) await respond(7, body);
 * }));
 * if (waiting !== undefined) await waiting; // the bound was reached: read nothing more until a slot is free
 * ```
 */
export class InFlight<K> {
  readonly #slots: SlotPool;
  /** The requests started and not yet claimed, by key. */
  readonly #open = new Map<K, CancelScope>();
  /** Cancelled requests whose work is still running: they were answered when they were cancelled. */
  readonly #cancelled = new Set<CancelScope>();
  /** Work started and not yet done, minus the cancelled requests. */
  #owed = 0;
  #settled: (() => void) | undefined;

  /** `limit` requests at once (at least 1), inside `enclosing` when given (see {@linkcode SlotPool}). */
  constructor(limit: number, enclosing?: SlotPool) {
    this.#slots = new SlotPool(limit, enclosing);
  }

  /** Whether nothing is owed: no work running or waiting, no answer outstanding. */
  get idle(): boolean {
    return this.#owed === 0;
  }

  /** Whether a request with this key was started and is not yet claimed. */
  has(key: K): boolean {
    return this.#open.has(key);
  }

  /**
   * Runs `work` in a slot: at once (returns `undefined`), or once a slot is free (returns a promise that
   * resolves when the work has started — the caller reads nothing more meanwhile). The slot is held until
   * the work calls `done` (or throws). A request with a key can be claimed or cancelled by that key;
   * without one (an answer to a malformed message), it is answered by its work alone.
   */
  start(key: K | undefined, work: InFlightWork): Promise<void> | undefined {
    const scope = new CancelScope();
    if (key !== undefined) this.#open.set(key, scope);
    this.#owed++;
    const waiting = this.#slots.take();
    if (waiting === undefined) {
      this.#run(key, scope, work);
      return undefined;
    }
    return waiting.then(() => this.#run(key, scope, work));
  }

  /** Takes the right to answer a request: `true` once, for whoever asks first. */
  claim(key: K): boolean {
    return this.#open.delete(key);
  }

  /** Claims a request and aborts its scope with `reason`; whether it was still unclaimed. */
  cancel(key: K, reason: unknown): boolean {
    const scope = this.#open.get(key);
    if (scope === undefined) return false;
    this.#open.delete(key);
    this.#cancelled.add(scope);
    scope.abort(reason);
    this.#owe(-1);
    return true;
  }

  /** Aborts every unclaimed request with `reason`; each may still answer (with what its cancellation gives). */
  abortAll(reason: unknown): void {
    for (const scope of this.#open.values()) scope.abort(reason);
  }

  /**
   * Counts one more answer owed outside any slot (a batch's, until its requests are done and its own answer
   * has started); call the returned function once when it no longer is.
   */
  owe(): () => void {
    this.#owe(1);
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.#owe(-1);
    };
  }

  /**
   * Resolves once all work started so far is done, but for cancelled requests (answered when cancelled): the
   * end of the input waits for this. `undefined` when nothing is owed. One caller at a time.
   */
  answered(): Promise<void> | undefined {
    if (this.#owed === 0) return undefined;
    return new Promise<void>((resolve) => (this.#settled = resolve));
  }

  #run(key: K | undefined, scope: CancelScope, work: InFlightWork): void {
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      this.#finish(key, scope);
    };
    try {
      work(scope, done);
    } catch {
      done();
    }
  }

  #finish(key: K | undefined, scope: CancelScope): void {
    this.#slots.give();
    if (key !== undefined && this.#open.get(key) === scope) this.#open.delete(key);
    // A cancelled request was counted as answered when it was cancelled.
    if (!this.#cancelled.delete(scope)) this.#owe(-1);
  }

  #owe(change: number): void {
    this.#owed += change;
    if (this.#owed === 0) this.#settled?.();
  }
}

/**
 * A request's work in an {@linkcode InFlight} slot: it calls `done` once, when its handler has finished and
 * its answer is written. A callback rather than a returned promise, so that an answer written from a
 * promise's reaction frees its slot from the write's own reaction (docs/performance.md#rules-for-the-per-call-path).
 *
 * @example
 * ```ts
 * declare function respond(body: object): Promise<void>;
 *
 * const work: InFlightWork = (_scope, done) => void respond({ ok: true }).then(done, done);
 * ```
 */
export type InFlightWork = (scope: CancelScope, done: () => void) => void;

/**
 * Work that is done once the promise `work` returns settles: the form for a handler written as an async
 * function.
 *
 * @example
 * ```ts
 * declare const requests: InFlight<number>;
 * declare function answer(id: number, signal: AbortSignal): Promise<void>;
 *
 * requests.start(7, whenSettled((scope) => answer(7, scope.signal)));
 * ```
 */
export function whenSettled(work: (scope: CancelScope) => Promise<unknown>): InFlightWork {
  return (scope, done) => void work(scope).then(done, done);
}
