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
  #queue: StdioData[] = [];
  #queueDone: Deferred = deferred();
  /** Settles when the messages taken off the queue by the pump are written; undefined when idle. */
  #writing: Deferred | undefined;
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
    this.#queue.push(message);
    const done = this.#queueDone.promise;
    if (this.#writing === undefined) void this.#pump();
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

  async #pump(): Promise<void> {
    while (this.#queue.length > 0 && this.#error === undefined) {
      const messages = this.#queue;
      const done = this.#queueDone;
      this.#writing = done;
      this.#queue = [];
      this.#queueDone = deferred();
      try {
        for (const batch of batches(messages, this.#maxBatch)) await this.#sink.write(batch);
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
