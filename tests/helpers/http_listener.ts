/**
 * An MCP server listening on HTTP, spawned for real: `notes mcp listen http://…` or `toolwire mcp listen
 * --exec <notes> http://…`, each with a NOTES_HOME of its own, its URL read from the stderr line that names
 * it, and a raw `post` for the wire rules.
 */
import type { ChildProcess } from "node:child_process";
import { finished, NOTES, onlyEnvelope, run, type RunResult, start, tempDir } from "./run.ts";
import { execLine, TOOLWIRE } from "./toolwire.ts";

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
  /** SIGTERM, then its result; the NOTES_HOME is removed. */
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
  return {
    child,
    url,
    home,
    stderr: () => stderr,
    done,
    async titles() {
      const listed = await run([...NOTES, "list"], { env: { NOTES_HOME: home } });
      return onlyEnvelope(listed.stdout).data.map((note: { title: string }) => note.title).sort();
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGTERM");
      const result = await done;
      dir?.cleanup();
      return result;
    },
  };
}

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/** The `_meta` of a 2026-07-28 request. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [VERSION_KEY]: "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "toolwire-http-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

/** A 2026-07-28 request body and the headers that must go with it. */
export function modernPost(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): { body: Record<string, unknown>; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (method === "tools/call" && typeof params.name === "string") headers["mcp-name"] = params.name;
  return {
    body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: modernMeta(meta) } },
    headers,
  };
}
