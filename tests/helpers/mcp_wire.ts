/**
 * Raw-line MCP sessions for wire tests: spawn a real server, write exact lines, read exact lines. Every
 * stdout byte is kept, so a test can check that nothing but protocol messages was ever written.
 */
import type { ChildProcess } from "node:child_process";
import { Inbox } from "./inbox.ts";
import { finished, type Loose, type RunOptions, type RunResult, start } from "./run.ts";

/** The `_meta` envelope a modern request carries. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "wire-test", version: "1.0.0" },
    ...extra,
  };
}

/** A modern request object. */
export function modern(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: modernMeta(meta) } };
}

/** A legacy `initialize` request. */
export function initialize(id: number | string = 0, protocolVersion = "2025-11-25"): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "wire-test", version: "1.0.0" } },
  };
}

/** What a wire test reads of a session, whatever serves it: its messages, one JSON text each, in order. */
export abstract class WireReader {
  protected readonly lines = new Inbox<string>();

  /** Every message the server sent, as the text it wrote. */
  abstract get stdoutText(): string;

  /** Writes one message to the server. */
  abstract send(message: Record<string, unknown> | unknown[] | string | Uint8Array): void;

  /** The next message the server sends, parsed; fails after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<Loose> {
    return JSON.parse(
      await this.lines.next(timeoutMs, () => {}, () => `stdout so far ends: ${this.stdoutText.slice(-500)}`),
    );
  }

  /** Sends a request and returns its response, skipping nothing: the very next message must answer it. */
  async request(message: Record<string, unknown>): Promise<Loose> {
    this.send(message);
    const reply = await this.next();
    if (reply.id !== message.id) {
      throw new Error(`expected the reply to ${JSON.stringify(message.id)}, got ${JSON.stringify(reply)}`);
    }
    return reply;
  }

  /** Collects `count` messages, in arrival order. */
  async take(count: number, timeoutMs = 10_000): Promise<Loose[]> {
    const out: Loose[] = [];
    for (let i = 0; i < count; i++) out.push(await this.next(timeoutMs));
    return out;
  }
}

/** A spawned MCP server driven line by line. */
export class WireSession extends WireReader {
  readonly child: ChildProcess;
  readonly #done: Promise<RunResult>;
  #partial: string[] = [];
  readonly #stdoutParts: string[] = [];

  /** Every byte the server wrote to stdout, as text. */
  get stdoutText(): string {
    return this.#stdoutParts.join("");
  }

  constructor(argv: readonly string[], options: RunOptions = {}) {
    super();
    this.child = start(argv, options);
    this.child.stdin!.on("error", () => {});
    const decoder = new TextDecoder();
    this.child.stdout!.on("data", (chunk: Buffer) => {
      const text = decoder.decode(chunk, { stream: true });
      this.#stdoutParts.push(text);
      // Only the new text is scanned: a 16 MB line in 64 KiB chunks stays linear.
      let start = 0;
      let newline = text.indexOf("\n");
      while (newline !== -1) {
        this.#partial.push(text.slice(start, newline));
        this.lines.push(this.#partial.join(""));
        this.#partial = [];
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      if (start < text.length) this.#partial.push(text.slice(start));
    });
    this.#done = finished(this.child, options.timeoutMs ?? 30_000);
  }

  /** Writes one message (an object is serialised; a string or bytes are written as they are, plus `\n` for strings). */
  override send(message: Record<string, unknown> | unknown[] | string | Uint8Array): void {
    if (message instanceof Uint8Array) this.child.stdin!.write(message);
    else if (typeof message === "string") this.child.stdin!.write(`${message}\n`);
    else this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** Whether unread lines are waiting. */
  get pending(): number {
    return this.lines.unread().length;
  }

  /** Closes stdin and waits for the process to end. */
  async close(): Promise<RunResult> {
    this.child.stdin!.end();
    return await this.#done;
  }

  /** Waits for the process to end without closing stdin. */
  exited(): Promise<RunResult> {
    return this.#done;
  }
}
