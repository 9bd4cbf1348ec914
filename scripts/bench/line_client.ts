/**
 * The raw line client: a spawned server driven line by line — lines written to its stdin, lines read from its
 * stdout — so that no SDK client's overhead pollutes the server's numbers. Every answer is checked: its id
 * must be one in flight, and it must be a result.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import type { Readable } from "node:stream";
import {
  DENO,
  DENO_SERVER_DIR,
  NODE_SERVER_DIR,
  ROOT,
  SERVER_ENV,
  type ServerSpec,
  SETTINGS,
} from "./settings.ts";

/** A JSON-RPC message. */
export type Json = Record<string, unknown>;

/**
 * A failure of the bench or of a server under test; the run stops with its message.
 *
 * @example
 * ```ts
 * throw new BenchError("startup call: wrong echo");
 * ```
 */
export class BenchError extends Error {}

/**
 * A value as JSON, cut to 300 characters, for error messages.
 *
 * @example
 * ```ts
 * throw new BenchError(`unexpected message: ${preview(message)}`);
 * ```
 */
export function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
}

/** How to end each live child at once. */
const live = new Set<() => void>();

/**
 * Adds `kill` to what {@linkcode killAll} runs; the returned function takes it out again.
 *
 * @example
 * ```ts
 * const forget = onKillAll(() => child.kill("SIGKILL"));
 * child.on("exit", forget);
 * ```
 */
export function onKillAll(kill: () => void): () => void {
  live.add(kill);
  return () => void live.delete(kill);
}

/**
 * The command and arguments that start a server: its compiled file under Node (and under Deno for a server
 * that runs the build), else its TypeScript under Deno, from this checkout or the spec's `root`.
 *
 * @example
 * ```ts
 * const [command, args] = serverCommand(spec, ["--cpu-prof"]);
 * ```
 */
export function serverCommand(
  spec: { runtime: "node" | "deno"; file: string; args: string[]; root?: string; build?: boolean },
  nodeArgs: string[],
): [string, string[]] {
  const build = spec.runtime === "node" || spec.build === true;
  const dir = spec.root === undefined
    ? (build ? NODE_SERVER_DIR : DENO_SERVER_DIR)
    : join(spec.root, ...(build ? ["dist", "scripts", "bench"] : ["scripts", "bench"]));
  const file = join(dir, `${spec.file}.${build ? "js" : "ts"}`);
  if (spec.runtime === "deno") return [DENO, ["run", "-A", file, ...spec.args]];
  return [process.execPath, [...nodeArgs, file, ...spec.args]];
}

/**
 * Kills every server still running (on the bench's exit, or its failure).
 *
 * @example
 * ```ts
 * process.on("exit", killAll);
 * ```
 */
export function killAll(): void {
  for (const kill of live) kill();
}

/** The process's lifetime and CPU as bash's `time` measured them (getrusage of the reaped child: all threads). */
export interface Timing {
  realMs: number;
  userMs: number;
  sysMs: number;
}

/** Options of a {@linkcode ServerProcess}. */
export interface ServerProcessOptions {
  /** Extra Node flags (`--cpu-prof`); Node servers only. */
  nodeArgs?: string[];
  /**
   * Run the server under bash's `time`, which reports the CPU of the whole process up to its exit — /proc
   * readings end when the process is reaped. `pid` is bash's then, not the server's.
   */
  timed?: boolean;
}

// fd 3 gets the `time` report; the server keeps the real stderr (saved as fd 4) and neither extra fd.
const TIMED_SCRIPT = `exec 4>&2; TIMEFORMAT='%3R %3U %3S'; { time "$@" 2>&4 3>&- 4>&-; } 2>&3`;

let nextId = 1;

/**
 * One spawned server, driven line by line.
 *
 * @example
 * ```ts
 * const server = new ServerProcess(spec);
 * await server.calls("startup", 1, 1, (_, id) => callLine(spec.era, id, "hello"), () => {});
 * await server.close();
 * ```
 */
export class ServerProcess {
  readonly spec: ServerSpec;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly spawnedAt: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** The `time` report of a timed process. */
  readonly timing: Promise<Timing> | undefined;
  #parts: Buffer[] = [];
  #out: string[] = [];
  #stderr = "";
  #onMessage: ((message: Json) => void) | undefined;
  #onFailure: ((error: Error) => void) | undefined;
  #failure: Error | undefined;
  #kill: () => void;

  constructor(spec: ServerSpec, options: ServerProcessOptions = {}) {
    this.spec = spec;
    const [command, args] = serverCommand(spec, options.nodeArgs ?? []);
    const cwd = spec.root ?? ROOT;
    this.spawnedAt = performance.now();
    this.child = options.timed
      // In a process group of its own, so that a failed run can end bash and the server together.
      ? spawn("bash", ["-c", TIMED_SCRIPT, "bench-session", command, ...args], {
        cwd,
        env: SERVER_ENV,
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        detached: true,
      })
      : spawn(command, args, { cwd, env: SERVER_ENV, stdio: ["pipe", "pipe", "pipe"] });
    if (this.child.pid === undefined) throw new BenchError(`${spec.key}: spawn failed`);
    this.pid = this.child.pid;
    const pid = this.pid;
    this.#kill = options.timed
      ? () => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // The group is gone already.
        }
      }
      : () => this.child.kill("SIGKILL");
    live.add(this.#kill);
    this.timing = options.timed ? readTiming(this.child.stdio[3] as Readable, spec.key) : undefined;
    // Awaited by the session that asked for it; a run that fails first must not also leave it unhandled.
    this.timing?.catch(() => {});
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        live.delete(this.#kill);
        resolve({ code, signal, at: performance.now() });
        if (this.#onMessage !== undefined) {
          this.#fail(new BenchError(`exited (code ${code}, signal ${signal}) with requests in flight`));
        }
      });
    });
    this.child.stdin!.on("error", (error) => this.#fail(error));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-4_000);
    });
    this.child.stdout!.on("data", (chunk: Buffer) => this.#data(chunk));
  }

  get stderrTail(): string {
    return this.#stderr;
  }

  /** Queues one line (with its `\n`); {@linkcode flush} writes the queue in one write. */
  queue(line: string): void {
    this.#out.push(line);
  }

  flush(): void {
    if (this.#out.length === 0) return;
    const text = this.#out.length === 1 ? this.#out[0]! : this.#out.join("");
    this.#out = [];
    this.child.stdin!.write(text);
  }

  /**
   * Runs one phase: `count` requests, at most `inFlight` open at once. `line(i)` builds request i with the
   * given id; `check(i, result)` throws when the result is wrong. Resolves with per-request latencies.
   */
  calls(
    phase: string,
    count: number,
    inFlight: number,
    line: (i: number, id: number) => string,
    check: (i: number, result: Json) => void,
  ): Promise<number[]> {
    const latencies = new Array<number>(count);
    const open = new Map<number, { i: number; sentAt: number }>();
    let next = 0;
    let done = 0;
    return new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.#fail(
            new BenchError(
              `${phase}: timed out after ${SETTINGS.phaseTimeoutMs} ms (${done}/${count} answered)`,
            ),
          ),
        SETTINGS.phaseTimeoutMs,
      );
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.#onMessage = undefined;
        this.#onFailure = undefined;
        if (error !== undefined) reject(error);
        else resolve(latencies);
      };
      const sendNext = () => {
        const i = next++;
        const id = nextId++;
        open.set(id, { i, sentAt: performance.now() });
        this.queue(line(i, id));
      };
      this.#onFailure = (error) =>
        finish(
          new BenchError(
            `${this.spec.key} ${phase}: ${error.message}\nstderr: ${this.#stderr.slice(-1_000)}`,
          ),
        );
      this.#onMessage = (message) => {
        const id = message.id;
        const pending = typeof id === "number" ? open.get(id) : undefined;
        if (pending === undefined) {
          throw new BenchError(`unexpected message (id not in flight): ${preview(message)}`);
        }
        open.delete(id as number);
        latencies[pending.i] = performance.now() - pending.sentAt;
        if (message.error !== undefined || typeof message.result !== "object" || message.result === null) {
          throw new BenchError(`request ${id} failed: ${preview(message)}`);
        }
        check(pending.i, message.result as Json);
        done++;
        if (next < count) sendNext();
        else if (done === count) finish();
      };
      if (this.#failure !== undefined) return finish(this.#failure);
      while (next < count && open.size < inFlight) sendNext();
      this.flush();
    });
  }

  /** Closes stdin (EOF); resolves with how long the process took to exit. */
  async close(): Promise<{ exitMs: number; code: number | null; signal: NodeJS.Signals | null }> {
    const closedAt = performance.now();
    this.child.stdin!.end();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new BenchError(`${this.spec.key}: did not exit within 10 s of stdin EOF`)),
        10_000,
      );
    });
    try {
      const { code, signal, at } = await Promise.race([this.exited, timeout]);
      return { exitMs: at - closedAt, code, signal };
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    this.#kill();
  }

  #data(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10);
    try {
      while (newline !== -1) {
        let line = chunk.subarray(start, newline);
        if (this.#parts.length > 0) {
          this.#parts.push(line);
          line = Buffer.concat(this.#parts);
          this.#parts = [];
        }
        start = newline + 1;
        newline = chunk.indexOf(10, start);
        if (line.length === 0) continue;
        let message: unknown;
        try {
          message = JSON.parse(line.toString("utf8"));
        } catch {
          throw new BenchError(
            `stdout carried a line that is not JSON: ${line.subarray(0, 200).toString("utf8")}`,
          );
        }
        if (typeof message !== "object" || message === null || Array.isArray(message)) {
          throw new BenchError(`stdout carried a non-object message: ${preview(message)}`);
        }
        if (this.#onMessage === undefined) throw new BenchError(`unsolicited message: ${preview(message)}`);
        this.#onMessage(message as Json);
      }
      if (start < chunk.length) this.#parts.push(chunk.subarray(start));
      this.flush();
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#onFailure?.(error);
  }
}

/** Reads the `time` report (`real user sys`, seconds) from its own pipe. */
function readTiming(stream: Readable, key: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (part: string) => {
      text += part;
    });
    stream.on("error", reject);
    stream.on("end", () => {
      // The locale may write a decimal comma.
      const seconds = text.trim().replaceAll(",", ".").split(/\s+/).map(Number);
      if (seconds.length !== 3 || !seconds.every(Number.isFinite)) {
        reject(new BenchError(`${key}: no time report from bash, got ${JSON.stringify(text.slice(0, 300))}`));
      } else {
        resolve({ realMs: seconds[0]! * 1000, userMs: seconds[1]! * 1000, sysMs: seconds[2]! * 1000 });
      }
    });
  });
}
