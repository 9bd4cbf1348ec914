/** Options for {@linkcode SerialWriter}. */
export interface SerialWriterOptions {
  /** Queued messages are joined into one write up to this many bytes (a text message counts its length). @default 1048576 */
  maxBatchBytes?: number;
}

const encoder = new TextEncoder();

// The next turn of the event loop, after every pending microtask: setImmediate where the runtime has it
// (Node, Deno), else a zero timeout.
const schedule = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate ??
  ((run: () => void) => setTimeout(run, 0));

/**
 * Writes whole messages to a WritableStream one after another — never interleaved, in the order given —
 * and awaits the sink's backpressure. Writing starts on the next turn of the event loop, and messages queued
 * until then or while a write is in flight are joined into one write: the answers to one chunk of requests
 * cost one system call, not one per message. A message may be bytes or text (UTF-8 encoded
 * here): text queued together is joined and encoded once, which in Node 20 is far cheaper than one
 * TextEncoder call — and one ArrayBuffer — per message. A failed sink (a broken pipe) does not throw at
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
  #queue: Array<Uint8Array | string> = [];
  #queueDone: Deferred = deferred();
  /** Settles when the messages taken off the queue by the pump are written; undefined when idle. */
  #writing: Deferred | undefined;
  #scheduled = false;
  #error: unknown;
  readonly #failed: Deferred<unknown> = deferred<unknown>();

  constructor(sink: WritableStream<Uint8Array>, options: SerialWriterOptions = {}) {
    this.#writer = sink.getWriter();
    this.#maxBatch = options.maxBatchBytes ?? 1 << 20;
  }

  /** Queues one whole message; resolves once it has been handed to the sink (or the sink failed). */
  write(message: Uint8Array | string): Promise<void> {
    if (this.#error !== undefined) return Promise.resolve();
    this.#queue.push(message);
    const done = this.#queueDone.promise;
    if (this.#writing === undefined && !this.#scheduled) {
      this.#scheduled = true;
      schedule(() => {
        this.#scheduled = false;
        void this.#pump();
      });
    }
    return done;
  }

  /** Resolves once everything queued so far is written. */
  flush(): Promise<void> {
    // What is still queued is written after what is being written, so its promise is the later one. With
    // nothing queued, wait for the write in flight (the queue's promise would wait for a next write).
    if (this.#queue.length > 0) return this.#queueDone.promise;
    return this.#writing?.promise ?? Promise.resolve();
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
    while (this.#queue.length > 0 && this.#error === undefined) {
      const messages = this.#queue;
      const done = this.#queueDone;
      this.#writing = done;
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
    this.#writing = undefined;
  }
}

function* batches(messages: Array<Uint8Array | string>, maxBatch: number): Generator<Uint8Array> {
  let start = 0;
  while (start < messages.length) {
    let end = start;
    let size = 0;
    let text = true;
    while (end < messages.length && (end === start || size + messages[end]!.length <= maxBatch)) {
      size += messages[end]!.length;
      text &&= typeof messages[end] === "string";
      end++;
    }
    if (text) {
      yield encoder.encode(end - start === 1 ? messages[start] as string : messages.slice(start, end).join(""));
    } else {
      const parts = messages.slice(start, end).map((message) => typeof message === "string" ? encoder.encode(message) : message);
      yield parts.length === 1 ? parts[0]! : concat(parts);
    }
    start = end;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
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
