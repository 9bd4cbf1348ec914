/**
 * A ProtocolIO in memory, for driving a protocol loop (serveLsp, serveDap) inside the test process: the test
 * writes framed messages to the loop's stdin and reads what the loop wrote to stdout, strictly parsed.
 */
import { Buffer } from "node:buffer";
import type { ProtocolIO } from "../../lib/command/contract/command_definition.ts";
import { streamChannel } from "../../lib/runtime/stream_channel.ts";
import { frame, parseFrames } from "./framed.ts";
import type { Loose } from "./run.ts";
import { Inbox } from "./inbox.ts";

/** One side of an in-memory protocol session. */
export class InMemoryPeer {
  /** Hand this to the loop. */
  readonly io: ProtocolIO;
  /** Diagnostic lines the loop logged. */
  readonly logs: string[] = [];
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #signal = new AbortController();
  readonly #inbox = new Inbox<Loose>();
  #pending: Buffer = Buffer.alloc(0);

  constructor() {
    const stdin = new TransformStream<Uint8Array, Uint8Array>();
    this.#stdin = stdin.writable.getWriter();
    const stdout = new WritableStream<Uint8Array>({
      write: (chunk) => {
        const { messages, rest } = parseFrames(Buffer.concat([this.#pending, chunk]));
        this.#pending = rest;
        this.#inbox.push(...messages);
      },
    });
    this.io = {
      channel: streamChannel(stdin.readable, stdout),
      signal: this.#signal.signal,
      log: (message) => this.logs.push(message),
    };
  }

  /** Writes one framed message to the loop's stdin. */
  send(message: object | string): void {
    void this.#stdin.write(frame(message)).catch(() => {});
  }

  /** Writes raw bytes to the loop's stdin. */
  sendRaw(bytes: string): void {
    void this.#stdin.write(Buffer.from(bytes, "utf8")).catch(() => {});
  }

  /** Closes the loop's stdin (EOF). */
  end(): void {
    void this.#stdin.close().catch(() => {});
  }

  /** Fires the loop's signal, as SIGTERM does. */
  abort(): void {
    this.#signal.abort();
  }

  /** Every message the loop has written so far and not yet read. */
  unread(): Loose[] {
    return this.#inbox.unread();
  }

  /** The loop's next message, in the order written. */
  next(timeoutMs = 5_000): Promise<Loose> {
    return this.#inbox.next(timeoutMs);
  }
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
