/**
 * A protocol server under test, driven line by line the way a client drives it: write to its stdin, read
 * its stdout lines, close stdin, send a signal, wait for its exit — each wait bounded, and the process group
 * always ended on {@linkcode ServerSession.dispose}.
 */
import { KILL_GRACE_MS, textTail } from "../../lib/command/child_run.ts";
import { clearLongTimeout, setLongTimeout } from "../../lib/command/time_limit.ts";
import { type ChildExit, type ChildProcess, spawnChild } from "../../lib/runtime/mod.ts";

const STDERR_KEPT_BYTES = 64 * 1024;

/** A spawned server with its stdin piped. */
export class ServerSession {
  readonly #child: ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  readonly #lines: string[] = [];
  #stderrText = "";
  #stdoutEnded = false;
  #exit: ChildExit | undefined;
  readonly #wakers = new Set<() => void>();

  constructor(argv: readonly string[], cwd?: string) {
    const [program, ...args] = argv;
    this.#child = spawnChild(program!, args, { stdin: "pipe", ...(cwd === undefined ? {} : { cwd }) });
    this.#writer = this.#child.stdin?.getWriter();
    // A server that exits first makes later writes fail; the exit itself is what the checks look at.
    this.#writer?.closed.catch(() => {});
    void this.#readStdout();
    void this.#readStderr();
    void this.#child.exited.then((exit) => {
      this.#exit = exit;
      this.#notify();
    });
  }

  /** The end of what the server wrote to stderr so far. */
  get stderr(): string {
    return this.#stderrText;
  }

  /** Writes one line (a newline is added); a server that is gone just does not read it. */
  async send(line: string): Promise<void> {
    await this.#writer?.write(new TextEncoder().encode(`${line}\n`)).catch(() => {});
  }

  /** The next stdout line, or `undefined` when none arrives within `timeoutMs` (or stdout ended). */
  async nextLine(timeoutMs: number): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#lines.length === 0 && !this.#stdoutEnded && Date.now() < deadline) await this.#sleep(deadline - Date.now());
    return this.#lines.shift();
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

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    try {
      for await (const chunk of this.#child.stdout) {
        const pieces = (partial + decoder.decode(chunk, { stream: true })).split("\n");
        partial = pieces.pop()!;
        for (const piece of pieces) this.#lines.push(piece.replace(/\r$/, ""));
        this.#notify();
      }
    } finally {
      if (partial !== "") this.#lines.push(partial);
      this.#stdoutEnded = true;
      this.#notify();
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.#stderrText = textTail(this.#stderrText + decoder.decode(chunk, { stream: true }), STDERR_KEPT_BYTES);
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
