/**
 * A strict, independent reader of Content-Length framed stdout (LSP, DAP) for tests: the server under test
 * writes exactly `Content-Length: N\r\n\r\n` and N bytes of JSON, so anything else on stdout — a stray line,
 * an envelope, a torn message — fails the test instead of being skipped.
 */
import type { ChildProcess } from "node:child_process";
import { Buffer } from "node:buffer";
import type { Loose } from "./run.ts";
import { Inbox } from "./inbox.ts";

const PREFIX = Buffer.from("Content-Length: ");
const SEPARATOR = Buffer.from("\r\n\r\n");

/** Frames a message the way LSP and DAP clients do: the byte length of the UTF-8 body, not its string length. */
export function frame(message: object | string): Buffer {
  const body = Buffer.from(typeof message === "string" ? message : JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

/** Parses whole frames off the front of `bytes`; throws when stdout holds anything but framed JSON. */
export function parseFrames(bytes: Uint8Array): { messages: Loose[]; rest: Buffer } {
  const buffer = Buffer.from(bytes);
  const messages: Loose[] = [];
  let at = 0;
  while (at < buffer.length) {
    const available = buffer.subarray(at, at + PREFIX.length);
    if (!PREFIX.subarray(0, available.length).equals(available)) {
      throw new Error(
        `stdout is not framed protocol at byte ${at}: ${
          JSON.stringify(buffer.subarray(at, at + 80).toString("utf8"))
        }`,
      );
    }
    const end = buffer.indexOf(SEPARATOR, at);
    if (end === -1) break;
    const digits = buffer.subarray(at + PREFIX.length, end).toString("latin1");
    if (!/^\d+$/.test(digits)) throw new Error(`bad Content-Length ${JSON.stringify(digits)} at byte ${at}`);
    const bodyStart = end + SEPARATOR.length;
    const bodyEnd = bodyStart + Number(digits);
    if (bodyEnd > buffer.length) break;
    messages.push(JSON.parse(buffer.subarray(bodyStart, bodyEnd).toString("utf8")));
    at = bodyEnd;
  }
  return { messages, rest: buffer.subarray(at) };
}

/**
 * A raw client on a spawned server's stdin and stdout: writes frames (or any bytes) and reads the server's
 * messages in the order they were written, none skipped.
 */
export class FramedPeer {
  readonly #child: ChildProcess;
  #pending: Buffer = Buffer.alloc(0);
  readonly #inbox = new Inbox<Loose>();
  #failure: Error | undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.stdin!.on("error", () => {});
    child.stdout!.on("data", (chunk: Buffer) => {
      try {
        const { messages, rest } = parseFrames(Buffer.concat([this.#pending, chunk]));
        this.#pending = rest;
        this.#inbox.push(...messages);
      } catch (error) {
        this.#failure = error as Error;
        this.#inbox.wake();
      }
    });
    child.stdout!.on("end", () => this.#inbox.wake());
  }

  /** Writes one framed JSON message. */
  send(message: object | string): void {
    this.#child.stdin!.write(frame(message));
  }

  /** Writes bytes as they are: for broken frames. */
  sendRaw(bytes: string | Uint8Array): void {
    this.#child.stdin!.write(bytes);
  }

  /** Closes the server's stdin. */
  end(): void {
    this.#child.stdin!.end();
  }

  /** The server's next message, in the order written. */
  next(timeoutMs = 10_000): Promise<Loose> {
    return this.#inbox.next(timeoutMs, () => {
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#child.stdout!.readableEnded) throw new Error("stdout ended before the next message");
    }, () => `got ${JSON.stringify(this.#inbox.unread())}`);
  }
}
