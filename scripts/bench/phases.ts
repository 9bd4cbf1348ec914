/**
 * The phases, in the order they run:
 *
 * 1. startup: spawn → first response → EOF → exit, round-robin over the servers;
 * 2. short sessions: the whole process as an agent uses it — spawn, the era's handshake, tools/list, a few
 *    one-at-a-time calls, EOF, exit — timed by bash's `time`, round-robin;
 * 3. cold sequential: a fresh process answers one-at-a-time calls with no warm-up, round-robin;
 * 4. warm: one long-lived process per server is warmed up, then runs pipelined and sequential small calls
 *    and sequential 1 MiB and 8 MiB calls.
 *
 * The machine may be shared, and its load drifts. So the servers are measured interleaved: the runs of
 * phases 1–3 go round-robin over the servers, and in phase 4 every server stays up while the load phases
 * run in rounds — round r runs a slice of each phase on each server in turn — so a slow minute hurts every
 * server alike. Totals (CPU ÷ requests) are over all rounds; the per-round values are kept to show the spread.
 */
import { join } from "node:path";
import { BenchError, ServerProcess } from "./line_client.ts";
import {
  bigText,
  callLine,
  checkHandshake,
  checkToolsList,
  discoverLine,
  echoed,
  INITIALIZED_LINE,
  initializeLine,
  smallText,
  toolsListLine,
} from "./messages.ts";
import { clientCpuMs, cpuMs, preciseCpuMs, statusMiB } from "./proc.ts";
import {
  median,
  PhaseTotals,
  type ServerResult,
  type SessionRun,
  spread,
  type StartupRun,
} from "./results.ts";
import { NO_BIG, OUT_DIR, PROFILE, type ServerSpec, SETTINGS } from "./settings.ts";

/** Runs `count` echo calls, `inFlight` at a time, checking every answer; resolves with their latencies. */
function echoCalls(
  server: ServerProcess,
  name: string,
  count: number,
  inFlight: number,
  text: (i: number) => string,
): Promise<number[]> {
  const { spec } = server;
  const texts = new Array<string>(count);
  return server.calls(
    name,
    count,
    inFlight,
    (i, id) => callLine(spec.era, id, texts[i] = text(i)),
    (i, result) => {
      const got = echoed(spec, result);
      if (got !== texts[i]) {
        throw new BenchError(
          `request ${i}: the echoed text differs (sent ${texts[i]!.length} chars, got ${got.length})`,
        );
      }
      texts[i] = ""; // let a big text go
    },
  );
}

/** {@linkcode echoCalls}, with the server's CPU read around them; adds the numbers to `totals`. */
async function slice(
  server: ServerProcess,
  name: string,
  count: number,
  inFlight: number,
  text: (i: number) => string,
  totals?: PhaseTotals,
): Promise<void> {
  const cpu0 = cpuMs(server.pid);
  const precise0 = preciseCpuMs(server.pid);
  const client0 = clientCpuMs();
  const t0 = performance.now();
  const latencies = await echoCalls(server, name, count, inFlight, text);
  const wallMs = performance.now() - t0;
  const serverCpuMs = cpuMs(server.pid) - cpu0;
  const serverCpuPreciseMs = preciseCpuMs(server.pid) - precise0;
  totals?.add(count, wallMs, serverCpuMs, serverCpuPreciseMs, clientCpuMs() - client0, latencies);
}

/** Legacy: initialize (checked), then notifications/initialized. Modern: server/discover (checked). */
async function handshake(server: ServerProcess): Promise<void> {
  const { spec } = server;
  const line = spec.era === "legacy" ? initializeLine : discoverLine;
  await server.calls("handshake", 1, 1, (_, id) => line(id), (_, result) => checkHandshake(spec, result));
  if (spec.era === "legacy") {
    server.queue(INITIALIZED_LINE);
    server.flush();
  }
}

/** EOF, then a clean exit. */
async function closeCleanly(server: ServerProcess): Promise<void> {
  const { code, signal } = await server.close();
  if (code !== 0) {
    throw new BenchError(
      `${server.spec.key}: exited with code ${code} (signal ${signal}) after EOF\n${server.stderrTail}`,
    );
  }
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

/** One short agent session: spawn, handshake, tools/list, `sessionCalls` one-at-a-time calls, EOF, exit. */
async function sessionRun(spec: ServerSpec): Promise<SessionRun> {
  const server = new ServerProcess(spec, { timed: true });
  try {
    await handshake(server);
    await server.calls(
      "tools/list",
      1,
      1,
      (_, id) => toolsListLine(spec.era, id),
      (_, result) => checkToolsList(spec, result),
    );
    await echoCalls(server, "session calls", SETTINGS.sessionCalls, 1, smallText);
    await closeCleanly(server);
    const { at } = await server.exited;
    const timing = await server.timing!;
    return {
      wallMs: timing.realMs,
      cpuMs: timing.userMs + timing.sysMs,
      clientWallMs: at - server.spawnedAt,
    };
  } catch (error) {
    server.kill();
    throw error;
  }
}

/** A fresh process: handshake, then `coldSequentialCalls` one-at-a-time calls measured, EOF, exit. */
async function coldRun(spec: ServerSpec, totals: PhaseTotals): Promise<void> {
  const server = new ServerProcess(spec);
  try {
    await handshake(server);
    await slice(server, "cold sequential", SETTINGS.coldSequentialCalls, 1, smallText, totals);
    await closeCleanly(server);
  } catch (error) {
    server.kill();
    throw error;
  }
}

interface Subject {
  spec: ServerSpec;
  server: ServerProcess;
  totals: Map<string, PhaseTotals>;
  peakRssSmallMiB: number;
}

/** Runs `run` `times` times for every spec, round-robin. */
async function roundRobin<T>(
  specs: ServerSpec[],
  times: number,
  run: (spec: ServerSpec) => Promise<T>,
): Promise<Map<ServerSpec, T[]>> {
  const out = new Map<ServerSpec, T[]>(specs.map((spec) => [spec, []]));
  for (let i = 0; i < times; i++) {
    for (const spec of specs) out.get(spec)!.push(await run(spec));
  }
  return out;
}

/**
 * Runs every phase on every server; `progress` gets a line as each phase starts.
 *
 * @example
 * ```ts
 * const results = await measureAll(SERVERS, (line) => console.log(line));
 * ```
 */
export async function measureAll(
  specs: ServerSpec[],
  progress: (message: string) => void,
): Promise<ServerResult[]> {
  const deno = specs.filter((spec) => spec.runtime === "deno");
  if (deno.length > 0) {
    progress(`priming: ${SETTINGS.primingRuns} unmeasured run per Deno server`);
    await roundRobin(deno, SETTINGS.primingRuns, startupRun);
  }
  progress(`startup: ${SETTINGS.startupRuns} runs per server, round-robin`);
  const startupRuns = await roundRobin(specs, SETTINGS.startupRuns, startupRun);
  progress(`short sessions: ${SETTINGS.sessionRuns} per server, round-robin`);
  const sessionRuns = await roundRobin(specs, SETTINGS.sessionRuns, sessionRun);
  progress(
    `cold sequential: ${SETTINGS.coldRuns} fresh processes per server, ${SETTINGS.coldSequentialCalls} calls each, round-robin`,
  );
  const coldTotals = new Map(specs.map((spec) => [spec, new PhaseTotals()]));
  await roundRobin(specs, SETTINGS.coldRuns, (spec) => coldRun(spec, coldTotals.get(spec)!));

  const subjects: Subject[] = [];
  for (const spec of specs) {
    const nodeArgs = PROFILE && spec.kind === "toolwire" && spec.runtime === "node"
      ? [
        "--cpu-prof",
        `--cpu-prof-dir=${join(OUT_DIR, "profiles")}`,
        `--cpu-prof-name=${spec.key.replace("/", "-")}.cpuprofile`,
      ]
      : [];
    const server = new ServerProcess(spec, { nodeArgs });
    subjects.push({ spec, server, totals: new Map(), peakRssSmallMiB: NaN });
    await handshake(server);
  }
  const totalsOf = (subject: Subject, phase: string, mib?: number) => {
    let totals = subject.totals.get(phase);
    if (totals === undefined) subject.totals.set(phase, totals = new PhaseTotals(mib));
    return totals;
  };
  const rounds = SETTINGS.rounds;
  progress(
    `warm-up: ${SETTINGS.warmupCalls} pipelined and ${SETTINGS.warmupSequentialCalls} sequential calls per server`,
  );
  for (const subject of subjects) {
    await slice(subject.server, "warm-up", SETTINGS.warmupCalls, SETTINGS.inFlight, smallText);
    await slice(subject.server, "warm-up", SETTINGS.warmupSequentialCalls, 1, smallText);
  }
  for (let round = 1; round <= rounds; round++) {
    progress(`small calls, round ${round}/${rounds}`);
    for (const subject of subjects) {
      await slice(
        subject.server,
        "pipelined",
        SETTINGS.pipelinedCalls / rounds,
        SETTINGS.inFlight,
        smallText,
        totalsOf(subject, "pipelined"),
      );
    }
    for (const subject of subjects) {
      await slice(
        subject.server,
        "sequential",
        SETTINGS.sequentialCalls / rounds,
        1,
        smallText,
        totalsOf(subject, "sequential"),
      );
    }
  }
  for (const subject of subjects) subject.peakRssSmallMiB = statusMiB(subject.server.pid, "VmHWM");
  if (!NO_BIG) {
    const bigRounds = Math.min(rounds, SETTINGS.bigCalls);
    for (const mib of SETTINGS.bigMiB) {
      for (let round = 1; round <= bigRounds; round++) {
        progress(`${mib} MiB calls, round ${round}/${bigRounds}`);
        for (const subject of subjects) {
          const count = Math.floor(SETTINGS.bigCalls / bigRounds) +
            (round <= SETTINGS.bigCalls % bigRounds ? 1 : 0);
          await slice(
            subject.server,
            `${mib} MiB`,
            count,
            1,
            (i) => bigText(mib, i),
            totalsOf(subject, `big${mib}`, mib),
          );
        }
      }
    }
  }

  const results: ServerResult[] = [];
  for (const { spec, server, totals, peakRssSmallMiB } of subjects) {
    const peakRssMiB = statusMiB(server.pid, "VmHWM");
    const totalServerCpuMs = cpuMs(server.pid);
    const { exitMs, code, signal } = await server.close();
    if (code !== 0) {
      throw new BenchError(
        `${spec.key}: exited with code ${code} (signal ${signal}) after EOF\n${server.stderrTail}`,
      );
    }
    const runs = startupRuns.get(spec)!;
    const sessions = sessionRuns.get(spec)!;
    results.push({
      key: spec.key,
      label: spec.label,
      kind: spec.kind,
      era: spec.era,
      runtime: spec.runtime,
      startup: {
        runs,
        firstResponseMs: median(runs.map((run) => run.firstResponseMs)),
        firstCallMs: median(runs.map((run) => run.firstCallMs)),
        cpuMsAtFirstResponse: median(runs.map((run) => run.cpuMsAtFirstResponse)),
        preciseCpuMsAtFirstResponse: median(runs.map((run) => run.preciseCpuMsAtFirstResponse)),
      },
      session: {
        runs: sessions,
        wallMs: spread(sessions.map((run) => run.wallMs)),
        cpuMs: spread(sessions.map((run) => run.cpuMs)),
      },
      phases: Object.fromEntries([
        ["cold-sequential", coldTotals.get(spec)!.result()],
        ...[...totals].map(([phase, t]) => [phase, t.result()] as const),
      ]),
      peakRssSmallMiB,
      peakRssMiB,
      exitMs,
      exitCode: code,
      totalServerCpuMs,
    });
  }
  return results;
}
