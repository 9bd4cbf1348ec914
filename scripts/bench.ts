/**
 * MCP server benchmark: toolwire's built-in `mcp serve`, on Node and on Deno, against the official SDK
 * servers and a bare JSON line loop on each runtime (the floor), every server exposing the same tool
 * `echo {text}`; then the same over keep-alive HTTP (bench/http_phases.ts): toolwire's `mcp listen http://…`
 * against the SDK v2 server's stateless handler and a bare `node:http` echo. Linux only: it reads /proc.
 *
 *   npm run bench                 full run on the pinned Node 24 (several minutes on 2 cores), which
 *                                 scripts/node_versions.mjs installs into .node/ on first use
 *   npm run bench -- --quick      smaller counts, for a smoke test (too few runs and calls for the verdicts)
 *   node dist/scripts/bench.js    the same on the node that runs it (after `npm run build`)
 *   node dist/scripts/bench.js --only=bare/,toolwire/ --profile --no-big
 *                                 only the servers whose key contains "bare/" or "toolwire/" (the Node
 *                                 ones), no 1/8 MiB phases, and `--cpu-prof` on the measured Node toolwire
 *                                 processes (profiles land in .bench/profiles/)
 *   node dist/scripts/bench.js --only=bare,toolwire --toolwire-dir=../other
 *                                 the echo tool of another built checkout as the servers toolwire-b/… too,
 *                                 interleaved with this one's (before/after a change); --only=http: HTTP only
 *
 * The servers are driven by a raw line client in this process (bench/line_client.ts), not by an SDK client,
 * so client overhead does not pollute the server measurements. The phases (bench/phases.ts) measure the cold
 * path — startup, whole short agent sessions, one-at-a-time calls from a fresh process — and the warm one.
 * Server CPU is the on-CPU time of all the server's threads from /proc/<pid>/task/<tid>/schedstat (ns
 * resolution; the tables and verdicts use it), with utime + stime from /proc/<pid>/stat (10 ms steps) shown
 * beside the ratios; a short session's CPU is the whole process's up to its exit, from bash's `time`; peak
 * RSS from VmHWM in /proc/<pid>/status, read before stdin is closed (bench/proc.ts). Every response is
 * checked: its id must be one that is in flight, it must be a result, and the echoed text must round-trip.
 * The counts and the verdict targets are in bench/settings.ts; raw numbers go to .bench/results.json.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism, cpus } from "node:os";
import { relative } from "node:path";
import process from "node:process";
import { BenchError, killAll } from "./bench/line_client.ts";
import { measureHttp } from "./bench/http_phases.ts";
import { measureAll } from "./bench/phases.ts";
import { CLK_TCK, loadAverage } from "./bench/proc.ts";
import {
  coldTable,
  fmt,
  httpRatios,
  httpTable,
  type Ratio,
  ratios,
  ratioTable,
  resultsTable,
  writeResults,
} from "./bench/report.ts";
import type { ServerResult } from "./bench/results.ts";
import {
  DENO,
  HTTP_SERVERS,
  HTTP_SETTINGS,
  NO_BIG,
  ONLY,
  OUT_DIR,
  QUICK,
  SERVERS,
  SETTINGS,
  TOOLWIRE_DIR,
  UNSET_FOR_SERVERS,
} from "./bench/settings.ts";

const chosen = (spec: { key: string }) => ONLY === undefined || ONLY.some((word) => spec.key.includes(word));

async function main(): Promise<void> {
  const selected = SERVERS.filter(chosen);
  const selectedHttp = HTTP_SERVERS.filter(chosen);
  if (selected.length + selectedHttp.length === 0) {
    throw new BenchError(`--only=${ONLY?.join(",")} selects no server`);
  }
  const deno = [...selected, ...selectedHttp].some((spec) => spec.runtime === "deno")
    ? denoVersion()
    : undefined;
  console.log(
    `MCP bench, stdio and HTTP${QUICK ? " (--quick)" : ""}: node ${process.version}${
      deno === undefined ? "" : `, deno ${deno}`
    }, ` +
      `${availableParallelism()} CPU(s) (${cpus()[0]?.model ?? "?"}), CLK_TCK ${CLK_TCK}`,
  );
  console.log(
    `per server: startup ×${SETTINGS.startupRuns} (median), short session ×${SETTINGS.sessionRuns} ` +
      `(handshake, tools/list, ${SETTINGS.sessionCalls} sequential calls, EOF), ` +
      `${SETTINGS.coldSequentialCalls} sequential calls cold ×${SETTINGS.coldRuns} fresh processes, ` +
      `warm-up ${SETTINGS.warmupCalls} + ${SETTINGS.warmupSequentialCalls} sequential, ` +
      `${SETTINGS.pipelinedCalls} pipelined calls ` +
      `(${SETTINGS.smallTextBytes}-byte text, ${SETTINGS.inFlight} in flight), ${SETTINGS.sequentialCalls} sequential` +
      (NO_BIG ? "" : `, ${SETTINGS.bigCalls} × 1 MiB and ${SETTINGS.bigCalls} × 8 MiB sequential`) +
      `; warm load phases interleaved over ${SETTINGS.rounds} rounds`,
  );
  console.log(
    `HTTP, per server and era: warm-up ${HTTP_SETTINGS.warmupCalls} calls, then ` +
      HTTP_SETTINGS.concurrency.map((clients) =>
        `${HTTP_SETTINGS.calls[clients]} calls from ${clients} keep-alive client(s)`
      ).join(" and ") + ` over ${HTTP_SETTINGS.rounds} interleaved rounds`,
  );
  if (TOOLWIRE_DIR !== undefined) console.log(`toolwire-b = the echo tool of ${TOOLWIRE_DIR}`);
  const unset = UNSET_FOR_SERVERS.filter((name) => process.env[name] !== undefined);
  if (unset.length > 0) {
    console.log(`the servers run without ${unset.join(", ")} (set here; see bench/settings.ts)`);
  }
  const started = performance.now();
  const loadBefore = loadAverage();
  console.log(
    `servers: ${[...selected, ...selectedHttp].map((spec) => spec.key).join(", ")}; ` +
      `load average before: ${loadBefore}`,
  );
  const progress = (message: string) => {
    console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${message}`);
  };
  const results = selected.length === 0 ? [] : await measureAll(selected, progress);
  const httpResults = selectedHttp.length === 0 ? [] : await measureHttp(selectedHttp, progress);
  const loadAfter = loadAverage();
  const keyWidth = Math.max(...results.map((r) => r.key.length));
  for (const r of results) {
    const pipelined = r.phases.pipelined;
    console.log(
      `  ${r.key.padEnd(keyWidth)} pipelined: server ${fmt(pipelined?.cpuUsPerRequest, 1)} µs CPU/req ` +
        `(schedstat ${fmt(pipelined?.cpuUsPerRequestPrecise, 1)}) ` +
        `(rounds ${pipelined?.roundsCpuUsPerRequest.map((v) => fmt(v, 1)).join(", ")}), ` +
        `client ${
          fmt(((pipelined?.clientCpuMs ?? NaN) * 1000) / (pipelined?.requests ?? NaN), 1)
        } µs CPU/req`,
    );
  }
  console.log(`load average after: ${loadAfter}`);
  const found = ratios(results);
  if (results.length > 0) printStdio(results, found);
  const foundHttp = httpRatios(httpResults);
  if (httpResults.length > 0) {
    console.log(`\n${httpTable(httpResults)}\n`);
    console.log(
      "HTTP: the same echo tool over keep-alive HTTP/1.1 on 127.0.0.1, one POST per call; cN = N clients (one\n" +
        "connection each) sending their next call when the last is answered. CPU = the server's, all threads\n" +
        "(schedstat) ÷ calls; p50/p99 = the client's round trip.\n",
    );
    console.log(ratioTable(foundHttp));
  }
  const file = writeResults(OUT_DIR, {
    date: new Date().toISOString(),
    node: process.version,
    ...(deno === undefined ? {} : { deno }),
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    clockTicks: CLK_TCK,
    quick: QUICK,
    loadAverage: { before: loadBefore, after: loadAfter },
    settings: SETTINGS,
    results,
    ratios: found,
    httpSettings: HTTP_SETTINGS,
    httpResults,
    httpRatios: foundHttp,
  });
  console.log(
    `\nraw numbers: ${relative(process.cwd(), file) || file}; total ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s`,
  );
}

function printStdio(results: ServerResult[], found: Ratio[]): void {
  console.log(`\n${resultsTable(results)}\n`);
  console.log(
    "startup = spawn → first response (median); startup CPU = the server's CPU by then (median). CPU = the on-CPU\n" +
      "time of all the server's threads (/proc schedstat, ns); µs/req = CPU ÷ requests; 'MiB' = MiB of echoed text per\n" +
      "call; seq p50 = round trip.\n",
  );
  console.log(`${coldTable(results)}\n`);
  console.log(
    `session = one short agent session: spawn, initialize (legacy) or server/discover (modern), tools/list,\n` +
      `${SETTINGS.sessionCalls} one-at-a-time calls, EOF, exit; its wall time is the process's lifetime and its CPU that of the\n` +
      `whole process up to its exit (bash's time). cold seq = ${SETTINGS.coldSequentialCalls} one-at-a-time calls right after the handshake of a\n` +
      `fresh process, no warm-up (per process: the lowest and highest of the ${SETTINGS.coldRuns} processes); warm seq = the\n` +
      "sequential phase of the table above.\n",
  );
  console.log(ratioTable(found));
  console.log(
    "value: from utime+stime, 10 ms steps (wall time for startup and sessions, bash's time for session CPU, VmHWM\n" +
      "for RSS); schedstat: the same CPU ratio at ns resolution. A verdict is judged on schedstat where there is one.",
  );
}

function denoVersion(): string {
  try {
    return /deno (\S+)/.exec(execFileSync(DENO, ["--version"], { encoding: "utf8" }))?.[1] ?? "?";
  } catch {
    throw new BenchError(
      `cannot run ${DENO}: install the dev dependencies (npm ci), or leave the Deno servers out with --only`,
    );
  }
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
