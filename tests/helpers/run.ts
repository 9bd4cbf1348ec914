/**
 * Spawning real programs from tests, the same way on Node and Deno: the compiled `dist/` build, which is what
 * npm and JSR users run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface DenoGlobal {
  execPath(): string;
}

const deno = (globalThis as { Deno?: DenoGlobal }).Deno;

/** Which runtime runs the tests, and so which runtime runs the spawned programs. */
export const RUNTIME: "deno" | "node" = deno ? "deno" : "node";

/** The Deno binary that runs the tests; undefined under Node. */
export const DENO_PATH: string | undefined = deno?.execPath();

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The command line that runs an entry point of this repository (named by its TypeScript source) on the
 * test's runtime: its compiled build in `dist/`, which both packages ship.
 */
export function programArgv(entry: string): string[] {
  const built = join(ROOT, "dist", entry.replace(/\.ts$/, ".js"));
  return DENO_PATH === undefined ? [process.execPath, built] : [DENO_PATH, "run", "-A", "--quiet", built];
}

/** The `notes` example. */
export const NOTES = programArgv("examples/notes/main.ts");

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = "toolwire-test-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** The outcome of a finished process. */
export interface RunResult {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Options for {@linkcode run}. */
export interface RunOptions {
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Bytes for stdin; stdin is closed after them. Absent: stdin is an open pipe that is never written. */
  stdin?: string | Uint8Array;
  /** Kill the process after this many ms (the test then fails on the exit code). @default 20000 */
  timeoutMs?: number;
  cwd?: string;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };

/** Normalises an exit: Deno's child_process reports a child that exited 143 as killed by SIGTERM. */
export function exitCodeOf(code: number | null, signal: string | null): number {
  return code ?? 128 + (SIGNALS[signal ?? ""] ?? 0);
}

/** Starts a program with piped stdio. */
export function start(argv: readonly string[], options: RunOptions = {}): ChildProcess {
  const [command, ...args] = argv;
  return spawn(command!, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Collects a started process's output until it exits. */
export function finished(child: ChildProcess, timeoutMs = 20_000): Promise<RunResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: exitCodeOf(code, signal),
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}

/** Runs a program to completion. */
export function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const child = start(argv, options);
  child.stdin!.on("error", () => {});
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  const result = finished(child, options.timeoutMs);
  if (options.stdin === undefined) void result.then(() => child.stdin!.destroy());
  return result;
}

/** Resolves once the process has written `text` to the given stream. */
export function waitForOutput(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  text: string,
  timeoutMs = 15_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${JSON.stringify(text)}; got ${JSON.stringify(seen)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes(text)) {
        clearTimeout(timer);
        child[stream]!.off("data", onData);
        resolve(seen);
      }
    };
    child[stream]!.on("data", onData);
  });
}

/** The last non-empty line of a text. */
export function lastLine(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines[lines.length - 1] ?? "";
}

/** Parsed JSON whose shape the test asserts on as it goes. */
// deno-lint-ignore no-explicit-any
export type Loose = any;

/** An envelope as tests read it. */
export interface LooseEnvelope {
  ok: boolean;
  data: Loose;
  error: Loose;
  warnings: Loose[];
  meta: Loose;
}

/** Parses the single JSON envelope line a command wrote to stdout; fails if there is not exactly one line. */
export function onlyEnvelope(stdout: string): LooseEnvelope {
  const lines = stdout.split("\n").filter((line) => line !== "");
  if (lines.length !== 1) {
    throw new Error(`expected exactly one stdout line, got ${lines.length}: ${stdout.slice(0, 500)}`);
  }
  return JSON.parse(lines[0]!);
}

/** Sends a signal by pid: Deno's `ChildProcess.kill` sends nothing after the first call. */
export function sendSignal(child: ChildProcess, signal: NodeJS.Signals): void {
  process.kill(child.pid!, signal);
}
