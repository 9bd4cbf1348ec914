/**
 * A protocol server under test, driven the way a client drives it: write to its stdin, read its stdout as
 * lines (mcp-stdio) or as Content-Length frames (LSP, DAP), close stdin, send a signal, wait for its exit —
 * each wait bounded, and the process group always ended on {@linkcode ServerSession.dispose}.
 */
import { type ContentLengthFrame, ContentLengthFramer, LineFramer } from "../../lib/framing/mod.ts";
import {
  type ChildExit,
  type ChildProcess,
  clearLongTimeout,
  KILL_GRACE_MS,
  setLongTimeout,
  settlesWithin,
  spawnChild,
  textTail,
} from "../../lib/bridge/mod.ts";

const STDERR_KEPT_BYTES = 64 * 1024;
/**
 * The probes' answers are small (an initialize result, an error): a larger line or frame is counted, not
 * held, however long it grows — a server that writes one endless line costs the checker its length in time
 * and this much memory.
 */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Unread stdout kept at most; beyond it the oldest is dropped, so a flooding server cannot fill memory. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** How much of the start of stdout is kept as it came, to show in evidence what a server wrote first. */
const HEAD_BYTES = 160;
/**
 * How long stderr may stay open once the server has exited: what it wrote last (its envelope) can still be
 * in the pipe when the exit is reported, or be written by a process it left behind, which holds the pipe.
 */
const STDERR_AFTER_EXIT_MS = 2_000;

/**
 * How a server's stdout is split into messages: newline-delimited lines, or Content-Length frames.
 *
 * @example
 * ```ts
 * declare const protocol: string; // the command's `protocol` in its manifest entry
 * const framing: Framing = protocol === "mcp-stdio" ? "line" : "content-length";
 * ```
 */
export type Framing = "line" | "content-length";

/** A spawned server with its stdin piped. */
export class ServerSession {
  readonly #child: ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  readonly #lines: string[] = [];
  readonly #frames: ContentLengthFrame[] = [];
  #queuedBytes = 0;
  #head = new Uint8Array(0);
  #stderrText = "";
  #stdoutEnded = false;
  #exit: ChildExit | undefined;
  readonly #wakers = new Set<() => void>();

  /** Starts `argv`; its stdout is read as `framing` says. */
  constructor(argv: readonly string[], framing: Framing = "line") {
    const [program, ...args] = argv;
    this.#child = spawnChild(program!, args, { stdin: "pipe" });
    this.#writer = this.#child.stdin?.getWriter();
    // A server that exits first makes later writes fail; the exit itself is what the checks look at.
    this.#writer?.closed.catch(() => {});
    void (framing === "line" ? this.#readLines() : this.#readFrames()).finally(() => {
      this.#stdoutEnded = true;
      this.#notify();
    });
    const stderrRead = this.#readStderr();
    // The checks read stderr once the exit is known, so it is known once stderr has been read to its end.
    void this.#child.exited.then(async (exit) => {
      await settlesWithin(stderrRead, STDERR_AFTER_EXIT_MS);
      this.#exit = exit;
      this.#notify();
    });
  }

  /** The end of what the server wrote to stderr so far. */
  get stderr(): string {
    return this.#stderrText;
  }

  /** Whether the server is gone, or going: it exited, or its stdout ended. */
  get ended(): boolean {
    return this.#stdoutEnded || this.#exit !== undefined;
  }

  /** The first bytes the server wrote to stdout, as text, for evidence. */
  get stdoutHead(): string {
    return new TextDecoder().decode(this.#head);
  }

  /** Writes one line (a newline is added); a server that is gone just does not read it. */
  async send(line: string): Promise<void> {
    await this.write(new TextEncoder().encode(`${line}\n`));
  }

  /** Writes bytes as they are; a server that is gone just does not read them. */
  async write(bytes: Uint8Array): Promise<void> {
    await this.#writer?.write(bytes).catch(() => {});
  }

  /** The next stdout line, or `undefined` when none arrives within `timeoutMs` (or stdout ended). */
  async nextLine(timeoutMs: number): Promise<string | undefined> {
    await this.#waitFor(this.#lines, timeoutMs);
    const line = this.#lines.shift();
    if (line !== undefined) this.#queuedBytes -= sizeOf(line);
    return line;
  }

  /** The next stdout frame, or `undefined` when none arrives within `timeoutMs` (or stdout ended). */
  async nextFrame(timeoutMs: number): Promise<ContentLengthFrame | undefined> {
    await this.#waitFor(this.#frames, timeoutMs);
    const frame = this.#frames.shift();
    if (frame !== undefined) this.#queuedBytes -= sizeOf(frame);
    return frame;
  }

  /** Closes the server's stdin: end of input, the clean way to end a session. */
  async closeStdin(): Promise<void> {
    await this.#writer?.close().catch(() => {});
  }

  /** Sends a signal to the server's process group. */
  signal(signal: "SIGTERM" | "SIGKILL"): void {
    this.#child.kill(signal);
  }

  /** Waits up to `timeoutMs` for the server to exit; `undefined` if it is still running. */
  async waitExit(timeoutMs: number): Promise<ChildExit | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#exit === undefined && Date.now() < deadline) await this.#sleep(deadline - Date.now());
    return this.#exit;
  }

  /** Ends the server's process group if it is still running, and waits for it to go. */
  async dispose(): Promise<void> {
    if (this.#exit === undefined) {
      this.#child.kill("SIGTERM");
      if ((await this.waitExit(KILL_GRACE_MS)) === undefined) {
        this.#child.kill("SIGKILL");
        await this.waitExit(KILL_GRACE_MS);
      }
    }
    // What the server started in its group, and left behind, ends with the session.
    this.#child.kill("SIGKILL");
  }

  /** The server's stdout with its first bytes kept for {@linkcode ServerSession.stdoutHead}. */
  #stdout(): ReadableStream<Uint8Array> {
    return this.#child.stdout.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          if (this.#head.length < HEAD_BYTES) {
            const head = new Uint8Array(Math.min(HEAD_BYTES, this.#head.length + chunk.length));
            head.set(this.#head);
            head.set(chunk.subarray(0, head.length - this.#head.length), this.#head.length);
            this.#head = head;
          }
          controller.enqueue(chunk);
        },
      }),
    );
  }

  async #readLines(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (
        const frame of this.#stdout().pipeThrough(new LineFramer({ maxLineBytes: MAX_FRAME_BYTES }))
      ) {
        // A line too long to hold stands in the queue as a note of its size: it is not a message either way.
        const line = frame.kind === "line"
          ? decoder.decode(frame.bytes)
          : `[a line of ${frame.size} bytes, longer than the ${MAX_FRAME_BYTES} the checker holds]`;
        this.#enqueue(this.#lines, line);
        this.#notify();
      }
    } catch {
      // A pipe that fails has nothing more to give; the exit says why.
    }
  }

  async #readFrames(): Promise<void> {
    try {
      for await (
        const frame of this.#stdout().pipeThrough(
          new ContentLengthFramer({ maxMessageBytes: MAX_FRAME_BYTES }),
        )
      ) {
        this.#enqueue(this.#frames, frame);
        this.#notify();
      }
    } catch {
      // As for lines.
    }
  }

  #enqueue<T extends string | ContentLengthFrame>(queue: T[], item: T): void {
    queue.push(item);
    this.#queuedBytes += sizeOf(item);
    while (this.#queuedBytes > MAX_QUEUED_BYTES && queue.length > 1) {
      this.#queuedBytes -= sizeOf(queue.shift()!);
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.#child.stderr) {
        this.#stderrText = textTail(
          this.#stderrText + decoder.decode(chunk, { stream: true }),
          STDERR_KEPT_BYTES,
        );
      }
    } catch {
      // As for stdout.
    }
  }

  async #waitFor(queue: unknown[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !this.#stdoutEnded && Date.now() < deadline) {
      await this.#sleep(deadline - Date.now());
    }
  }

  /** Sleeps until something happens (a line, the exit) or `ms` pass. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearLongTimeout(timer);
        this.#wakers.delete(wake);
        resolve();
      };
      const timer = setLongTimeout(wake, Math.max(0, ms));
      this.#wakers.add(wake);
    });
  }

  #notify(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}

function sizeOf(item: string | ContentLengthFrame): number {
  if (typeof item === "string") return item.length;
  return item.kind === "message" ? item.bytes.length : item.kind === "oversized" ? item.head.length : 0;
}
