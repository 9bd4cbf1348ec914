import { type ChildExit, spawnChild } from "../runtime/mod.ts";

/**
 * How long a child gets between SIGTERM and SIGKILL when it is stopped. Shorter than the second a protocol
 * server gets to wind down after a signal, so a bridged call that ignores SIGTERM still ends with it.
 */
export const KILL_GRACE_MS = 500;

/** Bytes of stderr (and of stdout, for reports) kept as a tail: enough to show why something failed. */
export const TAIL_BYTES = 2_048;

/** Options of {@linkcode runChild}. */
export interface ChildRunOptions {
  /** Working directory. @default the current one */
  cwd?: string;
  /** Milliseconds before the child's process group is stopped; 0 = no limit. */
  timeoutMs: number;
  /** Stops the child's process group when it fires (an MCP cancel, a signal). */
  signal?: AbortSignal;
  /** stdin: `"null"` is empty and at EOF at once; `"open"` is a pipe that is never written nor closed. @default "null" */
  stdin?: "null" | "open";
  /** Each stderr line as it arrives, without its line ending. */
  onStderrLine?(line: string): void;
  /** Most stdout bytes kept; beyond it the oldest are dropped, so the last line survives. @default 67108864 */
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
  /** The end of what it wrote to stderr: the last `maxStderrBytes`. */
  stderrTail: string;
}

/**
 * Runs a program without a shell (argv as given: nothing in it is interpreted) in a process group of its own,
 * to its end: stdout and stderr are collected, and a time limit or an abort stops the whole group — SIGTERM,
 * then SIGKILL after {@linkcode KILL_GRACE_MS} — before the promise settles, so no child outlives its run.
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
  const child = spawnChild(program, args, { ...(options.cwd === undefined ? {} : { cwd: options.cwd }), stdin: options.stdin === "open" ? "pipe" : "null" });
  let ending: ChildRun["ending"] = "exited";
  let exited = false;
  void child.exited.then(() => (exited = true));
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (why: "timeout" | "cancelled") => {
    if (exited || ending !== "exited") return;
    ending = why;
    child.kill("SIGTERM");
    killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
  };
  const limit = options.timeoutMs > 0 ? setTimeout(() => stop("timeout"), options.timeoutMs) : undefined;
  const onAbort = () => stop("cancelled");
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const [stdout, stderrTail, exit] = await Promise.all([
      collect(child.stdout, options.maxStdoutBytes ?? 64 * 1024 * 1024),
      collect(child.stderr, options.maxStderrBytes ?? TAIL_BYTES, options.onStderrLine),
      child.exited,
    ]);
    return { exit, ending, stdout, stderrTail };
  } finally {
    clearTimeout(limit);
    clearTimeout(killTimer);
    options.signal?.removeEventListener("abort", onAbort);
    // An "open" stdin was never meant to be written: let go of it now the child is gone.
    await child.stdin?.close().catch(() => {});
  }
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
  const encoded = new TextEncoder().encode(text);
  if (encoded.length <= bytes) return text;
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
  const lines = text.split("\n").map((line) => line.replace(/\r$/, "")).filter((line) => line.trim() !== "");
  return lines[lines.length - 1] ?? "";
}

async function collect(stream: ReadableStream<Uint8Array>, keepBytes: number, onLine?: (line: string) => void): Promise<string> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  const decoder = new TextDecoder();
  let partial = "";
  for await (const chunk of stream) {
    chunks.push(chunk);
    kept += chunk.length;
    while (kept - chunks[0]!.length >= keepBytes) kept -= chunks.shift()!.length;
    if (onLine !== undefined) {
      partial += decoder.decode(chunk, { stream: true });
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const line of lines) onLine(line.replace(/\r$/, ""));
    }
  }
  if (onLine !== undefined && partial !== "") onLine(partial);
  const joined = new Uint8Array(kept);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return textTail(new TextDecoder().decode(joined), keepBytes);
}
