/**
 * The session skeleton every protocol server stands on — MCP over lines, LSP and DAP over Content-Length
 * frames: the input cut into frames by a synchronous splitter, each frame handed on in order, the requests in
 * flight bounded ({@linkcode InFlight}), the answers written whole and in order ({@linkcode SerialWriter}), and
 * one way to end: the input's end (open requests are answered and flushed first), a stop signal (open
 * requests are aborted, and answered first if the protocol wants it), a broken output, or a frame's handler
 * ending the session.
 * @module
 */
import { SerialWriter } from "../framing/serial_writer.ts";
import type { Splitter } from "../framing/splitter_streams.ts";
import { type ByteChannel, readChunks } from "../runtime/byte_channel.ts";
import type { StdioData } from "../runtime/stdio.ts";
import { CancelScope } from "./cancel_scope.ts";
import { InFlight } from "./in_flight.ts";
import { DEFAULT_MAX_IN_FLIGHT, type SlotPool } from "./slot_pool.ts";
import { isThenable } from "../when_ready.ts";

/**
 * What a frame's handler tells the session: go on (`undefined`), wait for this promise before the next
 * frame (and read nothing meanwhile), or end the session with a result.
 *
 * @example
 * ```ts
 * declare const method: string;
 * const step: FrameStep<string> = method === "exit" ? { end: "exit" } : undefined;
 * ```
 */
export type FrameStep<R> = undefined | { end: R } | Promise<undefined | void | { end: R }>;

/**
 * Options of a {@linkcode FrameSession}.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "../framing/line_splitter.ts";
 *
 * const options: FrameSessionOptions<import("../framing/line_splitter.ts").LineFrame> = {
 *   name: "mcp",
 *   splitter: new LineSplitter(),
 *   maxInFlight: 16,
 * };
 * ```
 */
export interface FrameSessionOptions<F> {
  /** The protocol's name, which starts the session's log lines: `mcp`, `lsp`, `dap`. */
  name: string;
  /** Cuts the input into frames. */
  splitter: Splitter<F>;
  /** Requests in flight before reading pauses. @default 64 */
  maxInFlight?: number;
  /** A bound shared with other sessions (a listener's connections): a request needs a slot of both. */
  enclosing?: SlotPool;
  /** Ends the session: reading stops and open requests are aborted with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Whether requests aborted by the signal are still answered before the session ends (MCP: a cancelled
   * call's answer says so), or the session ends at once and their answers are dropped (LSP, DAP).
   * @default false
   */
  answerAfterStop?: boolean;
  /**
   * Ends the session, like the end of its input, once nothing has arrived for this long while no request is
   * in flight and `busy` says nothing else is going on. 0 or absent: never.
   */
  idleMs?: number;
  /** Whether the session is in use though no request is in flight (an open subscription). */
  busy?(): boolean;
  /** A diagnostic line (stderr). */
  log?(message: string): void;
}

/**
 * One protocol session over a {@linkcode ByteChannel}.
 *
 * @example
 * ```ts
 * import { LineSplitter, type LineFrame } from "../framing/line_splitter.ts";
 * import type { ByteChannel } from "../runtime/byte_channel.ts";
 *
 * declare const channel: ByteChannel;
 * // An echo server: every line goes back as it came, each in a slot of its own.
 * const session = new FrameSession<LineFrame, never, never>(channel, { name: "echo", splitter: new LineSplitter() });
 * const echo = (bytes: Uint8Array) => (_scope: unknown, done: () => void) => void session.send(bytes).then(done);
 * await session.run((frame) =>
 *   frame.kind === "line" ? session.requests.start(undefined, echo(frame.bytes.slice())) : undefined
 * );
 * ```
 */
export class FrameSession<F, K, R> {
  /** The requests being answered; a frame whose request must wait for a slot pauses reading. */
  readonly requests: InFlight<K>;
  /** Aborted when the session ends, however it ends: the scope of work that is no request's. */
  readonly ended: CancelScope = new CancelScope();
  readonly #channel: ByteChannel;
  readonly #options: FrameSessionOptions<F>;
  readonly #out: SerialWriter;
  /** Reading stops: the input ended, a handler ended the session, the signal fired or the output broke. */
  readonly #reading = new AbortController();
  #result: { end: R } | undefined;
  #closed = false;
  /** The session ended for idleness. */
  #idled = false;

  constructor(channel: ByteChannel, options: FrameSessionOptions<F>) {
    this.#channel = channel;
    this.#options = options;
    this.#out = new SerialWriter(channel);
    this.requests = new InFlight(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, options.enclosing);
  }

  /** Whether the session is ending on its own accord: signalled, or its output broke (nobody is listening). */
  get stopped(): boolean {
    return this.#out.broken || this.#options.signal?.aborted === true;
  }

  /** Writes one whole message; resolves once it is handed on. Dropped once the session has closed. */
  send(message: StdioData): Promise<void> {
    return this.#closed ? Promise.resolve() : this.#out.write(message);
  }

  /**
   * Reads frames and hands each to `onFrame`, in order, until the session ends; resolves with the result a
   * handler ended it with, or `undefined`. However it ends, `ended` is aborted, `beforeFlush` runs (the
   * last messages may be sent there), what was sent is flushed, and the channel is let go of (not closed).
   */
  async run(onFrame: (frame: F) => FrameStep<R>, beforeFlush?: () => void): Promise<R | undefined> {
    const { signal, splitter, log, name } = this.#options;
    const stop = () => {
      this.#reading.abort();
      this.requests.abortAll(signal?.reason ?? new DOMException("the session ended", "AbortError"));
    };
    signal?.addEventListener("abort", stop, { once: true });
    if (signal?.aborted) stop();
    void this.#out.failed.then(stop);
    const idle = this.#watchIdle();
    const frames: F[] = [];
    try {
      // readChunks reads the next chunk, or sees the end, only once the frames of this one are handed on.
      // Once the session is over, a chunk already read is split but not handed on (#dispatch checks).
      await readChunks(this.#channel, (chunk) => {
        idle?.input();
        splitter.push(chunk, frames);
        return this.#dispatch(frames, onFrame);
      }, this.#reading.signal);
      if (!this.#over() && !this.#idled) {
        splitter.end(frames);
        await this.#dispatch(frames, onFrame);
      }
    } catch (error) {
      // A failed read ends the session like the input's end, but for a partial last frame.
      log?.(`${name}: reading the input failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    idle?.stop();
    // What a partial frame holds is let go of (a shared budget gets its bytes back); it is answered no more.
    splitter.end([]);
    if (this.#result !== undefined) {
      this.requests.abortAll(new DOMException("the session ended", "AbortError"));
    } else if (signal?.aborted !== true || this.#options.answerAfterStop === true) {
      // Open requests finish first; a signal has already aborted them.
      await this.requests.answered();
    }
    signal?.removeEventListener("abort", stop);
    this.ended.abort(new DOMException("the session ended", "AbortError"));
    beforeFlush?.();
    await this.#out.flush();
    this.#closed = true;
    this.#channel.release();
    return this.#result?.end;
  }

  /** A timer that ends an idle session (see `idleMs`); `undefined` when sessions never idle out. */
  #watchIdle(): { input(): void; stop(): void } | undefined {
    const idleMs = this.#options.idleMs ?? 0;
    if (!(idleMs > 0)) return undefined;
    let last = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const quiet = Date.now() - last;
      const busy = !this.requests.idle || this.#options.busy?.() === true;
      if (quiet >= idleMs && !busy) {
        this.#idled = true;
        this.#options.log?.(
          `${this.#options.name}: nothing arrived for ${idleMs / 1000} s; the session ends`,
        );
        this.#reading.abort();
        return;
      }
      timer = setTimeout(check, busy ? idleMs : idleMs - quiet);
    };
    timer = setTimeout(check, idleMs);
    return {
      input: () => void (last = Date.now()),
      stop: () => clearTimeout(timer),
    };
  }

  #over(): boolean {
    return this.#result !== undefined || this.stopped;
  }

  /**
   * Hands the frames on in order and empties the list. A frame whose handler returns a promise holds up the
   * rest of the list, and reading, until it settles.
   */
  #dispatch(frames: F[], onFrame: (frame: F) => FrameStep<R>): Promise<void> | undefined {
    let next = 0;
    const resume = (step: undefined | void | { end: R }): Promise<void> | undefined => {
      if (step !== undefined) this.#end(step);
      while (next < frames.length && !this.#over()) {
        const outcome = onFrame(frames[next++]!);
        if (isThenable(outcome)) return Promise.resolve(outcome).then(resume);
        if (outcome !== undefined) this.#end(outcome);
      }
      frames.length = 0;
      return undefined;
    };
    return resume(undefined);
  }

  #end(step: { end: R }): void {
    this.#result ??= step;
    this.#reading.abort();
  }
}
