import { nodeProcess } from "./node_process.ts";
import { deno } from "./deno_api.ts";

/** One of the three standard streams. */
export type StdStream = "stdin" | "stdout" | "stderr";

/** What the stdio writers take: bytes, or text to be written as UTF-8. */
export type StdioData = Uint8Array | string;

/** Writes to a standard stream; resolves once the data is handed to the OS. */
export type StdioWrite = (data: StdioData) => Promise<void>;

/**
 * What {@linkcode nodeWrite} uses of a Node writable stream (stdout, stderr, a socket), written out rather
 * than named from Node's type library: the published types must stand on their own, in a project without
 * `@types/node`.
 *
 * @example
 * ```ts
 * const chunks: Array<Uint8Array | string> = [];
 * const sink: NodeWritable = { write: (data) => chunks.push(data) > 0 };
 * ```
 */
export interface NodeWritable {
  write(data: Uint8Array | string, callback?: (error?: Error | null) => void): boolean;
  /** Bytes queued in the stream; a Node `Writable` says, other streams may not. */
  readonly writableLength?: number;
  readonly writableEnded?: boolean;
  readonly destroyed?: boolean;
  /** The error that broke the stream, once one has. */
  readonly errored?: Error | null;
}

const encoder = new TextEncoder();

/** The Deno writer's scratch buffer: a message, or a piece of a longer one, is encoded into it and written from it. */
const DENO_SCRATCH_BYTES = 64 * 1024;

/**
 * Deno: the first error a write to the process's stdout or stderr met; the stream is broken from then on.
 * (Node's streams keep theirs as `errored`, set when the write fails.)
 */
const writeFailures: { stdout?: { error: unknown }; stderr?: { error: unknown } } = {};

// Captured once, before anything can reroute stray writes (see `redirectStrayStdout`): the protocol channel
// must keep writing to the real fd 1 after handler code has been pointed at stderr.
const rawWrite: Record<"stdout" | "stderr", StdioWrite> = deno
  ? { stdout: denoWriteAll(deno.stdout, "stdout"), stderr: denoWriteAll(deno.stderr, "stderr") }
  : { stdout: nodeWrite(nodeProcess().stdout), stderr: nodeWrite(nodeProcess().stderr) };

if (!deno) {
  // Without a listener an EPIPE on stdout is an uncaught exception (REQ-F-014). The failed write's callback
  // still reports it to whoever awaits it, and the stream keeps it as `errored`.
  nodeProcess().stdout.on("error", () => {});
  nodeProcess().stderr.on("error", () => {});
}

/**
 * The first error a write to the process's stdout or stderr met, or `undefined` while every write went
 * through. The writers do not throw at their callers once a stream is broken (see `SerialWriter`); the end
 * of a run asks here whether what it printed was lost.
 *
 * @example
 * ```ts
 * const failure = stdioWriteFailure("stdout");
 * if (failure !== undefined && !isClosedPipe(failure)) console.error("stdout could not be written");
 * ```
 */
export function stdioWriteFailure(stream: "stdout" | "stderr"): unknown {
  // Read from the stream itself on Node: its `error` event comes a tick after the write failed, too late
  // for a run that is ending.
  if (!deno) return nodeProcess()[stream].errored ?? undefined;
  return writeFailures[stream]?.error;
}

/**
 * Whether a write error means that the reader is gone — EPIPE, a pipe closed by `head` or a client that left
 * (REQ-F-014) — which a command exits on quietly. Every other error (ENOSPC on a full disk or `/dev/full`,
 * EIO, EBADF) lost output someone was to read, and is reported.
 *
 * @example
 * ```ts
 * isClosedPipe(Object.assign(new Error("write EPIPE"), { code: "EPIPE" })); // true
 * isClosedPipe(Object.assign(new Error("no space left"), { code: "ENOSPC" })); // false
 * ```
 */
export function isClosedPipe(error: unknown): boolean {
  const { code, name } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    name?: unknown;
  };
  // Node sets `code`; Deno's error for it is `Deno.errors.BrokenPipe`, with the same `code`.
  return code === "EPIPE" || name === "BrokenPipe";
}

/**
 * Deno: text is encoded into one reused scratch buffer and written from there, a piece at a time when it is
 * longer — never encoded whole, so a big reply is not held twice (docs/performance.md#deno). A write that
 * starts while another one still owns the scratch buffer gets a buffer of its own.
 */
function denoWriteAll(
  writer: { write(bytes: Uint8Array): Promise<number> },
  stream: "stdout" | "stderr",
): StdioWrite {
  const bound = writer.write.bind(writer);
  const write = (bytes: Uint8Array) =>
    bound(bytes).catch((error: unknown) => {
      writeFailures[stream] ??= { error };
      throw error;
    });
  const writeAll = async (bytes: Uint8Array) => {
    let offset = 0;
    while (offset < bytes.length) offset += await write(bytes.subarray(offset));
  };
  let scratch: Uint8Array | undefined;
  let scratchBusy = false;
  // One async function per message, its write loop inline (docs/performance.md#deno).
  const writeText = async (text: string, buffer: Uint8Array, owned: boolean) => {
    try {
      // encodeInto stops before a character that does not fit, so no piece splits a surrogate pair; the rest
      // of a string is a view of it, not a copy.
      let rest = text;
      for (;;) {
        const { read, written } = encoder.encodeInto(rest, buffer);
        let offset = 0;
        while (offset < written) offset += await write(buffer.subarray(offset, written));
        if (read >= rest.length) return;
        rest = rest.substring(read);
      }
    } finally {
      if (owned) scratchBusy = false;
    }
  };
  return (data) => {
    if (typeof data !== "string") return writeAll(data);
    if (scratchBusy) return writeText(data, new Uint8Array(DENO_SCRATCH_BYTES), false);
    scratchBusy = true;
    return writeText(data, scratch ??= new Uint8Array(DENO_SCRATCH_BYTES), true);
  };
}

/**
 * Writes to a Node writable stream (stdout, stderr, a socket): text goes in as text — Node encodes it on
 * the way to the system call, cheaper than a TextEncoder call and an ArrayBuffer per message — and the
 * promise settles once the data left the process (or the write failed).
 *
 * @example
 * ```ts
 * import { connect } from "node:net";
 *
 * const socket = connect({ host: "127.0.0.1", port: 7000 });
 * await nodeWrite(socket)("hello\n");
 * ```
 */
export function nodeWrite(stream: NodeWritable): StdioWrite {
  const writable = stream;
  const write = stream.write.bind(stream);
  // Awaiting the callback is the flush guarantee that `process.exit` lacks past 64 KiB on a pipe.
  const written = (data: StdioData) =>
    new Promise<void>((resolve, reject) => {
      write(data, (error?: Error | null) => (error ? reject(error) : resolve()));
    });
  return (data) => {
    // Only a Node Writable says what it holds (`writableLength`); other streams are awaited through the callback.
    if (writable.writableLength !== 0 || writable.destroyed || writable.writableEnded) return written(data);
    // Nothing is queued, so the OS usually takes the whole write at once (a pipe or a socket with room). A
    // write with a callback costs Node a tick even then; without one it costs nothing more, and an empty
    // stream buffer afterwards says the bytes left the process.
    try {
      write(data);
    } catch (error) {
      return Promise.reject(error);
    }
    if (writable.errored) return Promise.reject(writable.errored);
    if (writable.writableLength === 0) return Promise.resolve();
    // Queued behind a full pipe: the callback of an empty write comes once everything before it is out (or
    // failed: Node fails the callbacks of queued writes with the stream's error).
    return written("");
  };
}

/**
 * The process's real stdout or stderr as a write function: text or bytes in, resolved once handed to the OS,
 * so awaiting the last write and then exiting loses nothing. It keeps writing to the real stream after
 * {@linkcode redirectStrayStdout} pointed handler code at stderr.
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
 * Whether a standard stream is attached to a terminal.
 *
 * @example
 * ```ts
 * const format = isTerminal("stdout") ? "plain" : "json";
 * ```
 */
export function isTerminal(stream: StdStream): boolean {
  if (deno) return deno[stream].isTerminal();
  return Boolean(nodeProcess()[stream].isTTY);
}

const STRAY_CONSOLE_METHODS = ["log", "info", "debug", "dir", "dirxml", "table"] as const;

/**
 * Reroutes every write that handler code could make to the process stdout — `console.log` and friends,
 * `process.stdout.write`, `Deno.stdout.write` — to stderr, and returns a function that undoes it. Protocol
 * servers call this when serving begins: stdout then carries protocol messages only (REQ-C-032).
 * `stdioWrite("stdout")` and `processChannel()` keep writing to the real stdout.
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
  if (deno) {
    // Deno's Node-compatible `process.stdout` writes through `Deno.stdout.writeSync`, so these two cover it
    // as well, without loading the compatibility layer for a `process` the handlers may never touch.
    patch(deno.stdout, "write", deno.stderr.write.bind(deno.stderr));
    patch(deno.stdout, "writeSync", deno.stderr.writeSync.bind(deno.stderr));
  } else {
    const { stdout, stderr } = nodeProcess();
    patch(stdout, "write", stderr.write.bind(stderr) as typeof stdout.write);
  }
  return () => {
    for (const step of undo.reverse()) step();
  };
}
