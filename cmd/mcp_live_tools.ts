/**
 * The tool list of a live MCP stdio server, read the way a client reads it: spawn the server (no shell),
 * `initialize`, `notifications/initialized`, then `tools/list` page by page until no `nextCursor`, over raw
 * JSON lines — and end the server, whatever happened.
 */
import { CommandError, ExitCode, FRAMEWORK_VERSION } from "../mod.ts";
import { LEGACY_VERSIONS } from "../lib/protocol/mcp/mod.ts";
import {
  checkTools,
  type ChildExit,
  type ChildProcess,
  isRecord,
  KILL_GRACE_MS,
  type ListedTool,
  programHint,
  quoteCommandLine,
  spawnChild,
  textTail,
} from "../lib/bridge/mod.ts";

/** The longest stdout line read from a server, in UTF-16 code units: a tool list is far smaller. */
const MAX_LINE_LENGTH = 16 * 1024 * 1024;

/** Most `tools/list` pages followed before the server is taken to be looping. */
const MAX_PAGES = 1_000;

/** How long a server gets to exit on its own once its stdin is closed, before its process group is stopped. */
const EXIT_WAIT_MS = 2_000;

/** Options of {@linkcode listLiveTools}. */
export interface LiveToolsOptions {
  /** Working directory of the server. */
  cwd?: string;
  /** Stops the session and the server's process group (the command's time limit, a signal). */
  signal: AbortSignal;
}

/**
 * Every tool a live MCP stdio server lists, all pages joined. Fails with a {@linkcode CommandError}:
 * NOT_FOUND when the program cannot be started, PRECONDITION when it does not answer as an MCP server (a
 * line that is not JSON, an error answer, an exit before the answer, a malformed or looping list). The
 * server's process group is always ended before this settles.
 *
 * @example
 * ```ts
 * const tools = await listLiveTools(["notes", "mcp", "serve"], { signal: AbortSignal.timeout(30_000) });
 * ```
 */
export async function listLiveTools(
  argv: readonly string[],
  options: LiveToolsOptions,
): Promise<ListedTool[]> {
  const session = new LiveSession(argv, options);
  let listed = false;
  try {
    await session.request("initialize", {
      protocolVersion: LEGACY_VERSIONS[0],
      capabilities: {},
      clientInfo: { name: "toolwire-mcp-diff", version: FRAMEWORK_VERSION },
    });
    await session.notify("notifications/initialized");
    const tools: unknown[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0;; page++) {
      if (page === MAX_PAGES) throw session.refusal(`listed more than ${MAX_PAGES} pages of tools`);
      const result = await session.request("tools/list", cursor === undefined ? {} : { cursor });
      if (!Array.isArray(result.tools)) throw session.refusal("answered tools/list without a tools array");
      // One by one: a spread passes every tool as an argument, past the engine's limit for a big page.
      for (const tool of result.tools) tools.push(tool);
      if (result.nextCursor === undefined) break;
      if (typeof result.nextCursor !== "string") {
        throw session.refusal("answered tools/list with a nextCursor that is not a string");
      }
      if (cursors.has(result.nextCursor)) {
        throw session.refusal("answered tools/list with a cursor it had given before");
      }
      cursors.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    const checked = checkTools(tools);
    listed = true;
    if ("problem" in checked) {
      throw session.refusal(`listed tools the MCP format does not allow: ${checked.problem}`);
    }
    return checked.tools;
  } finally {
    // A server that answered gets to end on its own; one that failed is stopped at once.
    await session.close(listed);
  }
}

/** One client session with a spawned server: sequential requests over JSON lines. */
class LiveSession {
  readonly #child: ChildProcess;
  readonly #program: string;
  readonly #shown: string;
  readonly #signal: AbortSignal;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  readonly #stdout: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #stopped: Promise<never>;
  /** Complete stdout lines not yet read, and the pieces of the line still arriving. */
  readonly #lines: string[] = [];
  #partial: string[] = [];
  #partialLength = 0;
  #stdoutEnded = false;
  #stderrTail = "";
  #exit: ChildExit | undefined;
  #nextId = 1;

  constructor(argv: readonly string[], options: LiveToolsOptions) {
    const [program, ...args] = argv;
    this.#program = program!;
    this.#shown = quoteCommandLine(argv);
    this.#signal = options.signal;
    this.#child = spawnChild(program!, args, {
      stdin: "pipe",
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    this.#writer = this.#child.stdin?.getWriter();
    // A server that is gone makes writes fail; its exit is what gets reported.
    this.#writer?.closed.catch(() => {});
    this.#stdout = this.#child.stdout.getReader();
    void this.#child.exited.then((exit) => (this.#exit = exit));
    void this.#drainStderr();
    this.#stopped = new Promise<never>((_, reject) => {
      if (options.signal.aborted) reject(options.signal.reason);
      else options.signal.addEventListener("abort", () => reject(options.signal.reason), { once: true });
    });
    this.#stopped.catch(() => {});
  }

  /** Sends a request and returns its result object, skipping the notifications and requests that come first. */
  async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    await this.#send({ jsonrpc: "2.0", id, method, params });
    for (;;) {
      const next = this.#nextLine();
      // Left behind when the session is stopped first: its outcome no longer matters.
      next.catch(() => {});
      const line = await Promise.race([next, this.#stopped]);
      if (line === undefined) throw await this.#ended(method);
      if (line.trim() === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        throw this.refusal(`wrote a stdout line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
      }
      if (!isRecord(message) || message.jsonrpc !== "2.0") {
        throw this.refusal(
          `wrote a stdout line that is not a JSON-RPC message: ${JSON.stringify(line.slice(0, 200))}`,
        );
      }
      const reply = message;
      if (typeof reply.method === "string") {
        // A request of the server's own (ping, roots/list…): answered, so a server that waits for it goes on.
        if (Object.hasOwn(reply, "id")) await this.#answer(reply);
        continue;
      }
      if (reply.id !== id) continue;
      if (reply.error !== undefined) {
        const error = reply.error as { code?: unknown; message?: unknown } | null;
        throw this.refusal(`answered ${method} with error ${String(error?.code)}: ${String(error?.message)}`);
      }
      if (!isRecord(reply.result)) {
        throw this.refusal(`answered ${method} without a result object`);
      }
      return reply.result;
    }
  }

  /** Sends a notification. */
  async notify(method: string): Promise<void> {
    await this.#send({ jsonrpc: "2.0", method });
  }

  /** A PRECONDITION failure naming the server, with the end of its stderr. */
  refusal(problem: string): CommandError {
    return new CommandError(ExitCode.PRECONDITION, `the MCP server '${this.#shown}' ${problem}`, {
      suggestion: "--server needs a command line that starts an MCP server speaking JSON lines on stdio",
      details: { server: this.#shown, stderr_tail: textTail(this.#stderrTail, 512) },
    });
  }

  /** Closes stdin, with `graceful` gives the server a moment to exit on its own, then stops its process group. */
  async close(graceful: boolean): Promise<void> {
    // Not awaited: a server that stopped reading stdin would hold the close forever.
    void this.#writer?.close().catch(() => {});
    if (await this.#waitExit(graceful && !this.#signal.aborted ? EXIT_WAIT_MS : 0)) return this.#release();
    this.#child.kill("SIGTERM");
    if (!(await this.#waitExit(KILL_GRACE_MS))) {
      this.#child.kill("SIGKILL");
      await this.#waitExit(KILL_GRACE_MS);
    }
    this.#release();
  }

  #release(): void {
    void this.#stdout.cancel().catch(() => {});
  }

  async #waitExit(ms: number): Promise<boolean> {
    if (this.#exit !== undefined) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      this.#child.exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(timer);
    return exited;
  }

  /** Why stdout ended before the answer: the program never started, or it exited. */
  async #ended(method: string): Promise<CommandError> {
    const exit = await Promise.race([this.#child.exited, this.#stopped]);
    if (exit.spawnError !== undefined) {
      return new CommandError(ExitCode.NOT_FOUND, `cannot start '${this.#program}' (${exit.spawnError})`, {
        suggestion: programHint("--server"),
        details: { server: this.#shown },
      });
    }
    return this.refusal(`exited ${exit.code} before answering ${method}`);
  }

  async #send(message: Record<string, unknown>): Promise<void> {
    const written = this.#writer?.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`)).catch(
      () => {},
    );
    // A server that does not read its stdin must not hold the session past its time limit.
    await Promise.race([written, this.#stopped]);
  }

  async #answer(request: Record<string, unknown>): Promise<void> {
    if (request.method === "ping") return this.#send({ jsonrpc: "2.0", id: request.id, result: {} });
    await this.#send({
      jsonrpc: "2.0",
      id: request.id,
      error: { code: -32601, message: `Method not found: ${String(request.method)}` },
    });
  }

  /** The next stdout line without its line ending, or `undefined` once stdout has ended. */
  async #nextLine(): Promise<string | undefined> {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      if (this.#stdoutEnded) {
        if (this.#partialLength === 0) return undefined;
        const rest = this.#partial.join("");
        this.#partial = [];
        this.#partialLength = 0;
        return rest;
      }
      const { value, done } = await this.#stdout.read();
      if (done) this.#stdoutEnded = true;
      this.#take(done ? this.#decoder.decode() : this.#decoder.decode(value, { stream: true }));
      if (this.#partialLength > MAX_LINE_LENGTH) {
        throw this.refusal(`wrote a stdout line longer than ${MAX_LINE_LENGTH} characters`);
      }
    }
  }

  /** Splits decoded text into lines, searching only the new text: a long line costs its length once. */
  #take(text: string): void {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      this.#partial.push(text.slice(start, newline));
      this.#lines.push(this.#partial.join("").replace(/\r$/, ""));
      this.#partial = [];
      this.#partialLength = 0;
      start = newline + 1;
    }
    if (start < text.length) {
      this.#partial.push(text.slice(start));
      this.#partialLength += text.length - start;
    }
  }

  async #drainStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.#stderrTail = textTail(this.#stderrTail + decoder.decode(chunk, { stream: true }));
    }
  }
}
