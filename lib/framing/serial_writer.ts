/** Options for {@linkcode SerialWriter}. */
export interface SerialWriterOptions {
  /** Queued messages are joined into one write up to this many bytes. @default 1048576 */
  maxBatchBytes?: number;
}

/**
 * Writes whole messages to a WritableStream one after another — never interleaved, in the order given —
 * and awaits the sink's backpressure. Messages queued while a write is in flight are joined into one write,
 * so a burst costs one system call, not one per message. A failed sink (a broken pipe) does not throw at
 * writers: {@linkcode SerialWriter.failed} settles, and later writes are dropped.
 *
 * @example
 * ```ts
 * const out = new SerialWriter(stdioWritable("stdout"));
 * await out.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
 * ```
 */
export class SerialWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #maxBatch: number;
  #queue: Uint8Array[] = [];
  #queueDone: Deferred = deferred();
  /** Settles when the batch being written now is written. */
  #inFlight: Deferred | undefined;
  #pumping = false;
  #error: unknown;
  readonly #failed: Deferred<unknown> = deferred<unknown>();

  constructor(sink: WritableStream<Uint8Array>, options: SerialWriterOptions = {}) {
    this.#writer = sink.getWriter();
    this.#maxBatch = options.maxBatchBytes ?? 1 << 20;
  }

  /** Queues one whole message; resolves once it has been handed to the sink (or the sink failed). */
  write(message: Uint8Array): Promise<void> {
    if (this.#error !== undefined) return Promise.resolve();
    this.#queue.push(message);
    const done = this.#queueDone.promise;
    if (!this.#pumping) void this.#pump();
    return done;
  }

  /** Resolves once everything queued so far is written. */
  flush(): Promise<void> {
    // Queued messages go out with the next batch; with none queued, only the batch in flight is left. (The
    // next batch's promise would never settle if nothing more were written.)
    if (this.#queue.length > 0) return this.#queueDone.promise;
    return this.#inFlight?.promise ?? Promise.resolve();
  }

  /** Settles with the sink's error the first time a write fails. */
  get failed(): Promise<unknown> {
    return this.#failed.promise;
  }

  /** Whether the sink has failed. */
  get broken(): boolean {
    return this.#error !== undefined;
  }

  /** Lets go of the sink without closing it (closing stdout would break later diagnostics). */
  release(): void {
    this.#writer.releaseLock();
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    while (this.#queue.length > 0 && this.#error === undefined) {
      const messages = this.#queue;
      const done = this.#queueDone;
      this.#inFlight = done;
      this.#queue = [];
      this.#queueDone = deferred();
      try {
        for (const batch of batches(messages, this.#maxBatch)) {
          await this.#writer.ready;
          await this.#writer.write(batch);
        }
      } catch (error) {
        this.#error = error ?? new Error("write failed");
        this.#failed.resolve(this.#error);
        this.#queue = [];
        this.#queueDone.resolve();
      }
      done.resolve();
    }
    this.#inFlight = undefined;
    this.#pumping = false;
  }
}

function* batches(messages: Uint8Array[], maxBatch: number): Generator<Uint8Array> {
  let start = 0;
  while (start < messages.length) {
    let end = start;
    let size = 0;
    while (end < messages.length && (end === start || size + messages[end]!.length <= maxBatch)) {
      size += messages[end]!.length;
      end++;
    }
    if (end - start === 1) {
      yield messages[start]!;
    } else {
      const joined = new Uint8Array(size);
      let offset = 0;
      for (let i = start; i < end; i++) {
        joined.set(messages[i]!, offset);
        offset += messages[i]!.length;
      }
      yield joined;
    }
    start = end;
  }
}

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
