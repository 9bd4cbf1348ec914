/**
 * MCP stdio server benchmark: toolwire's built-in `mcp serve` against the official SDK servers and a bare
 * JSON line loop (the floor), every server exposing the same tool `echo {text}`.
 *
 *   npm run bench                 full run (a few minutes on 2 cores)
 *   npm run bench -- --quick      smaller counts, for a smoke test (too few runs and calls for the verdicts)
 *   node dist/scripts/bench.js --only=bare,toolwire --profile --no-big
 *                                 only the servers whose key contains "bare" or "toolwire", no 1/8 MiB
 *                                 phases, and `--cpu-prof` on the measured toolwire processes (profiles land
 *                                 in .bench/profiles/)
 *
 * The servers are driven by a raw line client in this process — lines written to the child's stdin, lines
 * read from its stdout, the era handshake done by hand — not by an SDK client, so client overhead does not
 * pollute the server measurements. Server CPU is the on-CPU time of all the server's threads from
 * /proc/<pid>/task/<tid>/schedstat (ns resolution; the tables and verdicts use it), with utime + stime from
 * /proc/<pid>/stat (10 ms steps) shown beside the ratios; peak RSS from VmHWM in /proc/<pid>/status, read
 * before stdin is closed. The servers are measured interleaved (see "Phases"). Every response is checked: its
 * id must be one that is in flight, it must be a result, and the echoed text must round-trip. Raw numbers go
 * to .bench/results.json.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { fileURLToPath } from "node:url";

// ---------------------------------------------------------------------------------------------------------
// Settings

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const PROFILE = argv.includes("--profile");
const NO_BIG = argv.includes("--no-big");
/** `--only=bare,toolwire`: the servers whose key contains one of these words. */
const ONLY = argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length).split(",");

const SETTINGS = {
  startupRuns: QUICK ? 3 : 7,
  /**
   * JIT warm-up before anything is measured, pipelined and then one at a time: the two phases run different
   * code paths (a chunk of requests per read, or one), and V8 compiles each as it gets hot — toolwire has
   * more code for it to optimise than the bare loop.
   */
  warmupCalls: QUICK ? 5_000 : 20_000,
  warmupSequentialCalls: 1_000,
  pipelinedCalls: QUICK ? 4_000 : 20_000,
  inFlight: 64,
  sequentialCalls: QUICK ? 400 : 2_000,
  smallTextBytes: 64,
  bigCalls: QUICK ? 4 : 20,
  bigMiB: [1, 8] as const,
  /** The small-call and big-call phases run in this many interleaved rounds. */
  rounds: QUICK ? 2 : 4,
  phaseTimeoutMs: QUICK ? 60_000 : 120_000,
} as const;

const here = dirname(fileURLToPath(import.meta.url)); // dist/scripts
const root = join(here, "..", "..");
const serverDir = join(here, "bench");
const outDir = join(root, ".bench");
const CLK_TCK = clockTicks();
const MODERN_VERSION = "2026-07-28";
const LEGACY_VERSION = "2025-11-25";
const META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "toolwire-bench", version: "1.0.0" },
});

type Era = "modern" | "legacy";
type Kind = "bare" | "toolwire" | "sdk-v2" | "sdk-v1";

interface ServerSpec {
  key: string;
  label: string;
  kind: Kind;
  era: Era;
  file: string;
  args: string[];
}

const SERVERS: ServerSpec[] = [
  { key: "bare/modern", label: "bare JSON loop", kind: "bare", era: "modern", file: "echo_bare.js", args: [] },
  { key: "bare/legacy", label: "bare JSON loop", kind: "bare", era: "legacy", file: "echo_bare.js", args: [] },
  { key: "bare-envelope/modern", label: "bare loop, toolwire-sized reply", kind: "bare", era: "modern", file: "echo_bare.js", args: ["--envelope"] },
  { key: "bare-envelope/legacy", label: "bare loop, toolwire-sized reply", kind: "bare", era: "legacy", file: "echo_bare.js", args: ["--envelope"] },
  { key: "toolwire/modern", label: "toolwire mcp serve", kind: "toolwire", era: "modern", file: "echo_toolwire.js", args: ["mcp", "serve"] },
  { key: "toolwire/legacy", label: "toolwire mcp serve", kind: "toolwire", era: "legacy", file: "echo_toolwire.js", args: ["mcp", "serve"] },
  { key: "sdk-v2/modern", label: "server 2.4 serveStdio", kind: "sdk-v2", era: "modern", file: "echo_sdk_v2.js", args: [] },
  { key: "sdk-v2/legacy", label: "server 2.4 serveStdio", kind: "sdk-v2", era: "legacy", file: "echo_sdk_v2.js", args: [] },
  { key: "sdk-v1/legacy", label: "sdk 1.32 McpServer", kind: "sdk-v1", era: "legacy", file: "echo_sdk_v1.js", args: [] },
];

// ---------------------------------------------------------------------------------------------------------
// /proc readings

function clockTicks(): number {
  try {
    const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** utime + stime of a process, in milliseconds. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/**
 * The same CPU time at nanosecond resolution: the on-CPU time of every thread (/proc/<pid>/task/<tid>/schedstat,
 * first field). At 100 ticks a second, utime+stime moves in 10 ms steps — coarse for a phase of the bare
 * loop, which takes ~100 ms in all — so ratios are also shown from this. NaN where schedstat is missing.
 */
function preciseCpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/** A `kB` field of /proc/<pid>/status, in MiB. */
function statusMiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

function clientCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

// ---------------------------------------------------------------------------------------------------------
// The raw line client

type Json = Record<string, unknown>;

const live = new Set<ChildProcess>();

function killAll(): void {
  for (const child of live) child.kill("SIGKILL");
}

class BenchError extends Error {}

/** One spawned server, driven line by line. */
class ServerProcess {
  readonly spec: ServerSpec;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly spawnedAt: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  #parts: Buffer[] = [];
  #out: string[] = [];
  #stderr = "";
  #onMessage: ((message: Json) => void) | undefined;
  #onFailure: ((error: Error) => void) | undefined;
  #failure: Error | undefined;

  constructor(spec: ServerSpec, nodeArgs: string[] = []) {
    this.spec = spec;
    this.spawnedAt = performance.now();
    this.child = spawn(process.execPath, [...nodeArgs, join(serverDir, spec.file), ...spec.args], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
    });
    if (this.child.pid === undefined) throw new BenchError(`${spec.key}: spawn failed`);
    this.pid = this.child.pid;
    live.add(this.child);
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        live.delete(this.child);
        resolve({ code, signal, at: performance.now() });
        if (this.#onMessage !== undefined) this.#fail(new BenchError(`exited (code ${code}, signal ${signal}) with requests in flight`));
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
        () => this.#fail(new BenchError(`${phase}: timed out after ${SETTINGS.phaseTimeoutMs} ms (${done}/${count} answered)`)),
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
      this.#onFailure = (error) => finish(new BenchError(`${this.spec.key} ${phase}: ${error.message}\nstderr: ${this.#stderr.slice(-1_000)}`));
      this.#onMessage = (message) => {
        const id = message.id;
        const pending = typeof id === "number" ? open.get(id) : undefined;
        if (pending === undefined) throw new BenchError(`unexpected message (id not in flight): ${preview(message)}`);
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
      timer = setTimeout(() => reject(new BenchError(`${this.spec.key}: did not exit within 10 s of stdin EOF`)), 10_000);
    });
    try {
      const { code, signal, at } = await Promise.race([this.exited, timeout]);
      return { exitMs: at - closedAt, code, signal };
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    this.child.kill("SIGKILL");
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
          throw new BenchError(`stdout carried a line that is not JSON: ${line.subarray(0, 200).toString("utf8")}`);
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

let nextId = 1;

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
}

// ---------------------------------------------------------------------------------------------------------
// Requests and checks

function callLine(era: Era, id: number, text: string): string {
  const args = `{"text":${JSON.stringify(text)}}`;
  const meta = era === "modern" ? `,"_meta":${META}` : "";
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${args}${meta}}}\n`;
}

function initializeLine(id: number): string {
  return `${JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "toolwire-bench", version: "1.0.0" } },
  })}\n`;
}

const INITIALIZED_LINE = `{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;

const FILLER = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

function smallText(i: number): string {
  const head = `${i}:`;
  return head + FILLER.repeat(2).slice(0, SETTINGS.smallTextBytes - head.length);
}

const bigBase = new Map<number, string>();

function bigText(mib: number, i: number): string {
  let base = bigBase.get(mib);
  if (base === undefined) {
    base = FILLER.repeat((mib * 1024 * 1024) / FILLER.length);
    bigBase.set(mib, base);
  }
  const head = `${mib}MiB#${i}:`;
  return head + base.slice(head.length);
}

/** The echoed text of a result, checked for the server's result shape. */
function echoed(spec: ServerSpec, result: Json): string {
  if (spec.era === "modern" && result.resultType !== "complete") throw new BenchError(`no resultType "complete": ${preview(result)}`);
  if (spec.era === "legacy" && result.resultType !== undefined) throw new BenchError(`a legacy result with resultType: ${preview(result)}`);
  if (result.isError === true) throw new BenchError(`isError result: ${preview(result)}`);
  const content = result.content as Array<{ type?: unknown; text?: unknown }> | undefined;
  if (!Array.isArray(content) || content[0]?.type !== "text" || typeof content[0].text !== "string") {
    throw new BenchError(`no text content: ${preview(result)}`);
  }
  const structured = result.structuredContent as Json | undefined;
  if (spec.kind === "toolwire" || spec.args.includes("--envelope")) {
    // structuredContent is the command's envelope; content[0].text is the same envelope as JSON text.
    const data = structured?.data as Json | undefined;
    if (structured?.ok !== true || typeof data?.text !== "string") throw new BenchError(`not an ok envelope: ${preview(result)}`);
    if (!content[0].text.startsWith('{"ok":true,"data":{"text":')) throw new BenchError(`content is not the envelope: ${preview(result)}`);
    return data.text;
  }
  if (typeof structured?.text !== "string" || content[0].text !== structured.text) {
    throw new BenchError(`content and structuredContent disagree: ${preview(result)}`);
  }
  return structured.text;
}

// ---------------------------------------------------------------------------------------------------------
// Phases
//
// The machine may be shared, and its load drifts. So the servers are measured interleaved: startup runs go
// round-robin over the servers, and every server stays up while the load phases run in rounds — round r
// runs a slice of each phase on each server in turn — so a slow minute hurts every server alike. Totals
// (CPU ÷ requests) are over all rounds; the per-round values are kept in the JSON to show the spread.

interface PhaseResult {
  requests: number;
  wallMs: number;
  serverCpuMs: number;
  /** Server CPU from schedstat (ns resolution), see preciseCpuMs. */
  serverCpuPreciseMs: number;
  clientCpuMs: number;
  cpuUsPerRequest: number;
  cpuUsPerRequestPrecise: number;
  /** Server CPU per request in each round, to show the spread. */
  roundsCpuUsPerRequest: number[];
  requestsPerSecond: number;
  latencyP50Us: number;
  latencyP99Us: number;
  /** Big phases: MiB of text echoed per call, and server CPU per MiB. */
  mib?: number;
  cpuMsPerMiB?: number;
  cpuMsPerMiBPrecise?: number;
}

interface StartupRun {
  firstResponseMs: number;
  firstCallMs: number;
  cpuMsAtFirstResponse: number;
  preciseCpuMsAtFirstResponse: number;
  exitMs: number;
}

interface StartupResult {
  runs: StartupRun[];
  firstResponseMs: number;
  firstCallMs: number;
  cpuMsAtFirstResponse: number;
  preciseCpuMsAtFirstResponse: number;
}

interface ServerResult {
  key: string;
  label: string;
  kind: Kind;
  era: Era;
  startup: StartupResult;
  phases: Record<string, PhaseResult>;
  peakRssSmallMiB: number;
  peakRssMiB: number;
  exitMs: number;
  exitCode: number | null;
  totalServerCpuMs: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** One phase's numbers, summed over its rounds. */
class PhaseTotals {
  requests = 0;
  wallMs = 0;
  serverCpuMs = 0;
  serverCpuPreciseMs = 0;
  clientCpuMs = 0;
  rounds: number[] = [];
  latencies: number[] = [];

  constructor(readonly mib?: number) {}

  result(): PhaseResult {
    const sorted = this.latencies.sort((a, b) => a - b);
    return {
      requests: this.requests,
      wallMs: this.wallMs,
      serverCpuMs: this.serverCpuMs,
      serverCpuPreciseMs: this.serverCpuPreciseMs,
      clientCpuMs: this.clientCpuMs,
      cpuUsPerRequest: (this.serverCpuMs * 1000) / this.requests,
      cpuUsPerRequestPrecise: (this.serverCpuPreciseMs * 1000) / this.requests,
      roundsCpuUsPerRequest: this.rounds,
      requestsPerSecond: this.requests / (this.wallMs / 1000),
      latencyP50Us: percentile(sorted, 50) * 1000,
      latencyP99Us: percentile(sorted, 99) * 1000,
      ...(this.mib === undefined ? {} : {
        mib: this.mib,
        cpuMsPerMiB: this.serverCpuMs / (this.mib * this.requests),
        cpuMsPerMiBPrecise: this.serverCpuPreciseMs / (this.mib * this.requests),
      }),
    };
  }
}

/** Runs `count` echo calls, `inFlight` at a time, checking every answer; adds the numbers to `totals`. */
async function slice(
  server: ServerProcess,
  name: string,
  count: number,
  inFlight: number,
  text: (i: number) => string,
  totals?: PhaseTotals,
): Promise<void> {
  const { spec } = server;
  const texts = new Array<string>(count);
  const cpu0 = cpuMs(server.pid);
  const precise0 = preciseCpuMs(server.pid);
  const client0 = clientCpuMs();
  const t0 = performance.now();
  const latencies = await server.calls(
    name,
    count,
    inFlight,
    (i, id) => callLine(spec.era, id, (texts[i] = text(i))),
    (i, result) => {
      const got = echoed(spec, result);
      if (got !== texts[i]) {
        throw new BenchError(`request ${i}: the echoed text differs (sent ${texts[i]!.length} chars, got ${got.length})`);
      }
      texts[i] = ""; // let a big text go
    },
  );
  const wallMs = performance.now() - t0;
  const serverCpuMs = cpuMs(server.pid) - cpu0;
  const serverCpuPreciseMs = preciseCpuMs(server.pid) - precise0;
  if (totals === undefined) return;
  totals.requests += count;
  totals.wallMs += wallMs;
  totals.serverCpuMs += serverCpuMs;
  totals.serverCpuPreciseMs += serverCpuPreciseMs;
  totals.clientCpuMs += clientCpuMs() - client0;
  totals.rounds.push((serverCpuMs * 1000) / count);
  for (const latency of latencies) totals.latencies.push(latency);
}

/** Legacy: initialize (checked), then notifications/initialized. */
async function handshake(server: ServerProcess): Promise<void> {
  if (server.spec.era !== "legacy") return;
  await server.calls("initialize", 1, 1, (_, id) => initializeLine(id), (_, result) => {
    if (server.spec.kind !== "bare" && result.protocolVersion !== LEGACY_VERSION) {
      throw new BenchError(`initialize answered ${preview(result)}`);
    }
  });
  server.queue(INITIALIZED_LINE);
  server.flush();
}

/** Spawn → first response (initialize in the legacy era, the first tools/call in the modern one) → EOF → exit. */
async function startupRun(spec: ServerSpec): Promise<StartupRun> {
  const server = new ServerProcess(spec);
  try {
    let firstResponseMs = NaN;
    let cpuMsAtFirstResponse = NaN;
    let preciseCpuMsAtFirstResponse = NaN;
    const onFirst = () => {
      firstResponseMs = performance.now() - server.spawnedAt;
      cpuMsAtFirstResponse = cpuMs(server.pid);
      preciseCpuMsAtFirstResponse = preciseCpuMs(server.pid);
    };
    if (spec.era === "legacy") {
      await server.calls("startup", 1, 1, (_, id) => initializeLine(id), onFirst);
      server.queue(INITIALIZED_LINE);
    }
    await server.calls("startup", 1, 1, (_, id) => callLine(spec.era, id, "hello"), (_, result) => {
      if (Number.isNaN(firstResponseMs)) onFirst();
      if (echoed(spec, result) !== "hello") throw new BenchError("startup call: wrong echo");
    });
    const firstCallMs = performance.now() - server.spawnedAt;
    const { exitMs } = await server.close();
    return { firstResponseMs, firstCallMs, cpuMsAtFirstResponse, preciseCpuMsAtFirstResponse, exitMs };
  } catch (error) {
    server.kill();
    throw error;
  }
}

interface Subject {
  spec: ServerSpec;
  server: ServerProcess;
  startupRuns: StartupRun[];
  totals: Map<string, PhaseTotals>;
  peakRssSmallMiB: number;
}

async function measureAll(specs: ServerSpec[], progress: (message: string) => void): Promise<ServerResult[]> {
  const subjects: Subject[] = [];
  const startupRuns = new Map<ServerSpec, StartupRun[]>(specs.map((spec) => [spec, []]));
  progress(`startup: ${SETTINGS.startupRuns} runs per server, round-robin`);
  for (let run = 0; run < SETTINGS.startupRuns; run++) {
    for (const spec of specs) startupRuns.get(spec)!.push(await startupRun(spec));
  }

  for (const spec of specs) {
    const nodeArgs = PROFILE && spec.kind === "toolwire"
      ? ["--cpu-prof", `--cpu-prof-dir=${join(outDir, "profiles")}`, `--cpu-prof-name=${spec.key.replace("/", "-")}.cpuprofile`]
      : [];
    const server = new ServerProcess(spec, nodeArgs);
    subjects.push({ spec, server, startupRuns: startupRuns.get(spec)!, totals: new Map(), peakRssSmallMiB: NaN });
    await handshake(server);
  }
  const totalsOf = (subject: Subject, phase: string, mib?: number) => {
    let totals = subject.totals.get(phase);
    if (totals === undefined) subject.totals.set(phase, totals = new PhaseTotals(mib));
    return totals;
  };
  const rounds = SETTINGS.rounds;
  progress(`warm-up: ${SETTINGS.warmupCalls} pipelined and ${SETTINGS.warmupSequentialCalls} sequential calls per server`);
  for (const subject of subjects) {
    await slice(subject.server, "warm-up", SETTINGS.warmupCalls, SETTINGS.inFlight, smallText);
    await slice(subject.server, "warm-up", SETTINGS.warmupSequentialCalls, 1, smallText);
  }
  for (let round = 1; round <= rounds; round++) {
    progress(`small calls, round ${round}/${rounds}`);
    for (const subject of subjects) {
      await slice(subject.server, "pipelined", SETTINGS.pipelinedCalls / rounds, SETTINGS.inFlight, smallText, totalsOf(subject, "pipelined"));
    }
    for (const subject of subjects) {
      await slice(subject.server, "sequential", SETTINGS.sequentialCalls / rounds, 1, smallText, totalsOf(subject, "sequential"));
    }
  }
  for (const subject of subjects) subject.peakRssSmallMiB = statusMiB(subject.server.pid, "VmHWM");
  if (!NO_BIG) {
    const bigRounds = Math.min(rounds, SETTINGS.bigCalls);
    for (const mib of SETTINGS.bigMiB) {
      for (let round = 1; round <= bigRounds; round++) {
        progress(`${mib} MiB calls, round ${round}/${bigRounds}`);
        for (const subject of subjects) {
          const count = Math.floor(SETTINGS.bigCalls / bigRounds) + (round <= SETTINGS.bigCalls % bigRounds ? 1 : 0);
          await slice(subject.server, `${mib} MiB`, count, 1, (i) => bigText(mib, i), totalsOf(subject, `big${mib}`, mib));
        }
      }
    }
  }

  const results: ServerResult[] = [];
  for (const { spec, server, startupRuns: runs, totals, peakRssSmallMiB } of subjects) {
    const peakRssMiB = statusMiB(server.pid, "VmHWM");
    const totalServerCpuMs = cpuMs(server.pid);
    const { exitMs, code, signal } = await server.close();
    if (code !== 0) throw new BenchError(`${spec.key}: exited with code ${code} (signal ${signal}) after EOF\n${server.stderrTail}`);
    results.push({
      key: spec.key,
      label: spec.label,
      kind: spec.kind,
      era: spec.era,
      startup: {
        runs,
        firstResponseMs: median(runs.map((run) => run.firstResponseMs)),
        firstCallMs: median(runs.map((run) => run.firstCallMs)),
        cpuMsAtFirstResponse: median(runs.map((run) => run.cpuMsAtFirstResponse)),
        preciseCpuMsAtFirstResponse: median(runs.map((run) => run.preciseCpuMsAtFirstResponse)),
      },
      phases: Object.fromEntries([...totals].map(([phase, t]) => [phase, t.result()])),
      peakRssSmallMiB,
      peakRssMiB,
      exitMs,
      exitCode: code,
      totalServerCpuMs,
    });
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------------
// Report

function fmt(value: number | undefined, digits = 0): string {
  if (value === undefined || Number.isNaN(value)) return "—";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, c) => Math.max(header.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(" | ")} |`;
  return [line(headers), `|${widths.map((w, c) => (c < 2 ? ":" : "-") + "-".repeat(w) + (c < 2 ? "-" : ":")).join("|")}|`, ...rows.map(line)]
    .join("\n");
}

/** The schedstat figure where the machine has one, else the utime+stime one. */
function bestCpu(schedstat: number | undefined, ticks: number | undefined): number | undefined {
  return schedstat !== undefined && Number.isFinite(schedstat) ? schedstat : ticks;
}

function resultsTable(results: ServerResult[]): string {
  const headers = [
    "server",
    "era",
    "startup ms",
    "startup CPU ms",
    "1st call ms",
    "pipelined req/s",
    "pipe CPU µs/req",
    "seq p50 µs",
    "seq CPU µs/req",
    "1 MiB CPU ms/MiB",
    "8 MiB CPU ms/MiB",
    "8 MiB ms/call",
    "peak RSS MiB (small/all)",
    "exit ms",
  ];
  const rows = results.map((r) => [
    r.label,
    r.era,
    fmt(r.startup.firstResponseMs, 1),
    fmt(bestCpu(r.startup.preciseCpuMsAtFirstResponse, r.startup.cpuMsAtFirstResponse)),
    fmt(r.startup.firstCallMs, 1),
    fmt(r.phases.pipelined?.requestsPerSecond),
    fmt(bestCpu(r.phases.pipelined?.cpuUsPerRequestPrecise, r.phases.pipelined?.cpuUsPerRequest), 1),
    fmt(r.phases.sequential?.latencyP50Us),
    fmt(bestCpu(r.phases.sequential?.cpuUsPerRequestPrecise, r.phases.sequential?.cpuUsPerRequest), 1),
    fmt(bestCpu(r.phases.big1?.cpuMsPerMiBPrecise, r.phases.big1?.cpuMsPerMiB), 2),
    fmt(bestCpu(r.phases.big8?.cpuMsPerMiBPrecise, r.phases.big8?.cpuMsPerMiB), 2),
    fmt(r.phases.big8 === undefined ? undefined : r.phases.big8.wallMs / r.phases.big8.requests, 1),
    `${fmt(r.peakRssSmallMiB)} / ${fmt(r.peakRssMiB)}`,
    fmt(r.exitMs, 1),
  ]);
  return table(headers, rows);
}

interface Ratio {
  what: string;
  /** From utime+stime (or wall time / RSS where that is what is compared). */
  value: number;
  /** The same CPU ratio from schedstat (ns resolution), when it applies. */
  precise?: number;
  target?: number;
  /** Judged on `precise` where there is one, else on `value`. */
  pass?: boolean;
}

/** A compared quantity: its value, and its schedstat twin for CPU quantities. */
type Metric = (r: ServerResult) => [value: number | undefined, precise?: number];

const M = {
  pipelined: ((r) => [r.phases.pipelined?.cpuUsPerRequest, r.phases.pipelined?.cpuUsPerRequestPrecise]) as Metric,
  sequential: ((r) => [r.phases.sequential?.cpuUsPerRequest, r.phases.sequential?.cpuUsPerRequestPrecise]) as Metric,
  startup: ((r) => [r.startup.firstResponseMs]) as Metric,
  startupCpu: ((r) => [r.startup.cpuMsAtFirstResponse, r.startup.preciseCpuMsAtFirstResponse]) as Metric,
  big1: ((r) => [r.phases.big1?.cpuMsPerMiB, r.phases.big1?.cpuMsPerMiBPrecise]) as Metric,
  big8: ((r) => [r.phases.big8?.cpuMsPerMiB, r.phases.big8?.cpuMsPerMiBPrecise]) as Metric,
  rss: ((r) => [r.peakRssMiB]) as Metric,
};

function ratios(results: ServerResult[]): Ratio[] {
  const by = new Map(results.map((r) => [r.key, r]));
  const out: Ratio[] = [];
  const ratio = (what: string, a: ServerResult, metricA: Metric, b: ServerResult, metricB: Metric, target?: number) => {
    const [valueA, preciseA] = metricA(a);
    const [valueB, preciseB] = metricB(b);
    if (valueA === undefined || valueB === undefined || !(valueB > 0)) return;
    const value = valueA / valueB;
    const precise = preciseA !== undefined && preciseB !== undefined && preciseB > 0 ? preciseA / preciseB : undefined;
    const judged = precise !== undefined && Number.isFinite(precise) ? precise : value;
    out.push({ what, value, ...(precise === undefined ? {} : { precise }), ...(target === undefined ? {} : { target, pass: judged <= target }) });
  };
  // Flat: CPU per MiB at 8 MiB within 25% of that at 1 MiB (linear cost).
  const flat = (r: ServerResult) => ratio(`${r.key}: CPU per MiB, 8 MiB / 1 MiB (flat ≈ 1)`, r, M.big8, r, M.big1, r.kind === "toolwire" ? 1.25 : undefined);
  for (const era of ["modern", "legacy"] as const) {
    const tw = by.get(`toolwire/${era}`);
    const bare = by.get(`bare/${era}`);
    if (tw === undefined) continue;
    if (bare !== undefined) {
      ratio(`toolwire ${era} / bare: pipelined CPU per request`, tw, M.pipelined, bare, M.pipelined, 1.5);
      ratio(`toolwire ${era} / bare: sequential CPU per request`, tw, M.sequential, bare, M.sequential, 1.5);
      ratio(`toolwire ${era} / bare: startup (first response)`, tw, M.startup, bare, M.startup, 1.2);
      ratio(`toolwire ${era} / bare: startup CPU (at first response)`, tw, M.startupCpu, bare, M.startupCpu);
      ratio(`toolwire ${era} / bare: 8 MiB CPU per MiB`, tw, M.big8, bare, M.big8);
    }
    // The same floor answering with toolwire's reply (the envelope as structuredContent and as JSON text):
    // how much of the gap is the bytes of that reply, and how much is the framework.
    const sized = by.get(`bare-envelope/${era}`);
    if (sized !== undefined) {
      ratio(`toolwire ${era} / bare, same reply: pipelined CPU per request`, tw, M.pipelined, sized, M.pipelined);
      ratio(`toolwire ${era} / bare, same reply: sequential CPU per request`, tw, M.sequential, sized, M.sequential);
    }
    flat(tw);
    for (const sdk of [by.get(`sdk-v2/${era}`), by.get(`sdk-v1/${era}`)]) {
      if (sdk === undefined) continue;
      ratio(`toolwire ${era} / ${sdk.key}: pipelined CPU per request`, tw, M.pipelined, sdk, M.pipelined);
      ratio(`toolwire ${era} / ${sdk.key}: sequential CPU per request`, tw, M.sequential, sdk, M.sequential);
      ratio(`toolwire ${era} / ${sdk.key}: startup (first response)`, tw, M.startup, sdk, M.startup);
      ratio(`toolwire ${era} / ${sdk.key}: startup CPU (at first response)`, tw, M.startupCpu, sdk, M.startupCpu);
      ratio(`toolwire ${era} / ${sdk.key}: 8 MiB CPU per MiB`, tw, M.big8, sdk, M.big8);
      ratio(`toolwire ${era} / ${sdk.key}: peak RSS (all phases)`, tw, M.rss, sdk, M.rss);
    }
  }
  for (const r of results) if (r.kind !== "toolwire") flat(r);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const selected = SERVERS.filter((spec) => ONLY === undefined || ONLY.some((word) => spec.key.includes(word)));
  if (selected.length === 0) throw new BenchError(`--only=${ONLY?.join(",")} selects no server`);
  console.log(
    `MCP stdio bench${QUICK ? " (--quick)" : ""}: node ${process.version}, ${availableParallelism()} CPU(s) (${cpus()[0]?.model ?? "?"}), CLK_TCK ${CLK_TCK}`,
  );
  console.log(
    `per server: startup ×${SETTINGS.startupRuns} (median), warm-up ${SETTINGS.warmupCalls} + ${SETTINGS.warmupSequentialCalls} sequential, ` +
      `${SETTINGS.pipelinedCalls} pipelined calls ` +
      `(${SETTINGS.smallTextBytes}-byte text, ${SETTINGS.inFlight} in flight), ${SETTINGS.sequentialCalls} sequential` +
      (NO_BIG ? "" : `, ${SETTINGS.bigCalls} × 1 MiB and ${SETTINGS.bigCalls} × 8 MiB sequential`) +
      `; load phases interleaved over ${SETTINGS.rounds} rounds`,
  );
  const started = performance.now();
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const loadBefore = load();
  console.log(`servers: ${selected.map((spec) => spec.key).join(", ")}; load average before: ${loadBefore}`);
  const results = await measureAll(selected, (message) => {
    console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${message}`);
  });
  const loadAfter = load();
  for (const r of results) {
    const pipelined = r.phases.pipelined;
    console.log(
      `  ${r.key.padEnd(16)} pipelined: server ${fmt(pipelined?.cpuUsPerRequest, 1)} µs CPU/req ` +
        `(schedstat ${fmt(pipelined?.cpuUsPerRequestPrecise, 1)}) ` +
        `(rounds ${pipelined?.roundsCpuUsPerRequest.map((v) => fmt(v, 1)).join(", ")}), ` +
        `client ${fmt(((pipelined?.clientCpuMs ?? NaN) * 1000) / (pipelined?.requests ?? NaN), 1)} µs CPU/req`,
    );
  }
  console.log(`load average after: ${loadAfter}`);
  const found = ratios(results);
  console.log(`\n${resultsTable(results)}\n`);
  console.log(
    "startup = spawn → first response (median); startup CPU = the server's CPU by then (median). CPU = the on-CPU\n" +
      "time of all the server's threads (/proc schedstat, ns); µs/req = CPU ÷ requests; 'MiB' = MiB of echoed text per\n" +
      "call; seq p50 = round trip.\n",
  );
  console.log(table(
    ["ratio", "", "value", "schedstat", "target", "verdict"],
    found.map((r) => [
      r.what,
      "",
      `${r.value.toFixed(2)}×`,
      r.precise === undefined ? "" : `${r.precise.toFixed(2)}×`,
      r.target === undefined ? "" : `≤ ${r.target}×`,
      r.pass === undefined ? "" : r.pass ? "PASS" : "MISS",
    ]),
  ));
  console.log(
    "value: from utime+stime, 10 ms steps (wall time for startup, VmHWM for RSS); schedstat: the same CPU ratio at ns\n" +
      "resolution. A verdict is judged on schedstat where there is one.",
  );
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, "results.json");
  writeFileSync(
    file,
    `${JSON.stringify({
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      clockTicks: CLK_TCK,
      quick: QUICK,
      loadAverage: { before: loadBefore, after: loadAfter },
      settings: SETTINGS,
      results,
      ratios: found,
    }, null, 2)}\n`,
  );
  console.log(`\nraw numbers: ${relative(process.cwd(), file) || file}; total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  killAll();
  console.error(`\nbench FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
