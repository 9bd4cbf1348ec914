/**
 * Messages in arrival order, read one at a time: a reader waits until the next one arrives, or fails once
 * the time is up. Shared by the test clients that read a server's output.
 */
export class Inbox<T> {
  readonly #items: T[] = [];
  #read = 0;
  #wake: (() => void) | undefined;

  /** Adds messages and wakes a waiting reader. */
  push(...items: T[]): void {
    this.#items.push(...items);
    this.wake();
  }

  /** Wakes a waiting reader, so it can notice an end or a failure. */
  wake(): void {
    this.#wake?.();
  }

  /** The messages not read yet. */
  unread(): T[] {
    return this.#items.slice(this.#read);
  }

  /**
   * The next message. `check` runs before every wait and may throw (the stream ended, it failed); `seen`
   * describes what arrived, for the timeout's message.
   */
  async next(timeoutMs: number, check: () => void = () => {}, seen: () => string = () => ""): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (this.#read >= this.#items.length) {
      check();
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`no message within ${timeoutMs} ms${seen() === "" ? "" : `; ${seen()}`}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.#items[this.#read++]!;
  }
}
