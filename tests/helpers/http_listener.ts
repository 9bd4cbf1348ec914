/**
 * An MCP server listening on HTTP, spawned for real: `notes mcp listen http://…` or `toolwire mcp listen
 * --exec <notes> http://…` (or any listener), each with a NOTES_HOME of its own, its URL read from the stderr
 * line that names it; `post` and `rawHttp` for the wire rules.
 */
import type { ChildProcess } from "node:child_process";
import { Buffer } from "node:buffer";
import { connect } from "node:net";
import process from "node:process";
import { finished, type Loose, NOTES, onlyEnvelope, run, type RunResult, start, tempDir } from "./run.ts";
import { execLine, TOOLWIRE } from "./toolwire.ts";
import { modern as modernRequest } from "./mcp_wire.ts";

/** The two servers every HTTP test runs against. */
export const HTTP_SERVERS = [
  { name: "notes mcp listen", argv: (flags: readonly string[]) => [...NOTES, "mcp", "listen", ...flags] },
  {
    name: "toolwire mcp listen --exec notes",
    argv: (flags: readonly string[]) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), ...flags],
  },
] as const;

/** A running listener. */
export interface HttpListener {
  child: ChildProcess;
  /** The endpoint's URL, with the port the system chose. */
  url: string;
  /** The NOTES_HOME it serves. */
  home: string;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Settles once it has exited. */
  done: Promise<RunResult>;
  /** The titles of the notes in its NOTES_HOME, sorted, read by the notes CLI itself. */
  titles(): Promise<string[]>;
  /** Sends SIGTERM, once: a second one would cut the server's shutdown short. */
  terminate(): void;
  /** SIGTERM (unless sent already), then its result; the NOTES_HOME is removed. */
  stop(): Promise<RunResult>;
}

/**
 * Starts a listener on `http://127.0.0.1:0/mcp` (or `address`) and waits for the line naming its URL.
 * `argv` builds the command line from the flags and the address.
 */
export async function startHttpListener(
  argv: (flags: readonly string[]) => string[],
  options: { flags?: readonly string[]; address?: string; env?: Record<string, string>; home?: string } = {},
): Promise<HttpListener> {
  const dir = options.home === undefined ? tempDir("toolwire-http-") : undefined;
  const home = options.home ?? dir!.path;
  const child = start(argv([...options.flags ?? [], options.address ?? "http://127.0.0.1:0/mcp"]), {
    env: { NOTES_HOME: home, ...options.env },
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const done = finished(child, 120_000);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL on stderr after 30 s: ${stderr}`)), 30_000);
    const look = () => {
      const found = /serving \S+ on (http:\/\/\S+)/.exec(stderr);
      if (found === null) return;
      clearTimeout(timer);
      child.stderr!.off("data", look);
      resolve(found[1]!);
    };
    child.stderr!.on("data", look);
    void done.then((result) => {
      clearTimeout(timer);
      reject(new Error(`the listener exited ${result.code} before serving: ${result.stderr}`));
    });
  });
  let signalled = false;
  const terminate = () => {
    if (signalled || child.exitCode !== null || child.signalCode !== null) return;
    signalled = true;
    process.kill(child.pid!, "SIGTERM");
  };
  return {
    child,
    url,
    terminate,
    home,
    stderr: () => stderr,
    done,
    async titles() {
      const listed = await run([...NOTES, "list"], { env: { NOTES_HOME: home } });
      return onlyEnvelope(listed.stdout).data.map((note: { title: string }) => note.title).sort();
    },
    async stop() {
      terminate();
      const result = await done;
      dir?.cleanup();
      return result;
    },
  };
}

/** The headers a 2026-07-28 request must carry, for `method` (and `name`, for a `tools/call`). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
  };
}

/** The headers of a legacy request at `version` (none: a 2025-03-26 client, which sent no version header). */
export function legacyHeaders(version?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(version === undefined ? {} : { "mcp-protocol-version": version }),
  };
}

/** An answer, read whole. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: Loose;
}

/** POSTs `body` (an object is sent as JSON, a string as it is) and reads the whole answer. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  init: { method?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? "POST",
    headers,
    ...(init.method === "GET" ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
  const text = await response.text();
  let json: Loose;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The messages of an event stream's text, in order; comment lines are counted apart. */
export function sseMessages(text: string): { messages: Loose[]; comments: number } {
  const messages: Loose[] = [];
  let comments = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith("data:")) messages.push(JSON.parse(line.slice(5)));
    else if (line.startsWith(":")) comments++;
  }
  return { messages, comments };
}

/** The port of a listener's URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * Writes raw bytes to the port and collects what comes back until the server closes the connection, or
 * `waitMs` passes (then `closed` is false). For what fetch will not send: a Host of one's choosing, headers
 * or a body that never finish.
 */
export function rawHttp(
  port: number,
  text: string,
  waitMs = 10_000,
): Promise<{ reply: string; closed: boolean; afterMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ reply, closed: false, afterMs: Date.now() - started });
    }, waitMs);
    socket.on("data", (chunk: Buffer) => (reply += chunk.toString("utf8")));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ reply, closed: true, afterMs: Date.now() - started });
    });
    socket.write(text);
  });
}

/** A raw `subscriptions/listen` POST: its status, headers and body so far, on a socket left open. */
export interface RawListen {
  status: number;
  /** The response's header block, names in lower case. */
  headers: Record<string, string>;
  /** The body read so far: the acknowledgement's event of an open stream, or a whole JSON refusal. */
  body: string;
  /** Closes the connection, the stream with it; resolves once it is closed. */
  close(): Promise<void>;
}

/**
 * POSTs a modern `subscriptions/listen` over a socket of its own (from `localAddress`, any 127.x.y.z address
 * on Linux), and resolves once its first event or its whole refused body has arrived.
 */
export function openListen(
  url: string,
  options: { id?: number | string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<RawListen> {
  const body = JSON.stringify(modernRequest(options.id ?? 1, "subscriptions/listen", { notifications: {} }));
  const headers = { ...modernHeaders("subscriptions/listen"), ...options.headers };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const socket = connect({
    port: portOf(url),
    host: "127.0.0.1",
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const close = () => {
    socket.destroy();
    return closed;
  };
  socket.write(
    `POST ${new URL(url).pathname} HTTP/1.1\r\nhost: ${new URL(url).host}\r\n${lines}` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to subscriptions/listen within 10 s: ${JSON.stringify(text)}`));
    }, 10_000);
    socket.on("error", () => {});
    const early = () => {
      clearTimeout(timer);
      reject(new Error(`the connection closed before an answer: ${JSON.stringify(text)}`));
    };
    socket.once("close", early);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      const [statusLine, ...fields] = text.slice(0, end).split("\r\n");
      const parsed: Record<string, string> = {};
      for (const field of fields) {
        const colon = field.indexOf(":");
        parsed[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      const rest = text.slice(end + 4);
      const length = parsed["content-length"];
      const whole = length === undefined
        ? /data:.*\n\n/.test(rest)
        : Buffer.byteLength(rest) >= Number(length);
      if (!whole) return;
      clearTimeout(timer);
      socket.off("close", early);
      const stream = length === undefined;
      resolve({
        status: Number(statusLine!.split(" ")[1]),
        headers: parsed,
        body: stream ? rest : rest.slice(0, Number(length)),
        close,
      });
    });
  });
}
