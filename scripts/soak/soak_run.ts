/**
 * The soak behind `npm run soak` (and its short run in the test suite): several `notes mcp serve` processes
 * and `notes add` runs on ONE notes directory at once, in rounds until the time is up — some of them killed
 * with SIGKILL at a random moment, a burst written in one go and stdin closed at once, several processes
 * calling with the same idempotency key at the same moment, and a stale lock left behind by a process that
 * no longer exists. Every acknowledged add is remembered; at the end the store must hold each of them once,
 * and every process the soak started must be gone.
 *
 * Randomness comes from the random seed (which rounds, how many calls, who gets killed and when); the timing
 * of processes on a loaded machine does not, so a seed repeats the plan, not the interleaving.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** What to run, for how long. */
export interface SoakOptions {
  /** Rounds start until this many seconds have passed; the last ones then finish. */
  seconds: number;
  /** Seeds every random choice of the plan. */
  seed: number;
  /** The command line that runs the `notes` tool. */
  notes: readonly string[];
  /** Progress lines (one per round). */
  log?: (line: string) => void;
  /** Stops starting rounds, kills every child and cleans up. */
  signal?: AbortSignal;
}

/** What a soak saw. */
export interface SoakReport {
  seed: number;
  seconds: number;
  elapsedMs: number;
  rounds: number;
  /** Processes started, and how many of them were sent SIGKILL on purpose. */
  spawned: number;
  killed: number;
  /** Adds answered with success (an MCP result with `ok: true`, or `notes add` exiting 0). */
  acknowledged: number;
  /** Acknowledged adds whose note is not in the store at the end. */
  lost: number;
  /** Extra notes for one idempotency key, and for one unkeyed request. */
  twiceByKey: number;
  twiceByRequest: number;
  /** Responses to an id that had already been answered. */
  answeredTwice: number;
  /** Requests a server never answered although it exited cleanly after EOF. */
  unanswered: number;
  /** Whether the store parsed, with unique note ids. */
  storeReadable: boolean;
  /** Adds that took more than {@linkcode STALL_MS} (a lock nobody releases makes writers wait). */
  stalls: number;
  /** Started processes (or members of their process groups) still alive at the end. */
  childrenLeft: number;
  /** The first few concrete findings, for a person to start from. */
  findings: string[];
}

/** An add slower than this counts as a stall. */
export const STALL_MS = 5_000;
/** How long a process may take to exit once its stdin is closed (a stale lock may hold it 10 s). */
const EXIT_GRACE_MS = 30_000;
/** A burst: this many adds in one write. */
const BURST_ADDS = 100;
/** Keys shared by every process of the soak: a key used by a killed process is retried by another. */
const KEY_POOL = 6;
const EXAMPLES_PER_FINDING = 3;

/**
 * Plants a stale lock in a notes directory: the lock of a process that died holding it (`pid`, no longer
 * running) long ago. Returns false when the lock is held right now. The lock's format is the store's: this
 * function is the only place that knows it.
 *
 * @example
 * ```ts
 * plantStaleLock("/tmp/notes", 999_999);
 * ```
 */
export function plantStaleLock(home: string, pid: number): boolean {
  const lock = join(home, "notes.lock");
  try {
    mkdirSync(lock);
  } catch {
    return false;
  }
  try {
    writeFileSync(join(lock, "pid"), `${pid}\n`);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, anHourAgo, anHourAgo);
  } catch {
    // A writer broke it already, in the microseconds since mkdir: it was planted all the same.
  }
  return true;
}

/** Plants stale locks every few milliseconds until `until` settles (at most 500); returns how many took. */
async function plantWhile(home: string, pid: number, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.then(() => (done = true));
  let planted = 0;
  for (let attempt = 0; attempt < 500 && !done; attempt++) {
    if (plantStaleLock(home, pid)) planted++;
    await sleep(2 + (attempt % 5));
  }
  return planted;
}

/** A small seeded generator (mulberry32): the soak's plan repeats for a seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `promise`, or undefined after `ms`; the timer is cleared either way, so nothing keeps the process up. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Exit {
  code: number | null;
  signal: string | null;
}

/** A started child, in its own process group so that it and anything it starts can be found and killed. */
interface Tracked {
  /** The last few hundred characters the child wrote to stderr. */
  stderrTail: string;
  child: ChildProcess;
  pid: number | undefined;
  exited: Promise<Exit>;
  done: boolean;
  killedOnPurpose: boolean;
}

/** Every process the soak starts, so that none outlives it. */
class Children {
  readonly #all: Tracked[] = [];
  readonly #env: Record<string, string>;
  killed = 0;

  constructor(env: Record<string, string>) {
    this.#env = env;
  }

  get spawned(): number {
    return this.#all.length;
  }

  start(argv: readonly string[]): Tracked {
    const [command, ...args] = argv;
    const child = spawn(command!, args, {
      env: { ...process.env, ...this.#env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    child.stdin!.on("error", () => {});
    // Read stderr, so a chatty child never blocks on a full pipe; keep its end to explain a bad exit.
    const tracked: Tracked = {
      stderrTail: "",
      child,
      pid: child.pid,
      done: false,
      killedOnPurpose: false,
      exited: new Promise<Exit>((resolve) => {
        child.on("error", () => resolve({ code: null, signal: "spawn-error" }));
        child.on("close", (code, signal) => resolve({ code, signal }));
      }),
    };
    child.stderr!.on(
      "data",
      (chunk: Buffer) => void (tracked.stderrTail = (tracked.stderrTail + chunk.toString()).slice(-600)),
    );
    void tracked.exited.then(() => (tracked.done = true));
    this.#all.push(tracked);
    return tracked;
  }

  /** kill -9, to the whole process group. */
  kill(tracked: Tracked): void {
    if (tracked.done || tracked.pid === undefined) return;
    tracked.killedOnPurpose = true;
    this.killed++;
    killGroup(tracked.pid);
  }

  /** Ends every child at once (the soak was interrupted); not counted as a planned kill. */
  stopAll(): void {
    for (const tracked of this.#all) if (!tracked.done && tracked.pid !== undefined) killGroup(tracked.pid);
  }

  /** Waits up to `graceMs` for every child to end, counts those still alive, then kills and reaps them. */
  async settle(graceMs: number): Promise<number> {
    const deadline = Date.now() + graceMs;
    for (const tracked of this.#all) {
      const left = deadline - Date.now();
      if (!tracked.done && left > 0) await within(tracked.exited, left);
    }
    let alive = 0;
    for (const tracked of this.#all) {
      if (!tracked.done || (tracked.pid !== undefined && groupAlive(tracked.pid))) alive++;
    }
    for (const tracked of this.#all) if (tracked.pid !== undefined) killGroup(tracked.pid);
    await within(Promise.all(this.#all.map((tracked) => tracked.exited)), 5_000);
    return alive;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One acknowledged add: the note the answer named. */
interface Ack {
  title: string;
  id: number;
  key: string | undefined;
  via: string;
}

/** One add to send. */
interface Add {
  title: string;
  key?: string;
}

/** What every actor reports into. */
class Tally {
  readonly acks: Ack[] = [];
  answeredTwice = 0;
  unanswered = 0;
  stalls = 0;
  readonly #findings = new Map<string, { count: number; examples: string[] }>();

  /** Notes a finding of one kind; a few examples of each kind are kept. */
  find(kind: string, example: string): void {
    const entry = this.#findings.get(kind) ?? { count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < EXAMPLES_PER_FINDING) entry.examples.push(example);
    this.#findings.set(kind, entry);
  }

  get findings(): string[] {
    return [...this.#findings].map(([kind, { count, examples }]) =>
      `${kind} (${count}): ${examples.join("; ")}`
    );
  }
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "soak", version: "1.0.0" },
};

/** How one server actor behaves. */
interface ServerPlan {
  name: string;
  adds: Add[];
  modern: boolean;
  maxInFlight: number | undefined;
  /** Everything in one write, stdin closed at once. */
  burst: boolean;
  /** SIGKILL this long after the start. */
  killAfterMs: number | undefined;
  /** Held back until this settles (after a warm-up call), so that several processes call at once. */
  barrier?: Promise<void>;
  /** Resolves once the warm-up call is answered. */
  ready?: () => void;
}

/** Runs one `notes mcp serve` through its plan, recording what it acknowledged. */
async function serverActor(
  children: Children,
  notes: readonly string[],
  plan: ServerPlan,
  tally: Tally,
): Promise<void> {
  const flags = plan.maxInFlight === undefined ? [] : ["--max-in-flight", String(plan.maxInFlight)];
  const tracked = children.start([...notes, "mcp", "serve", ...flags]);
  const { child } = tracked;
  const sent = new Map<number, { add?: Add; at: number }>();
  const answered = new Set<number>();
  let warmedUp: (() => void) | undefined;
  const warm = new Promise<void>((resolve) => (warmedUp = resolve));
  let partial = "";
  const onMessage = (
    message: {
      id?: unknown;
      result?: { structuredContent?: { ok?: boolean; data?: { note?: { id?: unknown } } } };
    },
  ) => {
    if (typeof message.id !== "number" || !sent.has(message.id)) {
      tally.find("an answer to an id never sent", `${plan.name}: ${JSON.stringify(message).slice(0, 160)}`);
      return;
    }
    if (answered.has(message.id)) {
      tally.answeredTwice++;
      tally.find("answered twice", `${plan.name} request ${message.id}`);
      return;
    }
    answered.add(message.id);
    const request = sent.get(message.id)!;
    if (request.add === undefined) return warmedUp?.();
    if (Date.now() - request.at > STALL_MS) tally.stalls++;
    const envelope = message.result?.structuredContent;
    const id = envelope?.data?.note?.id;
    if (envelope?.ok === true && typeof id === "number") {
      tally.acks.push({ title: request.add.title, id, key: request.add.key, via: plan.name });
    } else {
      tally.find("add answered with a failure", `${plan.name}: ${JSON.stringify(message).slice(0, 200)}`);
    }
  };
  const decoder = new TextDecoder();
  child.stdout!.on("data", (chunk: Uint8Array) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      if (line === "") continue;
      try {
        const parsed = JSON.parse(line);
        for (const message of Array.isArray(parsed) ? parsed : [parsed]) onMessage(message);
      } catch {
        tally.find("a stdout line that is not JSON", `${plan.name}: ${JSON.stringify(line.slice(0, 120))}`);
      }
    }
  });
  const killTimer = plan.killAfterMs === undefined
    ? undefined
    : setTimeout(() => children.kill(tracked), plan.killAfterMs);

  const lines: string[] = [];
  const request = (id: number, method: string, params: Record<string, unknown>, add?: Add) => {
    sent.set(id, { add, at: Date.now() });
    const body = plan.modern ? { ...params, _meta: MODERN_META } : params;
    return `${JSON.stringify({ jsonrpc: "2.0", id, method, params: body })}\n`;
  };
  if (!plan.modern) {
    lines.push(
      request(0, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "soak", version: "1.0.0" },
      }),
    );
    lines.push(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  }
  const callAdd = (id: number, add: Add) =>
    request(id, "tools/call", {
      name: "add",
      arguments: { title: add.title, ...(add.key === undefined ? {} : { idempotency_key: add.key }) },
    }, add);

  try {
    if (plan.barrier !== undefined) {
      child.stdin!.write(lines.join("") + request(1, "tools/list", {}));
      lines.length = 0;
      await within(Promise.race([warm, tracked.exited]), EXIT_GRACE_MS);
      plan.ready?.();
      await plan.barrier;
    }
    if (plan.burst) {
      child.stdin!.end(lines.join("") + plan.adds.map((add, index) => callAdd(100 + index, add)).join(""));
    } else {
      for (const line of lines) child.stdin!.write(line);
      for (const [index, add] of plan.adds.entries()) {
        if (tracked.done) break;
        child.stdin!.write(callAdd(100 + index, add));
        await sleep(Math.floor(Math.random() * 15));
      }
      child.stdin!.end();
    }
    const exit = await within(tracked.exited, EXIT_GRACE_MS);
    if (exit === undefined) {
      tally.find(`a server still running ${EXIT_GRACE_MS / 1000} s after EOF`, plan.name);
    } else if (!tracked.killedOnPurpose) {
      if (exit.code !== 0) {
        const said = tracked.stderrTail.trim().split("\n").slice(-3).join(" | ");
        tally.find(
          "a server that did not exit 0 after EOF",
          `${plan.name}: ${exit.code ?? exit.signal} (stderr: ${said})`,
        );
      }
      const missing = [...sent.keys()].filter((id) => !answered.has(id));
      tally.unanswered += missing.length;
      if (missing.length > 0) {
        tally.find("unanswered after a clean EOF", `${plan.name}: ${missing.length} requests`);
      }
    }
  } finally {
    clearTimeout(killTimer);
    // A server that ended before its warm-up answer must not hold the others at the barrier.
    plan.ready?.();
  }
}

/** Runs one `notes add`, possibly killed after `killAfterMs`, recording its note if it succeeded. */
async function cliActor(
  children: Children,
  notes: readonly string[],
  name: string,
  add: Add,
  killAfterMs: number | undefined,
  tally: Tally,
): Promise<void> {
  const started = Date.now();
  const tracked = children.start([
    ...notes,
    "add",
    "--title",
    add.title,
    ...(add.key === undefined ? [] : ["--idempotency-key", add.key]),
    "--format",
    "json",
  ]);
  tracked.child.stdin!.end();
  const out: Uint8Array[] = [];
  tracked.child.stdout!.on("data", (chunk: Uint8Array) => out.push(chunk));
  const killTimer = killAfterMs === undefined
    ? undefined
    : setTimeout(() => children.kill(tracked), killAfterMs);
  try {
    const exit = await within(tracked.exited, EXIT_GRACE_MS);
    if (exit === undefined) {
      return tally.find(`notes add still running after ${EXIT_GRACE_MS / 1000} s`, name);
    }
    if (Date.now() - started > STALL_MS) tally.stalls++;
    if (tracked.killedOnPurpose) return;
    const text = new TextDecoder().decode(concat(out)).trim();
    let envelope: { ok?: boolean; data?: { note?: { id?: unknown } } } | undefined;
    try {
      envelope = JSON.parse(text);
    } catch {
      return tally.find(
        "notes add without one envelope on stdout",
        `${name}: ${JSON.stringify(text.slice(0, 160))}`,
      );
    }
    const id = envelope?.data?.note?.id;
    if (exit.code === 0 && envelope?.ok === true && typeof id === "number") {
      tally.acks.push({ title: add.title, id, key: add.key, via: name });
    } else tally.find("notes add failed", `${name}: exit ${exit.code ?? exit.signal}: ${text.slice(0, 160)}`);
  } finally {
    clearTimeout(killTimer);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The pid of a process that has just ended: a lock holder that is certainly dead. */
async function deadPid(children: Children, notes: readonly string[]): Promise<number> {
  const tracked = children.start([notes[0]!, "--version"]);
  await tracked.exited;
  return tracked.pid ?? 999_999;
}

/** Runs the soak and reports; every child is gone and the notes directory removed when it resolves. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = Date.now();
  const deadline = started + options.seconds * 1000;
  const rng = random(options.seed);
  const chance = (p: number) => rng() < p;
  const between = (low: number, high: number) => low + Math.floor(rng() * (high - low + 1));
  const home = mkdtempSync(join(tmpdir(), "toolwire-soak-"));
  const children = new Children({ NOTES_HOME: home, NO_COLOR: "1" });
  const tally = new Tally();
  const { notes } = options;
  let rounds = 0;
  let childrenLeft = 0;
  let store: { readable: boolean; notes: Array<{ id: number; title: string }> } = {
    readable: false,
    notes: [],
  };
  const abort = () => children.stopAll();
  options.signal?.addEventListener("abort", abort);
  try {
    const dead = await deadPid(children, notes);
    const keyAdd = (key: string): Add => ({ title: `key-${key}`, key });
    // A third of the adds use a key from the pool shared by the whole soak; the rest are unique requests.
    const someAdd = (title: string): Add =>
      chance(0.3) ? keyAdd(`pool-${between(0, KEY_POOL - 1)}`) : { title };
    const someAdds = (prefix: string, count: number): Add[] =>
      Array.from({ length: count }, (_, index) => someAdd(`${prefix}-${index}`));
    const maxInFlight = () => (chance(0.5) ? undefined : between(1, 4));

    while (Date.now() < deadline && options.signal?.aborted !== true) {
      const round = rounds++;
      // The first rounds cover each kind once; then they come at random, mixed rounds most often.
      const kind = round < 4 ? round : [0, 1, 2, 3, 3, 3][between(0, 5)]!;
      const actors: Array<Promise<void>> = [];
      let label: string;
      if (kind === 0) {
        // Stale locks — a dead holder's, an hour old — planted again whenever the lock is free, while two
        // servers and a CLI write: every writer that meets one breaks it, often two at the same moment.
        const writers: Array<Promise<void>> = [];
        for (const side of ["a", "b"]) {
          writers.push(serverActor(children, notes, {
            name: `r${round}-server-${side}`,
            adds: someAdds(`r${round}-${side}`, between(10, 25)),
            modern: chance(0.5),
            maxInFlight: maxInFlight(),
            burst: true,
            killAfterMs: undefined,
          }, tally));
        }
        writers.push(
          cliActor(children, notes, `r${round}-cli`, { title: `r${round}-cli` }, undefined, tally),
        );
        const planted = await plantWhile(home, dead, Promise.all(writers));
        label = `${planted} stale locks planted under two servers and a CLI`;
        actors.push(...writers);
      } else if (kind === 1) {
        const limit = maxInFlight();
        label = `burst of ${BURST_ADDS} then EOF (max-in-flight ${limit ?? "default"}) beside a CLI`;
        actors.push(serverActor(children, notes, {
          name: `r${round}-burst`,
          adds: Array.from({ length: BURST_ADDS }, (_, index) => ({ title: `r${round}-burst-${index}` })),
          modern: chance(0.5),
          maxInFlight: limit,
          burst: true,
          killAfterMs: undefined,
        }, tally));
        actors.push(cliActor(children, notes, `r${round}-cli`, { title: `r${round}-cli` }, undefined, tally));
      } else if (kind === 2) {
        // The same key from several processes at once: servers warmed up first, then all released together.
        const servers = between(2, 3);
        const clis = between(1, 2);
        label = `one idempotency key from ${servers} servers and ${clis} CLIs at once`;
        const add = keyAdd(`same-${round}`);
        let release!: () => void;
        const barrier = new Promise<void>((resolve) => (release = resolve));
        const readies: Array<Promise<void>> = [];
        for (let index = 0; index < servers; index++) {
          let ready!: () => void;
          readies.push(new Promise<void>((resolve) => (ready = resolve)));
          actors.push(serverActor(children, notes, {
            name: `r${round}-same-${index}`,
            adds: [add],
            modern: chance(0.5),
            maxInFlight: undefined,
            burst: false,
            killAfterMs: undefined,
            barrier,
            ready,
          }, tally));
        }
        await Promise.all(readies);
        release();
        for (let index = 0; index < clis; index++) {
          actors.push(cliActor(children, notes, `r${round}-same-cli-${index}`, add, undefined, tally));
        }
      } else {
        const servers = between(1, 2);
        const clis = between(1, 3);
        const planted = chance(0.2) && plantStaleLock(home, dead);
        label = `mixed: ${servers} servers, ${clis} CLIs, kill -9 at random${planted ? ", stale lock" : ""}`;
        for (let index = 0; index < servers; index++) {
          actors.push(serverActor(children, notes, {
            name: `r${round}-server-${index}`,
            adds: someAdds(`r${round}-s${index}`, between(5, 30)),
            modern: chance(0.5),
            maxInFlight: maxInFlight(),
            burst: chance(0.3),
            killAfterMs: chance(0.4) ? between(20, 400) : undefined,
          }, tally));
        }
        for (let index = 0; index < clis; index++) {
          const add = someAdd(`r${round}-c${index}`);
          const killAfterMs = chance(0.3) ? between(0, 250) : undefined;
          actors.push(cliActor(children, notes, `r${round}-cli-${index}`, add, killAfterMs, tally));
        }
      }
      await Promise.all(actors);
      options.log?.(`round ${round}: ${label} — ${tally.acks.length} acknowledged so far`);
    }
    childrenLeft = await children.settle(options.signal?.aborted ? 0 : 5_000);
    store = readStore(home);
  } finally {
    options.signal?.removeEventListener("abort", abort);
    await children.settle(0);
    rmSync(home, { recursive: true, force: true });
  }
  return judge(options, started, rounds, children, tally, store, childrenLeft);
}

function readStore(home: string): { readable: boolean; notes: Array<{ id: number; title: string }> } {
  let text: string;
  try {
    text = readFileSync(join(home, "notes.json"), "utf8");
  } catch (error) {
    // No file: nothing was ever written, which the acknowledged count shows.
    return { readable: (error as { code?: string }).code === "ENOENT", notes: [] };
  }
  try {
    const parsed = JSON.parse(text) as { notes?: Array<{ id: number; title: string }> };
    if (!Array.isArray(parsed.notes)) return { readable: false, notes: [] };
    const ids = new Set(parsed.notes.map((note) => note.id));
    return { readable: ids.size === parsed.notes.length, notes: parsed.notes };
  } catch {
    return { readable: false, notes: [] };
  }
}

function judge(
  options: SoakOptions,
  started: number,
  rounds: number,
  children: Children,
  tally: Tally,
  store: { readable: boolean; notes: Array<{ id: number; title: string }> },
  childrenLeft: number,
): SoakReport {
  const byTitle = new Map<string, number[]>();
  for (const note of store.notes) byTitle.set(note.title, [...(byTitle.get(note.title) ?? []), note.id]);
  let lost = 0;
  for (const ack of tally.acks) {
    if (byTitle.get(ack.title)?.includes(ack.id)) continue;
    lost++;
    tally.find("acknowledged but lost", `${ack.via} was told note ${ack.id} (${ack.title})`);
  }
  let twiceByKey = 0;
  let twiceByRequest = 0;
  for (const [title, ids] of byTitle) {
    if (ids.length < 2) continue;
    if (title.startsWith("key-")) twiceByKey += ids.length - 1;
    else twiceByRequest += ids.length - 1;
    tally.find("executed twice", `${title} is notes ${ids.join(", ")}`);
  }
  if (!store.readable) tally.find("store unreadable", "notes.json did not parse, or two notes share an id");
  return {
    seed: options.seed,
    seconds: options.seconds,
    elapsedMs: Date.now() - started,
    rounds,
    spawned: children.spawned,
    killed: children.killed,
    acknowledged: tally.acks.length,
    lost,
    twiceByKey,
    twiceByRequest,
    answeredTwice: tally.answeredTwice,
    unanswered: tally.unanswered,
    storeReadable: store.readable,
    stalls: tally.stalls,
    childrenLeft,
    findings: tally.findings,
  };
}

/**
 * Whether a soak found a broken promise: a lost or doubled add, a doubled or missing answer, an unreadable
 * store, or a process left behind. Stalls are reported, not failed: they measure waiting, not loss.
 *
 * @example
 * ```ts
 * process.exitCode = soakFailed(await runSoak(options)) ? 1 : 0;
 * ```
 */
export function soakFailed(report: SoakReport): boolean {
  return report.lost > 0 || report.twiceByKey > 0 || report.twiceByRequest > 0 || report.answeredTwice > 0 ||
    report.unanswered > 0 || !report.storeReadable || report.childrenLeft > 0;
}

/**
 * The report as a table for a person.
 *
 * @example
 * ```ts
 * console.log(soakTable(await runSoak(options)));
 * ```
 */
export function soakTable(report: SoakReport): string {
  const rows: Array<[string, string, string?]> = [
    ["calls acknowledged", String(report.acknowledged)],
    ["acknowledged but lost", String(report.lost)],
    [
      "executed twice",
      String(report.twiceByKey + report.twiceByRequest),
      `${report.twiceByKey} per key, ${report.twiceByRequest} per request`,
    ],
    ["answered twice", String(report.answeredTwice)],
    ["unanswered after EOF", String(report.unanswered), "by servers that exited cleanly"],
    ["store readable", report.storeReadable ? "yes" : "NO"],
    [
      "stale-lock stalls",
      String(report.stalls),
      `adds that took > ${STALL_MS / 1000} s (reported, not failed)`,
    ],
    [
      "children left",
      String(report.childrenLeft),
      `of ${report.spawned} started, ${report.killed} killed with SIGKILL`,
    ],
  ];
  const lines = [
    `soak: seed ${report.seed}, ${report.rounds} rounds in ${
      (report.elapsedMs / 1000).toFixed(1)
    } s (asked: ${report.seconds} s)`,
    ...rows.map(([name, value, note]) =>
      `  ${name.padEnd(24)} ${value.padStart(7)}${note ? `   ${note}` : ""}`
    ),
  ];
  if (report.findings.length > 0) {
    lines.push(
      "findings:",
      ...report.findings.map((finding) => `  - ${finding}`),
    );
  }
  lines.push(soakFailed(report) ? "FAIL" : "PASS");
  return lines.join("\n");
}
