import type { ByteSink } from "../runtime/byte_channel.ts";
import type { StdioData } from "../runtime/stdio.ts";

/** Options for {@linkcode SerialWriter}. */
export interface SerialWriterOptions {
  /** Queued messages are joined into one write up to this many bytes (a text message counts its length). @default 1048576 */
  maxBatchBytes?: number;
}

const encoder = new TextEncoder();

/**
 * Writes whole messages to a {@linkcode ByteSink} one after another — never interleaved, in the order given —
 * and awaits the sink's backpressure. A message written while the sink is idle goes out at once; messages
 * queued while a write is in flight are joined into the next write, so under load the answers to a chunk of
 * requests cost a couple of system calls, not one per message, and a lone answer waits for nothing. A
 * message may be bytes or text: text queued together is joined and encoded once (by Node itself when the
 * sink is the process's stdout or stderr). A failed sink (a broken pipe) does not throw at writers:
 * {@linkcode SerialWriter.failed} settles, and later writes are dropped.
 *
 * @example
 * ```ts
 * import { processChannel, SerialWriter } from "@toolwire/toolwire/framing";
 *
 * const out = new SerialWriter(processChannel());
 * await out.write('{"jsonrpc":"2.0","id":1,"result":{}}\n');
 * ```
 */
export class SerialWriter {
  readonly #sink: ByteSink;
  readonly #maxBatch: number;
  /** Messages waiting for the write in flight, and the promise they settle together. */
  #queue: StdioData[] = [];
  #queued: Deferred | undefined;
  /** The write in flight (it never rejects); undefined when idle. */
  #writing: Promise<void> | undefined;
  #error: unknown;
  readonly #failed: Deferred<unknown> = deferred<unknown>();

  /** `sink` takes text or bytes and resolves once they are handed on, such as a {@linkcode ByteChannel}. */
  constructor(sink: ByteSink, options: SerialWriterOptions = {}) {
    this.#sink = sink;
    this.#maxBatch = options.maxBatchBytes ?? 1 << 20;
  }

  /** Queues one whole message; resolves once it has been handed to the sink (or the sink failed). */
  write(message: StdioData): Promise<void> {
    if (this.#error !== undefined) return Promise.resolve();
    // Idle: the message goes straight to the sink — the one-at-a-time case (every answer of a sequential
    // client) costs one sink write and one promise reaction, with no array and no batching around it.
    if (this.#writing === undefined) return this.#start(this.#hand(message));
    this.#queue.push(message);
    return (this.#queued ??= deferred()).promise;
  }

  /** Resolves once everything queued so far is written. */
  flush(): Promise<void> {
    // What is still queued is written after what is being written, so its promise is the later one.
    if (this.#queue.length > 0) return this.#queued!.promise;
    return this.#writing ?? Promise.resolve();
  }

  /** Settles with the sink's error the first time a write fails. */
  get failed(): Promise<unknown> {
    return this.#failed.promise;
  }

  /** Whether the sink has failed. */
  get broken(): boolean {
    return this.#error !== undefined;
  }

  /**
   * The write in flight: one reaction settles it, failed or not, and starts what was queued meanwhile —
   * before whoever awaits the returned promise hears of it, so the next batch goes first. It never rejects.
   */
  #start(written: Promise<void>): Promise<void> {
    const writing = written.then(this.#next, this.#fail);
    this.#writing = writing;
    return writing;
  }

  /** One message to the sink; a sink that throws is a failed write. */
  #hand(message: StdioData): Promise<void> {
    try {
      return this.#sink.write(message);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The write in flight is done: the messages queued meanwhile go out together. */
  readonly #next = (): void => {
    this.#writing = undefined;
    const queued = this.#queued;
    if (queued === undefined) return;
    const messages = this.#queue;
    this.#queue = [];
    this.#queued = undefined;
    if (this.#error !== undefined) return queued.resolve();
    const written = messages.length === 1
      ? this.#hand(messages[0]!)
      : this.#writeBatches(batches(messages, this.#maxBatch));
    void this.#start(written).then(queued.resolve);
  };

  /** One batch at a time: a batch is joined only when the one before it is written. */
  #writeBatches(pending: Iterator<StdioData>): Promise<void> {
    let next: IteratorResult<StdioData>;
    try {
      // Joining a batch can fail too (a string longer than the runtime allows): a failed write, not a throw.
      next = pending.next();
    } catch (error) {
      return Promise.reject(error);
    }
    if (next.done === true) return Promise.resolve();
    return this.#hand(next.value).then(() => this.#writeBatches(pending));
  }

  /** The first failure breaks the writer for good; what was queued meanwhile is settled by `#next`. */
  readonly #fail = (error: unknown): void => {
    this.#error = error ?? new Error("write failed");
    this.#failed.resolve(this.#error);
    this.#next();
  };
}

/** Consecutive messages joined up to `maxBatch`: text with text as one string, anything with bytes as bytes. */
function* batches(messages: StdioData[], maxBatch: number): Generator<StdioData> {
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
    if (end - start === 1) yield messages[start]!;
    else if (text) yield messages.slice(start, end).join("");
    else {yield concat(
        messages.slice(start, end).map((message) =>
          typeof message === "string" ? encoder.encode(message) : message
        ),
      );}
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
