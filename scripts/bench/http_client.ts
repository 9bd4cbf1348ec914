/**
 * The HTTP client of the bench: a spawned server that names its URL on stderr, driven with keep-alive
 * `node:http` connections from this process — one per client, as many as run at once — so that no SDK
 * client's overhead pollutes the server's numbers. Every answer is checked: status 200, a JSON body or an
 * event stream, the id of its request, a result whose echoed text round-trips.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { Buffer } from "node:buffer";
import { BenchError, type Json, onKillAll, preview, serverCommand } from "./line_client.ts";
import { callLine, echoed } from "./messages.ts";
import { join } from "node:path";
import { type Era, type HttpServerSpec, OUT_DIR, PROFILE, ROOT, SERVER_ENV, SETTINGS } from "./settings.ts";

const MODERN_VERSION = "2026-07-28";
const LEGACY_VERSION = "2025-11-25";

/** The headers of a tools/call of `echo` in each era (2026-07-28 carries its method and tool name). */
const HEADERS: Record<Era, Record<string, string>> = {
  modern: {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "echo",
  },
  legacy: {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": LEGACY_VERSION,
  },
};

let nextId = 1;

/**
 * One spawned HTTP server and the keep-alive connections to it.
 *
 * @example
 * ```ts
 * const server = await HttpServerProcess.start(spec);
 * await server.calls("modern", 100, 1, (i) => `text ${i}`);
 * await server.close();
 * ```
 */
export class HttpServerProcess {
  readonly spec: HttpServerSpec;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  readonly #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #host = "";
  #port = 0;
  #path = "";
  #stderr = "";

  private constructor(spec: HttpServerSpec) {
    this.spec = spec;
    const nodeArgs = PROFILE && spec.kind === "toolwire" && spec.runtime === "node"
      ? [
        "--cpu-prof",
        `--cpu-prof-dir=${join(OUT_DIR, "profiles")}`,
        `--cpu-prof-name=${spec.key}.cpuprofile`,
      ]
      : [];
    const [command, args] = serverCommand(spec, nodeArgs);
    this.child = spawn(command, args, { cwd: ROOT, env: SERVER_ENV, stdio: ["ignore", "ignore", "pipe"] });
    if (this.child.pid === undefined) throw new BenchError(`${spec.key}: spawn failed`);
    this.pid = this.child.pid;
    const forget = onKillAll(() => this.child.kill("SIGKILL"));
    this.#exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        forget();
        resolve({ code, signal });
      });
    });
    this.child.stderr!.setEncoding("utf8");
  }

  /** Spawns the server and waits for the stderr line that names its URL. */
  static start(spec: HttpServerSpec): Promise<HttpServerProcess> {
    const server = new HttpServerProcess(spec);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail("named no URL on stderr within 30 s"), 30_000);
      const fail = (why: string) => {
        clearTimeout(timer);
        server.child.kill("SIGKILL");
        reject(new BenchError(`${spec.key}: ${why}\nstderr: ${server.#stderr.slice(-1_000)}`));
      };
      void server.#exited.then(({ code, signal }) => fail(`exited (code ${code}, signal ${signal})`));
      server.child.stderr!.on("data", (text: string) => {
        server.#stderr = (server.#stderr + text).slice(-4_000);
        const url = /http:\/\/(\S+):(\d+)(\/\S*)/.exec(server.#stderr);
        if (url === null || server.#port !== 0) return;
        server.#host = url[1]!;
        server.#port = Number(url[2]);
        server.#path = url[3]!;
        clearTimeout(timer);
        resolve(server);
      });
    });
  }

  /**
   * Runs `count` echo calls in `era` from `clients` keep-alive connections, each sending its next call once
   * its last is answered, checking every answer; resolves with their latencies (ms).
   */
  calls(era: Era, count: number, clients: number, text: (i: number) => string): Promise<number[]> {
    const latencies = new Array<number>(count);
    let next = 0;
    const client = async (): Promise<void> => {
      while (next < count) {
        const i = next++;
        const id = nextId++;
        const sent = text(i);
        const sentAt = performance.now();
        const { status, type, body } = await this.#post(HEADERS[era], callLine(era, id, sent));
        latencies[i] = performance.now() - sentAt;
        const message = answerOf(type, body, id);
        if (status !== 200 || message?.result === undefined) {
          throw new BenchError(
            `${this.spec.key} ${era}: request ${i} answered ${status}: ${body.slice(0, 300)}`,
          );
        }
        const got = echoed({ era, envelope: this.spec.envelope }, message.result as Json);
        if (got !== sent) {
          throw new BenchError(`${this.spec.key} ${era}: request ${i}: the echoed text differs`);
        }
      }
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new BenchError(`${this.spec.key} ${era}: timed out after ${SETTINGS.phaseTimeoutMs} ms`)),
        SETTINGS.phaseTimeoutMs,
      );
    });
    const all = Promise.all(Array.from({ length: Math.min(clients, count) }, client));
    return Promise.race([all, late]).then(() => latencies).finally(() => clearTimeout(timer));
  }

  #post(
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; type: string; body: string }> {
    return new Promise((resolve, reject) => {
      const outgoing = request({
        host: this.#host,
        port: this.#port,
        path: this.#path,
        method: "POST",
        agent: this.#agent,
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      }, (response) => {
        const parts: Buffer[] = [];
        response.on("data", (chunk: Buffer) => parts.push(chunk));
        response.on("error", reject);
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers["content-type"] ?? "",
            body: Buffer.concat(parts).toString("utf8"),
          }));
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  }

  /** SIGTERM (the listeners' graceful stop), then the exit. */
  async close(): Promise<void> {
    this.#agent.destroy();
    this.child.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.child.kill("SIGKILL");
        resolve();
      }, 10_000);
    });
    await Promise.race([this.#exited, late]);
    clearTimeout(timer);
  }
}

/** The answer to request `id`: the JSON body, or the event of the stream that carries it. */
function answerOf(type: string, body: string, id: number): Json | undefined {
  const parse = (text: string): Json | undefined => {
    try {
      const message = JSON.parse(text) as unknown;
      return typeof message === "object" && message !== null ? message as Json : undefined;
    } catch {
      throw new BenchError(`a body that is not JSON: ${preview(text)}`);
    }
  };
  if (!type.startsWith("text/event-stream")) return parse(body);
  for (const line of body.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const message = parse(line.slice(5));
    if (message?.id === id) return message;
  }
  return undefined;
}
