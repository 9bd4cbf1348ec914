import process from "node:process";
import { Readable } from "node:stream";
import { deno } from "./deno_api.ts";

/** One of the three standard streams. */
export type StdStream = "stdin" | "stdout" | "stderr";

type ByteWrite = (bytes: Uint8Array) => Promise<void>;

// Captured once, before anything can reroute stray writes (see `redirectStrayStdout`): the protocol channel
// must keep writing to the real fd 1 after handler code has been pointed at stderr.
const rawWrite: Record<"stdout" | "stderr", ByteWrite> = deno
  ? { stdout: denoWriteAll(deno.stdout), stderr: denoWriteAll(deno.stderr) }
  : { stdout: nodeWrite(process.stdout), stderr: nodeWrite(process.stderr) };

if (!deno) {
  // Without a listener an EPIPE on stdout is an uncaught exception (REQ-F-014). The failed write's callback
  // still reports it to whoever awaits it.
  process.stdout.on("error", () => {});
  process.stderr.on("error", () => {});
}

function denoWriteAll(writer: { write(bytes: Uint8Array): Promise<number> }): ByteWrite {
  const write = writer.write.bind(writer);
  return async (bytes) => {
    let offset = 0;
    while (offset < bytes.length) offset += await write(bytes.subarray(offset));
  };
}

function nodeWrite(stream: NodeJS.WriteStream): ByteWrite {
  const write = stream.write.bind(stream);
  // The callback fires once the bytes left the process (or failed): awaiting it is the flush guarantee
  // that `process.exit` lacks past 64 KiB on a pipe.
  return (bytes) =>
    new Promise<void>((resolve, reject) => {
      write(bytes, (error?: Error | null) => (error ? reject(error) : resolve()));
    });
}

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
  return new WritableStream<Uint8Array>({ write: (chunk) => write(chunk) });
}

/**
 * Writes bytes to the real stdout or stderr and resolves once they are flushed.
 *
 * @example
 * ```ts
 * await writeStdio("stderr", new TextEncoder().encode("warning: disk almost full\n"));
 * ```
 */
export function writeStdio(stream: "stdout" | "stderr", bytes: Uint8Array): Promise<void> {
  return rawWrite[stream](bytes);
}

let stdinStream: ReadableStream<Uint8Array> | undefined;

/**
 * Standard input as a ReadableStream of bytes. Created on first use only: commands that never ask never
 * touch stdin (`--help` must not read it).
 *
 * @example
 * ```ts
 * const reader = stdinReadable().getReader();
 * const first = await reader.read();
 * ```
 */
export function stdinReadable(): ReadableStream<Uint8Array> {
  stdinStream ??= deno
    ? deno.stdin.readable
    : (Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>);
  return stdinStream;
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
 * try { await writeStdio("stdout", bytes); } catch (e) { if (!isBrokenPipe(e)) throw e; }
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
