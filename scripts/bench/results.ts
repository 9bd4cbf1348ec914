/**
 * The numbers a run produces, per server and phase, and the sums and percentiles they are made from. They
 * go to .bench/results.json as they are.
 */
import type { Era, Kind, Runtime } from "./settings.ts";

/** One phase's numbers, over all its rounds. */
export interface PhaseResult {
  requests: number;
  wallMs: number;
  serverCpuMs: number;
  /** Server CPU from schedstat (ns resolution). */
  serverCpuPreciseMs: number;
  clientCpuMs: number;
  cpuUsPerRequest: number;
  cpuUsPerRequestPrecise: number;
  /** Server CPU per request in each round (each process, for the cold phase), to show the spread. */
  roundsCpuUsPerRequest: number[];
  roundsCpuUsPerRequestPrecise: number[];
  requestsPerSecond: number;
  latencyP50Us: number;
  latencyP99Us: number;
  /** Big phases: MiB of text echoed per call, and server CPU per MiB. */
  mib?: number;
  cpuMsPerMiB?: number;
  cpuMsPerMiBPrecise?: number;
}

/** One spawn → first response → EOF → exit. */
export interface StartupRun {
  firstResponseMs: number;
  firstCallMs: number;
  cpuMsAtFirstResponse: number;
  preciseCpuMsAtFirstResponse: number;
  exitMs: number;
}

/** The medians of the startup runs. */
export interface StartupResult {
  runs: StartupRun[];
  firstResponseMs: number;
  firstCallMs: number;
  cpuMsAtFirstResponse: number;
  preciseCpuMsAtFirstResponse: number;
}

/** One short agent session, spawn to exit. */
export interface SessionRun {
  /** The server process's lifetime, fork to reaped (bash's `time`). */
  wallMs: number;
  /** User + system CPU of the whole process, all its threads, up to its exit. */
  cpuMs: number;
  /** From this process's spawn of the bash wrapper to its exit: the wall time plus bash's own start. */
  clientWallMs: number;
}

/** The 10th, 50th and 90th percentiles. */
export interface Spread {
  p10: number;
  p50: number;
  p90: number;
}

/** The short sessions of one server. */
export interface SessionResult {
  runs: SessionRun[];
  wallMs: Spread;
  cpuMs: Spread;
}

/** Everything measured of one server. */
export interface ServerResult {
  key: string;
  label: string;
  kind: Kind;
  era: Era;
  runtime: Runtime;
  startup: StartupResult;
  session: SessionResult;
  /** `pipelined`, `sequential`, `cold-sequential`, `big1`, `big8`. */
  phases: Record<string, PhaseResult>;
  peakRssSmallMiB: number;
  peakRssMiB: number;
  exitMs: number;
  exitCode: number | null;
  totalServerCpuMs: number;
}

/**
 * The value at percentile `p` of ascending `sorted` values; NaN for none.
 *
 * @example
 * ```ts
 * percentile([1, 2, 3, 4], 50); // 3
 * ```
 */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * The median (the upper one of an even count), as {@linkcode percentile} 50.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/**
 * p10, p50 and p90 of some values.
 *
 * @example
 * ```ts
 * spread(runs.map((run) => run.wallMs)).p50;
 * ```
 */
export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { p10: percentile(sorted, 10), p50: percentile(sorted, 50), p90: percentile(sorted, 90) };
}

/**
 * One phase's numbers, summed over its rounds.
 *
 * @example
 * ```ts
 * const totals = new PhaseTotals();
 * totals.add(200, wallMs, cpuMs, preciseMs, clientMs, latencies);
 * totals.result().cpuUsPerRequestPrecise;
 * ```
 */
export class PhaseTotals {
  requests = 0;
  wallMs = 0;
  serverCpuMs = 0;
  serverCpuPreciseMs = 0;
  clientCpuMs = 0;
  rounds: number[] = [];
  roundsPrecise: number[] = [];
  latencies: number[] = [];

  constructor(readonly mib?: number) {}

  /** Adds one round: `count` requests and what they cost. */
  add(
    count: number,
    wallMs: number,
    serverCpuMs: number,
    serverCpuPreciseMs: number,
    clientCpuMs: number,
    latencies: number[],
  ): void {
    this.requests += count;
    this.wallMs += wallMs;
    this.serverCpuMs += serverCpuMs;
    this.serverCpuPreciseMs += serverCpuPreciseMs;
    this.clientCpuMs += clientCpuMs;
    this.rounds.push((serverCpuMs * 1000) / count);
    this.roundsPrecise.push((serverCpuPreciseMs * 1000) / count);
    for (const latency of latencies) this.latencies.push(latency);
  }

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
      roundsCpuUsPerRequestPrecise: this.roundsPrecise,
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
