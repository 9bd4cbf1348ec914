import { nodeProcess } from "./node_process.ts";
import { deno } from "./deno_api.ts";
import { missingPermission } from "./permission.ts";
import { releaseFifoWaits } from "./fifo_waits.ts";

/**
 * Milliseconds since an arbitrary fixed point, never going backwards: the clock for durations. On Node it
 * reads `process.hrtime.bigint()`, which costs a start nothing (docs/performance.md#code-shapes). A double
 * holds the nanoseconds exactly for 104 days of uptime.
 *
 * @example
 * ```ts
 * const startedAt = monotonicMs();
 * const elapsed = monotonicMs() - startedAt;
 * ```
 */
export const monotonicMs: () => number = deno ? () => performance.now() : nodeClock(nodeProcess().hrtime);

function nodeClock(hrtime: NodeJS.HRTime): () => number {
  return () => Number(hrtime.bigint()) / 1e6;
}

/**
 * The command-line arguments after the program name.
 *
 * @example
 * ```ts
 * const argv = commandArgs(); // ["add", "--title", "x"]
 * ```
 */
export function commandArgs(): string[] {
  return deno ? [...deno.args] : nodeProcess().argv.slice(2);
}

/**
 * Reads one environment variable; `undefined` when unset.
 *
 * @example
 * ```ts
 * const home = getEnv("NOTES_HOME");
 * ```
 */
export function getEnv(name: string): string | undefined {
  return deno ? deno.env.get(name) : nodeProcess().env[name];
}

/**
 * Reads an environment variable the framework can do without: `undefined` when unset, and also when the
 * runtime was not granted environment access (Deno without `--allow-env`), so a setting such as
 * `<TOOL>_FORMAT` or `NO_COLOR` falls back to its default instead of failing the run. On Deno it asks the
 * permission state first: reading an ungranted variable would make Deno stop and prompt a person at a
 * terminal, for a setting nobody asked about.
 *
 * @example
 * ```ts
 * const format = optionalEnv("NOTES_FORMAT") ?? "json";
 * ```
 */
export function optionalEnv(name: string): string | undefined {
  const state = deno?.permissions?.querySync?.({ name: "env", variable: name }).state;
  if (state !== undefined && state !== "granted") return undefined;
  try {
    return getEnv(name);
  } catch (error) {
    if (missingPermission(error) !== undefined) return undefined;
    throw error;
  }
}

/**
 * Ends the process with `code` at once. Callers flush first: every toolwire writer resolves only after its
 * bytes left the process, so "await the last write, then exit" loses nothing. On Node, a thread of the
 * thread pool that an abandoned handler left opening a FIFO is let go first (`releaseFifoWaits`): Node's exit
 * waits for every pool thread, and would wait for that one forever.
 *
 * @example
 * ```ts
 * import { ExitCode } from "@toolwire/toolwire";
 *
 * exitProcess(ExitCode.SUCCESS);
 * ```
 */
export function exitProcess(code: number): never {
  if (deno) return deno.exit(code);
  releaseFifoWaits();
  return nodeProcess().exit(code);
}

/** The signals the framework turns into exit 128+N (REQ-F-013, REQ-F-069). */
export type HandledSignal = "SIGTERM" | "SIGINT" | "SIGHUP";

/** POSIX numbers of the handled signals, for 128+N exit codes. */
export const SIGNAL_NUMBERS: Readonly<Record<HandledSignal, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * Installs a listener for a signal and returns a function that removes it. While a listener is installed the
 * runtime no longer dies by the signal: the listener decides how the process ends.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const off = onSignal("SIGTERM", () => controller.abort());
 * off();
 * ```
 */
export function onSignal(signal: HandledSignal, listener: () => void): () => void {
  const denoApi = deno;
  const names = listenedSignals(signal, platformName(), denoApi ? "deno" : "node");
  if (denoApi) {
    for (const name of names) denoApi.addSignalListener(name, listener);
    return () => names.forEach((name) => denoApi.removeSignalListener(name, listener));
  }
  const process = nodeProcess();
  for (const name of names) process.on(name, listener);
  return () => names.forEach((name) => process.off(name, listener));
}

/**
 * The signals a listener for `signal` is installed on. On Windows no SIGTERM ever arrives from outside
 * (Node) or can be listened for (Deno, which knows only SIGINT and SIGBREAK there): Ctrl+Break, SIGBREAK,
 * is the request to end a console program can get there, so it stands for SIGTERM. Deno there has no
 * SIGHUP either.
 *
 * @example
 * ```ts
 * listenedSignals("SIGTERM", "win32", "node"); // ["SIGTERM", "SIGBREAK"]
 * ```
 */
export function listenedSignals(
  signal: HandledSignal,
  platform: string,
  runtime: "node" | "deno",
): NodeJS.Signals[] {
  if (platform !== "win32") return [signal];
  if (signal === "SIGTERM") return runtime === "deno" ? ["SIGBREAK"] : ["SIGTERM", "SIGBREAK"];
  return runtime === "deno" && signal === "SIGHUP" ? [] : [signal];
}

/**
 * The operating system, in Node's spelling: `darwin`, `linux`, `win32`, …
 *
 * @example
 * ```ts
 * if (platformName() === "win32") console.error("paths use backslashes");
 * ```
 */
export function platformName(): string {
  if (!deno) return nodeProcess().platform;
  return deno.build.os === "windows" ? "win32" : deno.build.os;
}
