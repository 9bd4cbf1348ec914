import { type ChildExit, type ChildProcess, spawnChild } from "../runtime/child_process.ts";
import { clearLongTimeout, type LongTimeout, setLongTimeout } from "../command/run/time_limit.ts";
import { type LineFrame, LineSplitter } from "../framing/line_splitter.ts";

/**
 * How long a child gets between SIGTERM and SIGKILL when it is stopped. Shorter than the second a protocol
 * server gets to wind down after a signal, so a bridged call that ignores SIGTERM still ends with it.
 */
export const KILL_GRACE_MS = 500;

/**
 * How long the pipes may stay open once the child has exited before what it left in its group, which holds
 * them, is stopped.
 */
export const PIPE_GRACE_MS = 200;

/** Bytes of stderr (and of stdout, for reports) kept as a tail: enough to show why something failed. */
export const TAIL_BYTES = 2_048;

/** Most stdout bytes {@linkcode runChild} keeps unless told otherwise. */
export const STDOUT_BYTES = 64 * 1024 * 1024;

/** The longest stderr line handed to `onStderrLine`; the rest of a longer line is cut, and the line says so. */
export const STDERR_LINE_BYTES = 16 * 1024;

/** Options of {@linkcode runChild}. */
export interface ChildRunOptions {
  /** Working directory. @default the current one */
  cwd?: string;
  /** The child's whole environment. @default the parent's */
  env?: Record<string, string>;
  /** Milliseconds before the child's process group is stopped; 0 = no limit. Any length works. */
  timeoutMs: number;
  /** Stops the child's process group when it fires (an MCP cancel, a signal). */
  signal?: AbortSignal;
  /** stdin: `"null"` is empty and at EOF at once; `"open"` is a pipe that is never written nor closed. @default "null" */
  stdin?: "null" | "open";
  /**
   * Each stderr line as it arrives, without its line ending; a line longer than {@linkcode STDERR_LINE_BYTES}
   * is cut there and ends with `… [N more bytes cut]`.
   */
  onStderrLine?(line: string): void;
  /** Most stdout bytes kept; beyond it the oldest are dropped, so the last line survives. @default {@linkcode STDOUT_BYTES} */
  maxStdoutBytes?: number;
  /** Most stderr bytes kept, the same way. @default {@linkcode TAIL_BYTES} */
  maxStderrBytes?: number;
}

/** A finished child process, as {@linkcode runChild} saw it. */
export interface ChildRun {
  /** How it exited. */
  exit: ChildExit;
  /** `exited` on its own, or stopped by the time limit or the signal. */
  ending: "exited" | "timeout" | "cancelled";
  /** Everything it wrote to stdout (the last `maxStdoutBytes` of it). */
  stdout: string;
  /** How many bytes from the start of stdout were dropped to keep it within `maxStdoutBytes`; 0 when none. */
  stdoutDropped: number;
  /** The end of what it wrote to stderr: the last `maxStderrBytes`. */
  stderrTail: string;
}

/**
 * Runs a program without a shell (argv as given: nothing in it is interpreted) in a process group of its own,
 * to its end: stdout and stderr are collected in linear time within their byte limits, and a time limit or
 * an abort stops the whole group — SIGTERM, then SIGKILL after {@linkcode KILL_GRACE_MS}. When the program
 * itself has exited, whatever it left in its group is stopped the same way — once the pipes are drained, or
 * after {@linkcode PIPE_GRACE_MS} when something still holds them open: nothing the run started outlives it,
 * and a grandchild holding a pipe cannot hold up the run for longer than it takes to kill it.
 *
 * @example
 * ```ts
 * const run = await runChild(["python3", "tool.py", "--format", "json", "manifest"], { timeoutMs: 10_000 });
 * if (run.ending === "exited" && run.exit.code === 0) console.log(lastLine(run.stdout));
 * ```
 */
export async function runChild(argv: readonly string[], options: ChildRunOptions): Promise<ChildRun> {
  const [program, ...args] = argv;
  if (program === undefined) throw new TypeError("runChild: argv is empty");
  const child = spawnChild(program, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    stdin: options.stdin === "open" ? "pipe" : "null",
  });
  let ending: ChildRun["ending"] = "exited";
  let exited = false;
  // SIGTERM to the group now, SIGKILL to whatever is left of it a little later. The second timer is not
  // cleared when the run ends: a grandchild that ignores SIGTERM must not outlive the run.
  let stopping = false;
  const stopGroup = () => {
    if (stopping) return;
    stopping = true;
    if (!child.kill("SIGTERM")) return;
    setTimeout(() => {
      child.kill("SIGKILL");
      forgetWhenGone(child);
    }, KILL_GRACE_MS);
  };
  const stop = (why: "timeout" | "cancelled") => {
    if (exited || ending !== "exited") return;
    ending = why;
    stopGroup();
  };
  const limit: LongTimeout | undefined = options.timeoutMs > 0
    ? setLongTimeout(() => stop("timeout"), options.timeoutMs)
    : undefined;
  const onAbort = () => stop("cancelled");
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  const stdout = new PipeReader(child.stdout, options.maxStdoutBytes ?? STDOUT_BYTES);
  const stderr = new PipeReader(child.stderr, options.maxStderrBytes ?? TAIL_BYTES, options.onStderrLine);
  try {
    const exit = await child.exited;
    exited = true;
    const drained = Promise.all([stdout.done, stderr.done]);
    // Pipes still open after the grace are held by something the child left in its group: ending the group
    // closes them, and what was written before is still read (the second wait comes after a round of I/O,
    // however late the first timer ran). Only a holder that left the group is given up on.
    if (!(await settlesWithin(drained, PIPE_GRACE_MS))) {
      stopGroup();
      if (!(await settlesWithin(drained, KILL_GRACE_MS + PIPE_GRACE_MS))) {
        stdout.stop();
        stderr.stop();
        await drained;
      }
    }
    // A grandchild with stdio of its own holds no pipe, but must not outlive the run either.
    stopGroup();
    return { exit, ending, stdout: stdout.text(), stdoutDropped: stdout.dropped, stderrTail: stderr.text() };
  } finally {
    clearLongTimeout(limit);
    options.signal?.removeEventListener("abort", onAbort);
    // An "open" stdin was never meant to be written: let go of it now the child is gone.
    await child.stdin?.close().catch(() => {});
  }
}

/**
 * Whether `promise` settles within `ms`.
 *
 * @example
 * ```ts
 * declare const drained: Promise<void>;
 * if (!(await settlesWithin(drained, PIPE_GRACE_MS))) console.error("something still holds the pipes");
 * ```
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks every {@linkcode GONE_POLL_MS} whether a killed group is empty yet, a few seconds at most: its id is
 * free once its processes are reaped, and the sooner it is forgotten, the less chance that a later
 * signal meant for it (the parent's exit ends every group it knows) reaches a new group with the same id.
 */
function forgetWhenGone(child: ChildProcess, polls = 40): void {
  if (polls > 0 && child.groupAlive()) setTimeout(() => forgetWhenGone(child, polls - 1), GONE_POLL_MS);
}

const GONE_POLL_MS = 100;

/**
 * Reads one pipe to its end or until stopped, in time linear in what arrives: it keeps the last bytes in a
 * {@linkcode ByteTail} and, when asked, splits lines by scanning each chunk once.
 */
class PipeReader {
  readonly done: Promise<void>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #tail: ByteTail;
  readonly #lines: LineSplitter | undefined;
  readonly #onLine: ((line: string) => void) | undefined;
  readonly #frames: LineFrame[] = [];

  constructor(stream: ReadableStream<Uint8Array>, keepBytes: number, onLine?: (line: string) => void) {
    this.#reader = stream.getReader();
    this.#tail = new ByteTail(keepBytes);
    this.#onLine = onLine;
    this.#lines = onLine === undefined
      ? undefined
      : new LineSplitter({ maxLineBytes: STDERR_LINE_BYTES, keepHead: true });
    this.done = this.#read();
  }

  /** Bytes dropped from the front to stay within the limit. */
  get dropped(): number {
    return this.#tail.dropped;
  }

  /** Stops reading: what has not arrived yet is not waited for. */
  stop(): void {
    this.#reader.cancel().catch(() => {});
  }

  /** What was kept, decoded. */
  text(): string {
    return this.#tail.text();
  }

  async #read(): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.#reader.read();
        if (done) break;
        this.#tail.push(value);
        this.#lines?.push(value, this.#frames);
        this.#deliver();
      }
    } catch {
      // A pipe that fails has nothing more to give; the exit says why.
    }
    this.#lines?.end(this.#frames);
    this.#deliver();
  }

  #deliver(): void {
    for (const frame of this.#frames) this.#onLine!(logLine(frame));
    this.#frames.length = 0;
  }
}

/** Up to this size a {@linkcode ByteTail} buffer doubles as it fills; beyond it, it is made full size. */
const GROWN_BUFFER_BYTES = 1024 * 1024;

/**
 * The last `limit` bytes of a stream, in one buffer that grows up to `limit` and then wraps around: each
 * chunk is copied in once and can be let go of at once, and the text decoded at the end is the only other
 * copy — so memory stays within about twice the limit, whatever the stream's length.
 */
class ByteTail {
  /** Bytes dropped from the front to stay within the limit. */
  dropped = 0;
  readonly #limit: number;
  #buffer = new Uint8Array(0);
  /** Where the oldest kept byte is: 0 until the buffer is full and wraps. */
  #start = 0;
  #length = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length >= this.#limit) {
      // Only the end of this chunk survives.
      this.dropped += this.#length + chunk.length - this.#limit;
      this.#grow(this.#limit);
      this.#buffer.set(chunk.subarray(chunk.length - this.#limit));
      this.#start = 0;
      this.#length = this.#limit;
      return;
    }
    const overflow = this.#length + chunk.length - this.#limit;
    this.#grow(Math.min(this.#limit, this.#length + chunk.length));
    if (overflow > 0) {
      this.#start = (this.#start + overflow) % this.#limit;
      this.#length -= overflow;
      this.dropped += overflow;
    }
    const capacity = this.#buffer.length;
    const at = (this.#start + this.#length) % capacity;
    const first = Math.min(chunk.length, capacity - at);
    this.#buffer.set(chunk.subarray(0, first), at);
    this.#buffer.set(chunk.subarray(first), 0);
    this.#length += chunk.length;
  }

  /** What is kept, decoded; after a cut it starts on a whole character. Empties the tail. */
  text(): string {
    this.#unwrap();
    let bytes = this.#buffer.subarray(0, this.#length);
    this.#buffer = new Uint8Array(0);
    this.#length = 0;
    if (this.dropped > 0) {
      // The cut may fall inside a character: its continuation bytes go too.
      let start = 0;
      while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
      this.dropped += start;
      bytes = bytes.subarray(start);
    }
    return new TextDecoder().decode(bytes);
  }

  /**
   * Makes room for `size` bytes; only before the buffer wraps, when the kept bytes start at 0. A buffer that
   * must grow past {@linkcode GROWN_BUFFER_BYTES} is made as large as the limit at once: a zeroed buffer
   * that large is mapped, not written, so only the pages written count, and no half-size copies are left
   * behind for the garbage collector.
   */
  #grow(size: number): void {
    if (this.#buffer.length >= size) return;
    const doubled = Math.max(size, this.#buffer.length * 2, 64 * 1024);
    const grown = new Uint8Array(Math.min(this.#limit, doubled > GROWN_BUFFER_BYTES ? this.#limit : doubled));
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
  }

  /** Rotates a wrapped buffer in place so the kept bytes start at 0, with a copy of the smaller part only. */
  #unwrap(): void {
    const start = this.#start;
    if (start === 0) return;
    const buffer = this.#buffer;
    const size = buffer.length;
    if (start <= size - start) {
      const head = buffer.slice(0, start);
      buffer.copyWithin(0, start);
      buffer.set(head, size - start);
    } else {
      const tail = buffer.slice(start);
      buffer.copyWithin(size - start, 0, start);
      buffer.set(tail, 0);
    }
    this.#start = 0;
  }
}

/** A stderr line as a log line: a line too long keeps its first {@linkcode STDERR_LINE_BYTES}, cut at a character boundary. */
function logLine(frame: LineFrame): string {
  if (frame.kind === "line") return decoder.decode(frame.bytes);
  const head = frame.head ?? new Uint8Array(0);
  // A lead byte whose character does not fit goes with the cut.
  let end = head.length;
  let lead = end;
  while (lead > 0 && (head[lead - 1]! & 0xc0) === 0x80) lead--;
  if (lead > 0 && head[lead - 1]! >= 0xc0 && end - (lead - 1) < utf8Length(head[lead - 1]!)) end = lead - 1;
  return `${decoder.decode(head.subarray(0, end))}… [${frame.size - end} more bytes cut]`;
}

const decoder = new TextDecoder();

/** How many bytes the UTF-8 character starting with `lead` takes. */
function utf8Length(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/**
 * The last `bytes` of a text, cut at a character boundary.
 *
 * @example
 * ```ts
 * textTail("abcdef", 3); // "def"
 * ```
 */
export function textTail(text: string, bytes: number = TAIL_BYTES): string {
  // Each character is at least one UTF-8 byte: only the last `bytes` characters can be in the tail.
  let piece = text.length > bytes ? text.slice(-bytes) : text;
  // A slice may start on the second half of a surrogate pair: drop it.
  if (piece !== text && /^[\udc00-\udfff]/.test(piece)) piece = piece.slice(1);
  const encoded = new TextEncoder().encode(piece);
  if (encoded.length <= bytes) return piece;
  // Skip UTF-8 continuation bytes so the tail starts on a whole character.
  let start = encoded.length - bytes;
  while (start < encoded.length && (encoded[start]! & 0xc0) === 0x80) start++;
  return new TextDecoder().decode(encoded.subarray(start));
}

/**
 * The last non-empty line of a text (a command's envelope line), without its line ending.
 *
 * @example
 * ```ts
 * lastLine('warming up\n{"ok":true}\n'); // '{"ok":true}'
 * ```
 */
export function lastLine(text: string): string {
  // Scanned from the end: the text may be many megabytes, and only its last lines are looked at.
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    let line = text.slice(start, end);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() !== "") return line;
    end = start - 1;
  }
  return "";
}
