/**
 * The parts of a fleet, started for real: Redis (with its append-only file synced on every write, so it
 * keeps across a restart what it acknowledged), three `notes mcp listen http://…` instances sharing one
 * NOTES_HOME, one Redis and one confirmation secret, and haproxy or nginx in front, round-robin with no
 * affinity. The balancer configurations are the ones docs/scaling.md shows. Used by the fleet test and by
 * `npm run soak -- --fleet`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { StoreLink } from "./store_link.ts";

/** The balancers a fleet can run behind. */
export const BALANCERS = ["haproxy", "nginx"] as const;
/** One of {@linkcode BALANCERS}. */
export type Balancer = (typeof BALANCERS)[number];

/** The response header naming the instance that answered, set by the balancer. */
export const INSTANCE_HEADER = "x-toolwire-instance";

/** Where a balancer listens and what it balances over (the ports of the instances' `/mcp` endpoints). */
export interface BalancerPorts {
  listen: number;
  instances: readonly number[];
}

/**
 * The haproxy configuration of a fleet: per-request round-robin (no stickiness), instances checked every
 * half second, a request whose connection failed sent to another instance, long timeouts for listen streams.
 */
export function haproxyConfig(ports: BalancerPorts): string {
  const servers = ports.instances.map((port, index) =>
    `    server mcp${index + 1} 127.0.0.1:${port} check inter 500ms fall 1 rise 2`
  );
  return [
    "global",
    "    maxconn 4096",
    "",
    "defaults",
    "    mode http",
    "    timeout connect 2s",
    "    timeout client 1h      # a quiet subscriptions/listen stream stays up (keep-alive comments: 15 s)",
    "    timeout server 1h",
    "    retries 2",
    "    option redispatch      # a request whose connection failed goes to another instance",
    "",
    "frontend mcp",
    `    bind 127.0.0.1:${ports.listen}`,
    "    default_backend toolwire",
    "",
    "backend toolwire",
    "    balance roundrobin     # per request: no cookie, no stick table, no affinity",
    `    http-response set-header X-Toolwire-Instance %s`,
    ...servers,
    "",
  ].join("\n");
}

/**
 * The nginx configuration of a fleet: round-robin over the instances, event streams passed through as they
 * are written, long read timeouts for listen streams, a request whose connection failed retried elsewhere.
 */
export function nginxConfig(ports: BalancerPorts): string {
  const servers = ports.instances.map((port) =>
    `        server 127.0.0.1:${port} max_fails=1 fail_timeout=2s;`
  );
  return [
    "worker_processes 1;",
    "events { worker_connections 4096; }",
    "",
    "http {",
    "    upstream toolwire {",
    "        # round-robin, the default: no ip_hash, no sticky, no affinity",
    ...servers,
    "        keepalive 16;",
    "    }",
    "    server {",
    `        listen 127.0.0.1:${ports.listen};`,
    "        location /mcp {",
    "            proxy_pass http://toolwire;",
    "            proxy_http_version 1.1;",
    '            proxy_set_header Connection "";',
    "            proxy_set_header Host 127.0.0.1;          # a loopback name: the instances listen on loopback",
    "            proxy_buffering off;                      # event streams pass through as written",
    "            proxy_read_timeout 1h;                    # a quiet subscriptions/listen stream stays up",
    "            proxy_next_upstream error;                # only when the request could not be sent",
    "            client_max_body_size 64m;",
    "            add_header X-Toolwire-Instance $upstream_addr always;",
    "        }",
    "    }",
    "}",
    "",
  ].join("\n");
}

/** The program a part needs, and whether it is there (or could be installed). */
export interface PartsCheck {
  ok: boolean;
  /** Why not, for a skip message. */
  reason?: string;
}

const PACKAGES: Record<string, string> = {
  "redis-server": "redis-server",
  haproxy: "haproxy",
  nginx: "nginx",
};

function onPath(program: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" }).status === 0;
}

/**
 * Makes sure `programs` are on the PATH, installing Debian's packages with `apt-get install -y` when they
 * are missing and this process is root; `{ ok: false, reason }` when they are not there after that.
 */
export function ensurePrograms(programs: readonly string[], log: (line: string) => void): PartsCheck {
  const missing = programs.filter((program) => !onPath(program));
  if (missing.length === 0) return { ok: true };
  const packages = missing.map((program) => PACKAGES[program] ?? program);
  if (process.getuid?.() !== 0 || !onPath("apt-get")) {
    return {
      ok: false,
      reason: `${missing.join(", ")} not installed (apt-get install -y ${packages.join(" ")})`,
    };
  }
  log(`fleet: installing ${packages.join(" ")} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...packages], { env, stdio: "ignore" });
  if (install().status !== 0) {
    spawnSync("apt-get", ["update"], { env, stdio: "ignore" });
    install();
  }
  const still = programs.filter((program) => !onPath(program));
  if (still.length === 0) return { ok: true };
  return { ok: false, reason: `${still.join(", ")} could not be installed with apt-get` };
}

/** A free loopback port, as the system hands one out (free again a moment later, for a child to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Settles once something accepts connections on the port, or rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Waits `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A child process of the fleet, with its stderr kept. */
class Part {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  output = "";

  constructor(argv: readonly string[], env: Record<string, string> = {}) {
    this.child = spawn(argv[0]!, argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString("utf8")).slice(-20_000);
    };
    this.child.stdout!.on("data", keep);
    this.child.stderr!.on("data", keep);
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.running) this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * Starts `redis-server` on a loopback port with its data in `dir` (an append-only file synced on every
 * write, so that a restart keeps what it acknowledged) and waits until it accepts connections. `stop` sends
 * SIGTERM, on which Redis flushes and exits.
 */
export async function startRedisServer(dir: string, port: number): Promise<{ stop(): Promise<void> }> {
  const part = new Part([
    "redis-server",
    "--bind",
    "127.0.0.1",
    "--port",
    String(port),
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--save",
    "",
    "--protected-mode",
    "no",
  ]);
  const exited = part.exited.then(() => {
    throw new Error(`redis-server exited before listening: ${part.output}`);
  });
  await Promise.race([waitForPort(port, 30_000), exited]);
  return { stop: () => part.stop() };
}

/** What a fleet is started with. */
export interface FleetOptions {
  /** The command line that runs the `notes` tool. */
  notes: readonly string[];
  balancer: Balancer;
  /** How many instances. @default 3 */
  instances?: number;
  /** The instances that reach Redis through a {@linkcode StoreLink} of their own, which can stall or cut. */
  linked?: readonly number[];
  log?: (line: string) => void;
}

/** A running fleet: its endpoint through the balancer, and the parts to stop and start. */
export class Fleet {
  readonly url: string;
  readonly home: string;
  readonly #dir: string;
  readonly #options: FleetOptions;
  readonly #redisPort: number;
  readonly #instancePorts: number[];
  #redis: { stop(): Promise<void> } | undefined;
  #balancer: Part | undefined;
  readonly #instances: (Part | undefined)[];
  readonly #links = new Map<number, StoreLink>();

  private constructor(
    options: FleetOptions,
    dir: string,
    redisPort: number,
    ports: number[],
    listen: number,
  ) {
    this.#options = options;
    this.#dir = dir;
    this.home = join(dir, "notes");
    this.#redisPort = redisPort;
    this.#instancePorts = ports;
    this.#instances = ports.map(() => undefined);
    this.url = `http://127.0.0.1:${listen}/mcp`;
  }

  /** Starts Redis, the instances, then the balancer; everything started is stopped again on failure. */
  static async start(options: FleetOptions): Promise<Fleet> {
    const dir = mkdtempSync(join(tmpdir(), "toolwire-fleet-"));
    const ports: number[] = [];
    for (let index = 0; index < (options.instances ?? 3); index++) ports.push(await freePort());
    const fleet = new Fleet(options, dir, await freePort(), ports, await freePort());
    try {
      const secret = join(dir, "confirmation.key");
      writeFileSync(secret, `${crypto.randomUUID()}${crypto.randomUUID()}\n`, { mode: 0o600 });
      chmodSync(secret, 0o600);
      await fleet.startRedis();
      for (const index of options.linked ?? []) {
        fleet.#links.set(index, await StoreLink.start(fleet.#redisPort));
      }
      for (let index = 0; index < ports.length; index++) await fleet.startInstance(index);
      await fleet.#startBalancer(new URL(fleet.url).port);
      return fleet;
    } catch (error) {
      await fleet.stop();
      throw error;
    }
  }

  /** The configuration the balancer runs with. */
  get balancerConfig(): string {
    const ports = { listen: Number(new URL(this.url).port), instances: this.#instancePorts };
    return this.#options.balancer === "haproxy" ? haproxyConfig(ports) : nginxConfig(ports);
  }

  /** Each instance's name as the balancer's {@linkcode INSTANCE_HEADER} gives it. */
  instanceName(index: number): string {
    return this.#options.balancer === "haproxy"
      ? `mcp${index + 1}`
      : `127.0.0.1:${this.#instancePorts[index]}`;
  }

  /** Instance `index`'s own endpoint, not through the balancer. */
  instanceUrl(index: number): string {
    return `http://127.0.0.1:${this.#instancePorts[index]}/mcp`;
  }

  /** The link between instance `index` and Redis, when it was started with one ({@linkcode FleetOptions.linked}). */
  link(index: number): StoreLink | undefined {
    return this.#links.get(index);
  }

  /** How many instances there are (running or not). */
  get size(): number {
    return this.#instancePorts.length;
  }

  /** Starts Redis on its port, with its data in the fleet's directory, and waits until it answers. */
  async startRedis(): Promise<void> {
    this.#redis = await startRedisServer(this.#dir, this.#redisPort);
    this.#options.log?.(`fleet: redis-server listens on ${this.#redisPort}`);
  }

  /** Stops Redis (SIGTERM: it flushes and exits). */
  async stopRedis(): Promise<void> {
    await this.#redis?.stop();
    this.#redis = undefined;
  }

  /** Starts instance `index` on its port and waits for its endpoint. */
  async startInstance(index: number): Promise<void> {
    const part = new Part([
      ...this.#options.notes,
      "mcp",
      "listen",
      "--state-store",
      `redis://127.0.0.1:${this.#links.get(index)?.port ?? this.#redisPort}/0`,
      "--confirmation-secret-file",
      join(this.#dir, "confirmation.key"),
      `http://127.0.0.1:${this.#instancePorts[index]}/mcp`,
    ], { NOTES_HOME: this.home });
    this.#instances[index] = part;
    await this.#waitFor(part, this.#instancePorts[index]!, `instance ${index + 1}`);
  }

  /** Kills instance `index` with `signal` and waits until it is gone. */
  async killInstance(index: number, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    await this.#instances[index]?.stop(signal);
    this.#instances[index] = undefined;
  }

  /** What instance `index` wrote (the last 20 kB). */
  instanceOutput(index: number): string {
    return this.#instances[index]?.output ?? "";
  }

  /** The notes in the shared NOTES_HOME, read from its file. */
  notes(): { id: number; title: string }[] {
    try {
      return JSON.parse(readFileSync(join(this.home, "notes.json"), "utf8")).notes;
    } catch {
      return [];
    }
  }

  /** Stops the balancer, the instances and Redis, and removes the fleet's directory. */
  async stop(): Promise<void> {
    await this.#balancer?.stop();
    await Promise.all(this.#instances.map((part) => part?.stop()));
    for (const link of this.#links.values()) await link.close();
    await this.#redis?.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #startBalancer(listen: string): Promise<void> {
    const config = join(this.#dir, `${this.#options.balancer}.conf`);
    let text = this.balancerConfig;
    if (this.#options.balancer === "nginx") {
      // Where this nginx keeps its pid and logs: the fleet's directory, not the system's.
      text = `pid ${join(this.#dir, "nginx.pid")};\nerror_log ${join(this.#dir, "nginx.error.log")};\n` +
        text.replace("http {", `http {\n    access_log off;\n    client_body_temp_path ${this.#dir};`);
    }
    writeFileSync(config, text);
    this.#balancer = new Part(
      this.#options.balancer === "haproxy" ? ["haproxy", "-db", "-f", config] : [
        "nginx",
        "-p",
        this.#dir,
        "-c",
        config,
        "-e",
        join(this.#dir, "nginx.error.log"),
        "-g",
        "daemon off;",
      ],
    );
    await this.#waitFor(this.#balancer, Number(listen), this.#options.balancer);
  }

  async #waitFor(part: Part, port: number, name: string): Promise<void> {
    const exited = part.exited.then(() => {
      throw new Error(`${name} exited before listening: ${part.output}`);
    });
    await Promise.race([waitForPort(port, 30_000), exited]);
    this.#options.log?.(`fleet: ${name} listens on ${port}`);
  }
}
