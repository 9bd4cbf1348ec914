/**
 * The report: the results table, the cold-path table, and the ratios with their verdicts (the targets are in
 * settings.ts), printed as Markdown tables; and the raw numbers as JSON.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HttpServerResult } from "./http_phases.ts";
import type { ServerResult } from "./results.ts";
import { HTTP_RATIOS, HTTP_SETTINGS, httpPhase, type Metric, RATIOS } from "./settings.ts";

/**
 * A number for a table: grouped thousands, `digits` decimals, "—" for none.
 *
 * @example
 * ```ts
 * fmt(12345.678, 1); // "12,345.7"
 * ```
 */
export function fmt(value: number | undefined, digits = 0): string {
  if (value === undefined || Number.isNaN(value)) return "—";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A Markdown table; the first two columns are text (left-aligned), the others numbers (right-aligned). */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, c) => Math.max(header.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    `| ${
      cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(" | ")
    } |`;
  return [
    line(headers),
    `|${widths.map((w, c) => (c < 2 ? ":" : "-") + "-".repeat(w) + (c < 2 ? "-" : ":")).join("|")}|`,
    ...rows.map(line),
  ]
    .join("\n");
}

/** The schedstat figure where the machine has one, else the utime+stime one. */
function bestCpu(schedstat: number | undefined, ticks: number | undefined): number | undefined {
  return schedstat !== undefined && Number.isFinite(schedstat) ? schedstat : ticks;
}

function range(low: number | undefined, high: number | undefined, digits: number): string {
  return low === undefined || high === undefined ? "—" : `${fmt(low, digits)}–${fmt(high, digits)}`;
}

/**
 * The main table: startup, warm small calls, big calls, memory, exit — one row per server.
 *
 * @example
 * ```ts
 * console.log(resultsTable(results));
 * ```
 */
export function resultsTable(results: ServerResult[]): string {
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

/**
 * The cold path: short agent sessions, and one-at-a-time calls from a fresh process beside the warm ones.
 *
 * @example
 * ```ts
 * console.log(coldTable(results));
 * ```
 */
export function coldTable(results: ServerResult[]): string {
  const headers = [
    "server",
    "era",
    "session ms p50",
    "session ms p10–p90",
    "session CPU ms p50",
    "session CPU ms p10–p90",
    "cold seq CPU µs/call",
    "per process",
    "warm seq CPU µs/req",
    "cold seq p50 µs",
    "warm seq p50 µs",
  ];
  const rows = results.map((r) => {
    const cold = r.phases["cold-sequential"];
    const perProcess = cold?.roundsCpuUsPerRequestPrecise.filter(Number.isFinite) ?? [];
    const warm = r.phases.sequential;
    return [
      r.label,
      r.era,
      fmt(r.session.wallMs.p50, 1),
      range(r.session.wallMs.p10, r.session.wallMs.p90, 1),
      fmt(r.session.cpuMs.p50, 1),
      range(r.session.cpuMs.p10, r.session.cpuMs.p90, 1),
      fmt(bestCpu(cold?.cpuUsPerRequestPrecise, cold?.cpuUsPerRequest), 1),
      perProcess.length === 0 ? "—" : range(Math.min(...perProcess), Math.max(...perProcess), 0),
      fmt(bestCpu(warm?.cpuUsPerRequestPrecise, warm?.cpuUsPerRequest), 1),
      fmt(cold?.latencyP50Us),
      fmt(warm?.latencyP50Us),
    ];
  });
  return table(headers, rows);
}

/** One line of the ratio table, as computed. */
export interface Ratio {
  what: string;
  /** From utime+stime (or wall time / RSS / bash's CPU where that is what is compared); NaN under one tick. */
  value: number;
  /** The same CPU ratio from schedstat (ns resolution), when it applies. */
  precise?: number;
  target?: number;
  /** Judged on `precise` where there is one, else on `value`. */
  pass?: boolean;
}

/** A compared quantity of one server: its value, and its schedstat twin for CPU quantities. */
type Reading = [value: number | undefined, precise?: number];

const METRICS: Record<Metric, (r: ServerResult) => Reading> = {
  pipelined: (r) => [r.phases.pipelined?.cpuUsPerRequest, r.phases.pipelined?.cpuUsPerRequestPrecise],
  sequential: (r) => [r.phases.sequential?.cpuUsPerRequest, r.phases.sequential?.cpuUsPerRequestPrecise],
  coldSequential: (
    r,
  ) => [r.phases["cold-sequential"]?.cpuUsPerRequest, r.phases["cold-sequential"]?.cpuUsPerRequestPrecise],
  startup: (r) => [r.startup.firstResponseMs],
  startupCpu: (r) => [r.startup.cpuMsAtFirstResponse, r.startup.preciseCpuMsAtFirstResponse],
  big1: (r) => [r.phases.big1?.cpuMsPerMiB, r.phases.big1?.cpuMsPerMiBPrecise],
  big8: (r) => [r.phases.big8?.cpuMsPerMiB, r.phases.big8?.cpuMsPerMiBPrecise],
  rss: (r) => [r.peakRssMiB],
  rssBig: (r) => [r.phases.big8 === undefined ? undefined : r.peakRssMiB],
  session: (r) => [r.session.wallMs.p50],
  sessionCpu: (r) => [r.session.cpuMs.p50],
};

/**
 * The lines of the ratio table whose servers were run, with their verdicts.
 *
 * @example
 * ```ts
 * const missed = ratios(results).filter((r) => r.pass === false);
 * ```
 */
export function ratios(results: ServerResult[]): Ratio[] {
  const by = new Map(results.map((r) => [r.key, r]));
  const out: Ratio[] = [];
  for (const spec of RATIOS) {
    const a = by.get(spec.of);
    const b = by.get(spec.over);
    if (a === undefined || b === undefined) continue;
    const [valueA, preciseA] = METRICS[spec.metric](a);
    const [valueB, preciseB] = METRICS[spec.overMetric ?? spec.metric](b);
    // A fast server's CPU can stay under one 10 ms tick for a whole phase: its schedstat ratio still counts.
    const value = valueA !== undefined && valueB !== undefined && valueB > 0 ? valueA / valueB : NaN;
    const precise = preciseA !== undefined && preciseB !== undefined && preciseB > 0
      ? preciseA / preciseB
      : undefined;
    const judged = precise !== undefined && Number.isFinite(precise) ? precise : value;
    if (!Number.isFinite(judged)) continue;
    const { target } = spec;
    out.push({
      what: spec.what,
      value,
      ...(precise === undefined ? {} : { precise }),
      ...(target === undefined ? {} : { target, pass: judged <= target }),
    });
  }
  return out;
}

/**
 * The ratio table.
 *
 * @example
 * ```ts
 * console.log(ratioTable(ratios(results)));
 * ```
 */
export function ratioTable(found: Ratio[]): string {
  return table(
    ["ratio", "", "value", "schedstat", "target", "verdict"],
    found.map((r) => [
      r.what,
      "",
      Number.isFinite(r.value) ? `${r.value.toFixed(2)}×` : "—",
      r.precise === undefined || !Number.isFinite(r.precise) ? "" : `${r.precise.toFixed(2)}×`,
      r.target === undefined ? "" : `≤ ${Number(r.target.toFixed(2))}×`,
      r.pass === undefined ? "" : r.pass ? "PASS" : "MISS",
    ]),
  );
}

/**
 * The HTTP table: per server and era, at each concurrency, throughput, server CPU per request and latency.
 *
 * @example
 * ```ts
 * console.log(httpTable(httpResults));
 * ```
 */
export function httpTable(results: HttpServerResult[]): string {
  const headers = ["server", "era"];
  for (const clients of HTTP_SETTINGS.concurrency) {
    headers.push(`c${clients} req/s`, `c${clients} CPU µs/req`, `c${clients} p50 µs`, `c${clients} p99 µs`);
  }
  headers.push("peak RSS MiB");
  const rows = results.flatMap((r) =>
    (["modern", "legacy"] as const).map((era) => [
      r.label,
      era,
      ...HTTP_SETTINGS.concurrency.flatMap((clients) => {
        const phase = r.phases[httpPhase(era, clients)];
        return [
          fmt(phase?.requestsPerSecond),
          fmt(bestCpu(phase?.cpuUsPerRequestPrecise, phase?.cpuUsPerRequest), 1),
          fmt(phase?.latencyP50Us),
          fmt(phase?.latencyP99Us),
        ];
      }),
      fmt(r.peakRssMiB),
    ])
  );
  return table(headers, rows);
}

/**
 * The lines of the HTTP ratio table whose servers were run, judged on schedstat CPU per request.
 *
 * @example
 * ```ts
 * console.log(ratioTable(httpRatios(httpResults)));
 * ```
 */
export function httpRatios(results: HttpServerResult[]): Ratio[] {
  const by = new Map(results.map((r) => [r.key, r]));
  const out: Ratio[] = [];
  for (const spec of HTTP_RATIOS) {
    const a = by.get(spec.of)?.phases[spec.phase];
    const b = by.get(spec.over)?.phases[spec.phase];
    if (a === undefined || b === undefined) continue;
    const value = b.cpuUsPerRequest > 0 ? a.cpuUsPerRequest / b.cpuUsPerRequest : NaN;
    const precise = a.cpuUsPerRequestPrecise / b.cpuUsPerRequestPrecise;
    if (!Number.isFinite(precise)) continue;
    const { target } = spec;
    out.push({
      what: spec.what,
      value,
      precise,
      ...(target === undefined ? {} : { target, pass: precise <= target }),
    });
  }
  return out;
}

/**
 * Writes the raw numbers as `results.json` in `dir` (made if missing); returns the file's path.
 *
 * @example
 * ```ts
 * const file = writeResults(".bench", { date: new Date().toISOString(), results });
 * ```
 */
export function writeResults(dir: string, data: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "results.json");
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
