/**
 * The HTTP phase: every HTTP server is started once (each serves both eras on one endpoint) and warmed up;
 * then, in interleaved rounds as the warm stdio phases run, each era's calls go from 1 and from 64
 * keep-alive clients at once to each server in turn. Server CPU is the schedstat of all the server's
 * threads, read around each slice, as on stdio; latency is the client's, request sent to answer read.
 */
import { HttpServerProcess } from "./http_client.ts";
import { smallText } from "./messages.ts";
import { clientCpuMs, cpuMs, preciseCpuMs, statusMiB } from "./proc.ts";
import { type PhaseResult, PhaseTotals } from "./results.ts";
import {
  type Era,
  HTTP_SETTINGS,
  httpPhase,
  type HttpServerSpec,
  type Kind,
  type Runtime,
} from "./settings.ts";

/** Everything measured of one HTTP server. */
export interface HttpServerResult {
  key: string;
  label: string;
  kind: Kind;
  runtime: Runtime;
  /** By {@linkcode httpPhase}: `modern-c1`, `modern-c64`, `legacy-c1`, `legacy-c64`. */
  phases: Record<string, PhaseResult>;
  peakRssMiB: number;
}

const ERAS: readonly Era[] = ["modern", "legacy"];

async function slice(
  server: HttpServerProcess,
  era: Era,
  count: number,
  clients: number,
  totals?: PhaseTotals,
): Promise<void> {
  const cpu0 = cpuMs(server.pid);
  const precise0 = preciseCpuMs(server.pid);
  const client0 = clientCpuMs();
  const t0 = performance.now();
  const latencies = await server.calls(era, count, clients, smallText);
  const wallMs = performance.now() - t0;
  totals?.add(
    count,
    wallMs,
    cpuMs(server.pid) - cpu0,
    preciseCpuMs(server.pid) - precise0,
    clientCpuMs() - client0,
    latencies,
  );
}

/**
 * Runs the HTTP phase on every server; `progress` gets a line as each part starts.
 *
 * @example
 * ```ts
 * const results = await measureHttp(HTTP_SERVERS, (line) => console.log(line));
 * ```
 */
export async function measureHttp(
  specs: HttpServerSpec[],
  progress: (message: string) => void,
): Promise<HttpServerResult[]> {
  const servers: HttpServerProcess[] = [];
  try {
    for (const spec of specs) servers.push(await HttpServerProcess.start(spec));
    progress(`HTTP warm-up: ${HTTP_SETTINGS.warmupCalls} calls per era and concurrency per server`);
    for (const server of servers) {
      for (const era of ERAS) {
        for (const clients of HTTP_SETTINGS.concurrency) {
          await slice(server, era, HTTP_SETTINGS.warmupCalls, clients);
        }
      }
    }
    const totals = new Map(servers.map((server) => [server, new Map<string, PhaseTotals>()]));
    const { rounds } = HTTP_SETTINGS;
    for (let round = 1; round <= rounds; round++) {
      progress(`HTTP calls, round ${round}/${rounds}`);
      for (const era of ERAS) {
        for (const clients of HTTP_SETTINGS.concurrency) {
          for (const server of servers) {
            const phases = totals.get(server)!;
            const phase = httpPhase(era, clients);
            if (!phases.has(phase)) phases.set(phase, new PhaseTotals());
            await slice(server, era, HTTP_SETTINGS.calls[clients]! / rounds, clients, phases.get(phase));
          }
        }
      }
    }
    const results: HttpServerResult[] = [];
    for (const server of servers) {
      const { spec } = server;
      results.push({
        key: spec.key,
        label: spec.label,
        kind: spec.kind,
        runtime: spec.runtime,
        phases: Object.fromEntries([...totals.get(server)!].map(([phase, t]) => [phase, t.result()])),
        peakRssMiB: statusMiB(server.pid, "VmHWM"),
      });
    }
    return results;
  } finally {
    for (const server of servers) await server.close();
  }
}
