import process from "node:process";
import { deno, type DenoApi } from "./deno_api.ts";

/** One of the three standard streams. */
export type StdStream = "stdin" | "stdout" | "stderr";

/** What the stdio writers take: bytes, or text to be written as UTF-8. */
export type StdioData = Uint8Array | string;

/** Writes to a standard stream; resolves once the data is handed to the OS. */
export type StdioWrite = (data: StdioData) => Promise<void>;

const encoder = new TextEncoder();

// Captured once, before anything can reroute stray writes (see `redirectStrayStdout`): the protocol channel
// must keep writing to the real fd 1 after handler code has been pointed at stderr.
const rawWrite: Record<"stdout" | "stderr", StdioWrite> = deno
  ? { stdout: denoWriteAll(deno.stdout), stderr: denoWriteAll(deno.stderr) }
  : { stdout: nodeWrite(process.stdout), stderr: nodeWrite(process.stderr) };

if (!deno) {
  // Without a listener an EPIPE on stdout is an uncaught exception (REQ-F-014). The failed write's callback
  // still reports it to whoever awaits it.
  process.stdout.on("error", () => {});
  process.stderr.on("error", () => {});
}

function denoWriteAll(writer: { write(bytes: Uint8Array): Promise<number> }): StdioWrite {
  const write = writer.write.bind(writer);
  return async (data) => {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    let offset = 0;
    while (offset < bytes.length) offset += await write(bytes.subarray(offset));
  };
}

function nodeWrite(stream: NodeJS.WriteStream): StdioWrite {
  const write = stream.write.bind(stream);
  // Text goes in as text: Node encodes it on the way to the system call, which is cheaper than a TextEncoder
  // call and an ArrayBuffer per message. The callback fires once the data left the process (or failed):
  // awaiting it is the flush guarantee that `process.exit` lacks past 64 KiB on a pipe.
  return (data) =>
    new Promise<void>((resolve, reject) => {
      write(data, (error?: Error | null) => (error ? reject(error) : resolve()));
    });
}

const directWrites = new WeakMap<WritableStream<Uint8Array>, StdioWrite>();

/**
 * A WritableStream onto the real stdout or stderr. Each write resolves once its bytes are handed to the OS,
 * so awaiting the last write and then exiting loses nothing.
 *
 * @example
 * ```ts
 * const writer = stdioWritable("stdout").getWriter();
 * await writer.write(new TextEncoder().encode("hello\n"));
 * writer.releaseLock();
 * ```
 */
export function stdioWritable(stream: "stdout" | "stderr"): WritableStream<Uint8Array> {
  const write = rawWrite[stream];
  const sink = new WritableStream<Uint8Array>({ write: (chunk) => write(chunk) });
  directWrites.set(sink, write);
  return sink;
}

/**
 * The process's real stdout or stderr as a write function: text or bytes in, resolved once handed to the OS.
 * What {@linkcode stdioWritable} wraps, without the Web Streams layer (nor the cost of loading it).
 *
 * @example
 * ```ts
 * await stdioWrite("stderr")("warning: cache is cold\n");
 * ```
 */
export function stdioWrite(stream: "stdout" | "stderr"): StdioWrite {
  return rawWrite[stream];
}

/**
 * The write function behind a stream made by {@linkcode stdioWritable}, or `undefined` for any other
 * stream. It takes text as well as bytes and skips the Web Streams queue — per message, that queue costs
 * more than the system call. Whoever writes through it must be the stream's only writer.
 *
 * @example
 * ```ts
 * const sink = stdioWritable("stdout");
 * const write = directWrite(sink);
 * await (write ? write("hello\n") : sink.getWriter().write(new TextEncoder().encode("hello\n")));
 * ```
 */
export function directWrite(sink: WritableStream<Uint8Array>): StdioWrite | undefined {
  return directWrites.get(sink);
}

let stdinStream: ReadableStream<Uint8Array> | undefined;
/** Node: whether `stdinStream` has started taking data from `process.stdin`. */
let nodeStdinPulled = false;

/**
 * Standard input as a ReadableStream of bytes. Created on first use only, and reading starts on the first
 * read: commands that never ask never touch stdin (`--help` must not read it).
 *
 * @example
 * ```ts
 * const reader = stdinReadable().getReader();
 * const first = await reader.read();
 * ```
 */
export function stdinReadable(): ReadableStream<Uint8Array> {
  stdinStream ??= deno ? deno.stdin.readable : nodeStdinStream();
  return stdinStream;
}

function nodeStdinStream(): ReadableStream<Uint8Array> {
  const stdin = process.stdin;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!nodeStdinPulled) {
        nodeStdinPulled = true;
        stdin.on("data", (chunk: Uint8Array) => {
          if (closed) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) stdin.pause();
        });
        stdin.once("end", () => {
          if (!closed) controller.close();
          closed = true;
        });
        stdin.once("error", (error) => {
          if (!closed) controller.error(error);
          closed = true;
        });
      }
      stdin.resume();
    },
    cancel() {
      closed = true;
      stdin.destroy();
    },
  }, { highWaterMark: 0 });
}

/**
 * Feeds a byte stream to `onChunk`, one chunk at a time, until the stream ends. When `onChunk` returns a
 * promise, reading pauses until it settles. Resolves at the end of the stream, or when `signal` fires (the
 * stream is then cancelled: nothing more is read); rejects when reading fails or `onChunk` throws.
 *
 * Node's stdin from {@linkcode stdinReadable}, still unread, is read from its `data` events directly — a
 * sequential client sends one request per chunk, and per chunk the Web Streams read promise cost more than
 * the JSON. The stream is locked then, so that nobody else reads it.
 *
 * @example
 * ```ts
 * await readChunks(stdinReadable(), (chunk) => void splitter.push(chunk, frames));
 * ```
 */
export function readChunks(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => Promise<void> | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (!deno && stream === stdinStream && !nodeStdinPulled && !stream.locked) {
    stream.getReader();
    return readNodeStdin(onChunk, signal);
  }
  return readStream(stream, onChunk, signal);
}

/**
 * {@linkcode readChunks} over the process's stdin, without a ReadableStream: on Node from its `data` events
 * (and without loading the Web Streams modules, a few milliseconds of startup), on Deno with
 * `Deno.stdin.read` into one reused buffer — under half the CPU per one-at-a-time request of
 * `Deno.stdin.readable`. A chunk is valid until `onChunk` returns or its promise settles: keep a copy of
 * anything needed later. Once {@linkcode stdinReadable} has made the stream, this reads that stream.
 *
 * @example
 * ```ts
 * await readStdinChunks((chunk) => void splitter.push(chunk, frames));
 * ```
 */
export function readStdinChunks(onChunk: (chunk: Uint8Array) => Promise<void> | undefined, signal?: AbortSignal): Promise<void> {
  if (stdinStream !== undefined) return readChunks(stdinStream, onChunk, signal);
  return deno ? readDenoStdin(deno.stdin, onChunk, signal) : readNodeStdin(onChunk, signal);
}

async function readStream(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => Promise<void> | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const reader = stream.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  if (signal?.aborted) return stop();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || signal?.aborted) return;
      const pending = onChunk(value);
      if (pending !== undefined) await pending;
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

function readNodeStdin(onChunk: (chunk: Uint8Array) => Promise<void> | undefined, signal?: AbortSignal): Promise<void> {
  nodeStdinPulled = true;
  const stdin = process.stdin;
  return new Promise<void>((resolve, reject) => {
    let finished = false;
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      stdin.off("data", onData).off("end", onEnd).off("error", finish);
      signal?.removeEventListener("abort", onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onData = (chunk: Uint8Array) => {
      let pending: Promise<void> | undefined;
      try {
        pending = onChunk(chunk);
      } catch (error) {
        stdin.pause();
        return finish(error);
      }
      if (pending === undefined) return;
      // Paused here, no `data` or `end` comes until the chunk is done with.
      stdin.pause();
      pending.then(() => finished || void stdin.resume(), finish);
    };
    const onEnd = () => finish();
    const onAbort = () => {
      stdin.destroy();
      finish();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    stdin.on("data", onData).on("end", onEnd).on("error", finish);
  });
}

/**
 * Whether a standard stream is attached to a terminal.
 *
 * @example
 * ```ts
 * const format = isTerminal("stdout") ? "plain" : "json";
 * ```
 */
export function isTerminal(stream: StdStream): boolean {
  if (deno) return deno[stream].isTerminal();
  return Boolean(process[stream].isTTY);
}

/**
 * Whether an error is the "reader went away" kind a write to a closed pipe raises (REQ-F-014): Node reports
 * `EPIPE`, Deno `BrokenPipe`.
 *
 * @example
 * ```ts
 * try { await stdioWrite("stdout")(bytes); } catch (e) { if (!isBrokenPipe(e)) throw e; }
 * ```
 */
export function isBrokenPipe(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, name } = error as { code?: unknown; name?: unknown };
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || name === "BrokenPipe";
}

const STRAY_CONSOLE_METHODS = ["log", "info", "debug", "dir", "dirxml", "table"] as const;

/**
 * Reroutes every write that handler code could make to the process stdout — `console.log` and friends,
 * `process.stdout.write`, `Deno.stdout.write` — to stderr, and returns a function that undoes it. Protocol
 * servers call this when serving begins: stdout then carries protocol messages only (REQ-C-032).
 * `stdioWritable("stdout")` keeps writing to the real stdout.
 *
 * @example
 * ```ts
 * const restore = redirectStrayStdout();
 * console.log("goes to stderr now");
 * restore();
 * ```
 */
export function redirectStrayStdout(): () => void {
  const undo: Array<() => void> = [];
  const patch = <T extends object, K extends keyof T>(target: T, key: K, value: T[K]) => {
    const own = Object.prototype.hasOwnProperty.call(target, key);
    const previous = target[key];
    target[key] = value;
    undo.push(() => {
      if (own) target[key] = previous;
      else delete target[key];
    });
  };
  for (const method of STRAY_CONSOLE_METHODS) {
    patch(console, method, ((...args: unknown[]) => console.error(...args)) as Console[typeof method]);
  }
  const stderrWrite = process.stderr.write.bind(process.stderr);
  patch(process.stdout, "write", stderrWrite as typeof process.stdout.write);
  if (deno) {
    patch(deno.stdout, "write", deno.stderr.write.bind(deno.stderr));
    patch(deno.stdout, "writeSync", deno.stderr.writeSync.bind(deno.stderr));
  }
  return () => {
    for (const step of undo.reverse()) step();
  };
}

async function readDenoStdin(
  stdin: DenoApi["stdin"],
  onChunk: (chunk: Uint8Array) => Promise<void> | undefined,
  signal?: AbortSignal,
): Promise<void> {
  // One buffer, reused: the next read starts only once `onChunk` is done with the chunk (and its promise has
  // settled), and the MCP server copies what it keeps. A pending read cannot be cancelled, so an abort wins
  // the race instead; that read's bytes are never looked at.
  const buffer = new Uint8Array(64 * 1024);
  const aborted = signal === undefined
    ? undefined
    : new Promise<null>((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true }));
  const stopped = () => signal?.aborted === true;
  while (!stopped()) {
    const read = stdin.read(buffer);
    const size = aborted === undefined ? await read : await Promise.race([read, aborted]);
    if (size === null || stopped()) return;
    const pending = onChunk(buffer.subarray(0, size));
    if (pending !== undefined) await pending;
  }
}
