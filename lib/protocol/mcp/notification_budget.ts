/**
 * The bound on a session's progress and log notifications: written while the client reads them, dropped
 * (and counted on stderr) once too much waits for it — a client that asked for logs and stopped reading must
 * not grow the server without bound. Every transport's notifications pass through one.
 * @module
 */

/**
 * Notification bytes a session holds for a client that does not read; beyond them, notifications are dropped.
 *
 * @example
 * ```ts
 * MAX_QUEUED_NOTIFICATION_BYTES; // 4194304
 * ```
 */
export const MAX_QUEUED_NOTIFICATION_BYTES = 4 * 1024 * 1024;

/**
 * Where a session's notifications go: it takes one message's text, and returns a promise that settles once
 * the text is handed to the client (or `undefined` when it already is).
 *
 * @example
 * ```ts
 * const sink: NotificationSink = (text) => void console.log(text);
 * ```
 */
export type NotificationSink = (text: string) => Promise<void> | undefined | void;

/**
 * A sink with the bound in front of it.
 *
 * @example
 * ```ts
 * const budget = new NotificationBudget((text) => void console.log(text), console.error);
 * budget.send('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}');
 * ```
 */
export class NotificationBudget {
  readonly #sink: NotificationSink;
  readonly #log: ((message: string) => void) | undefined;
  #queuedBytes = 0;
  #dropped = 0;

  constructor(sink: NotificationSink, log: ((message: string) => void) | undefined) {
    this.#sink = sink;
    this.#log = log;
  }

  /** Hands one notification's text on, unless the client already has too much waiting. */
  send(text: string): void {
    if (this.#queuedBytes > MAX_QUEUED_NOTIFICATION_BYTES) {
      this.#dropped++;
      return;
    }
    const written = this.#sink(text);
    if (written === undefined) return;
    this.#queuedBytes += text.length;
    void written.then(() => {
      this.#queuedBytes -= text.length;
      if (this.#dropped > 0 && this.#queuedBytes === 0) {
        this.#log?.(
          `mcp: dropped ${this.#dropped} progress or log notification(s): the client did not read them`,
        );
        this.#dropped = 0;
      }
    });
  }
}
