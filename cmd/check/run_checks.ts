/**
 * Runs every criterion of {@linkcode CRITERIA} against a CLI from outside, the way an agent meets it: its
 * manifest, then each command with `--help` and with an invalid flag, then each protocol server in live
 * sessions, then the preparation failures the user said how to cause. Nothing here can change the CLI's
 * state: ordinary commands only ever get `--help` or a flag that must be refused before anything runs, a
 * call naming an `mcp: false` tool carries an argument no command takes, a preparation failure is the
 * user's own trigger, and every probe has a time limit after which its process group is killed.
 */
import { CommandError, ExitCode } from "../../mod.ts";
import {
  allEnv,
  clearLongTimeout,
  COMMAND_FRAMEWORK_FLAGS,
  quoteCommandLine,
  runChild,
  setLongTimeout,
  STDOUT_BYTES,
} from "../../lib/bridge/mod.ts";
import {
  checkFrameworkFlagRefused,
  checkHelp,
  checkOrdinaryInvalidFlag,
  checkProtocolInvalidFlag,
  INVALID_FLAG,
} from "./command_checks.ts";
import { type CriterionResult, Ledger } from "./criteria.ts";
import { checkManifest } from "./manifest_checks.ts";
import { checkPrepareFailure, type PrepareFailureOptions, resolveTriggers } from "./prepare_failure.ts";
import { checkMcpToolList, checkServer } from "./server_checks.ts";
import { isProtocol, show } from "./checked_command.ts";

/** Options of {@linkcode runChecks}. */
export interface CheckOptions {
  /** Milliseconds each probe may take before its process group is killed. */
  probeTimeoutMs: number;
  /**
   * Milliseconds the whole run may take; 0 or absent = no limit. When it is up, running probes are killed
   * and the report is what was settled by then, every other criterion skipped for the time limit.
   */
  timeLimitMs?: number;
  /** Ends the run early (a signal); running probes are killed. */
  signal: AbortSignal;
  /** How to make protocol commands fail while preparing (ac05); without it ac05 is skipped. */
  prepareFailure?: PrepareFailureOptions;
}

/** The outcome of {@linkcode runChecks}: plain data, the `data` of `toolwire check`'s envelope. */
export type CheckReport = {
  /** The CLI checked, as one command line. */
  cli: string;
  /** False when the time limit ended the run before every criterion was settled. */
  complete: boolean;
  /** How many criteria passed, failed, and were skipped. */
  summary: { passed: number; failed: number; skipped: number };
  /** Every criterion, in report order. */
  criteria: CriterionResult[];
};

/** Probes run at once against ordinary commands. */
const CONCURRENCY = 4;
const STDERR_KEPT_BYTES = 64 * 1024;
/**
 * Stdout a probe keeps, but the manifest's (which keeps runChild's default): help, or the envelope that
 * refuses a flag, is far shorter. Every probe's run is kept until the report is written, several run at once,
 * and a CLI that writes without end filled each to its bound — 64 MiB apiece made the checker ~1 GB.
 */
const PROBE_STDOUT_BYTES = 1024 * 1024;

/**
 * Checks a CLI against the criteria and returns the report. Throws a NOT_FOUND {@linkcode CommandError} when
 * the CLI cannot be started at all, and an ARG_ERROR one when a `prepareFailure` trigger names no protocol
 * command of its manifest; everything else — even a CLI without a manifest — is a report.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(300_000);
 * const report = await runChecks(["python3", "tool.py"], { probeTimeoutMs: 10_000, signal });
 * report.summary.failed; // 0 when the CLI conforms
 * ```
 */
export async function runChecks(cli: readonly string[], options: CheckOptions): Promise<CheckReport> {
  const ledger = new Ledger();
  const limitMs = options.timeLimitMs ?? 0;
  const limit = new AbortController();
  const timer = limitMs > 0
    ? setLongTimeout(() => {
      // First, so that what the killed probes seem to show is not taken as an observation.
      ledger.cutShort(
        `skipped: the time limit (${limitMs / 1000} s, --time-limit) ended the check before this was settled`,
      );
      limit.abort(new DOMException("the time limit of the check was reached", "TimeoutError"));
    }, limitMs)
    : undefined;
  const signal = AbortSignal.any([options.signal, limit.signal]);
  try {
    return await checkAll(cli, { ...options, signal }, ledger);
  } catch (error) {
    if (!limit.signal.aborted || options.signal.aborted) throw error;
    return report(cli, ledger);
  } finally {
    clearLongTimeout(timer);
  }
}

/** How one probe runs: stdin left open (`--help` must not read it), more variables, more stdout kept. */
interface ProbeOptions {
  stdin?: "null" | "open";
  env?: Record<string, string>;
  maxStdoutBytes?: number;
}

async function checkAll(cli: readonly string[], options: CheckOptions, ledger: Ledger): Promise<CheckReport> {
  const probe = (
    argv: readonly string[],
    { stdin = "null", env = {}, maxStdoutBytes = PROBE_STDOUT_BYTES }: ProbeOptions = {},
  ) =>
    runChild([...cli, ...argv], {
      timeoutMs: options.probeTimeoutMs,
      signal: options.signal,
      stdin,
      maxStdoutBytes,
      maxStderrBytes: STDERR_KEPT_BYTES,
      ...(Object.keys(env).length === 0 ? {} : { env: { ...allEnv(), ...env } }),
    })
      .then((run) => {
        if (run.ending === "cancelled") throw options.signal.reason;
        return run;
      });

  const manifestRun = await probe(["--format", "json", "manifest"], { maxStdoutBytes: STDOUT_BYTES });
  if (manifestRun.exit.spawnError !== undefined) {
    throw new CommandError(ExitCode.NOT_FOUND, `cannot start '${cli[0]}' (${manifestRun.exit.spawnError})`, {
      suggestion: "name the CLI after --: toolwire check -- <program> [arguments…]",
    });
  }
  const commands = await checkManifest(ledger, manifestRun);
  ledger.settle(
    "manifest-envelope",
    "manifest-schema",
    "ac01-stdout-protocol-fields",
    "ac02-pairing",
    "ac03-forbidden-fields",
    "ac13-idempotency-key",
    "ac16-no-mcp-true",
  );
  if (commands === undefined) {
    return report(cli, ledger, "the CLI printed no manifest, so nothing else could be checked");
  }
  // A trigger naming no protocol command is the user's mistake: said before any session runs.
  const triggers = options.prepareFailure === undefined
    ? []
    : resolveTriggers(commands, options.prepareFailure.triggers);

  const runnable = commands.filter((command) => {
    if (command.entry.arguments !== "passthrough") return true;
    ledger.skip("ac06-help", `${show(command)}: passthrough, its arguments belong to another tool`);
    return false;
  });
  // Probes run a few at a time; their observations are recorded in manifest order, so reports are stable.
  const probed = await mapLimited(runnable, CONCURRENCY, options.signal, async (command) => ({
    help: await probe([...command.words, "--help"], { stdin: "open" }),
    refused: await probe(["--format", "json", ...command.words, INVALID_FLAG]),
  }));
  runnable.forEach((command, index) => {
    const { help, refused } = probed[index]!;
    checkHelp(ledger, command, help);
    if (isProtocol(command)) checkProtocolInvalidFlag(ledger, command, refused);
    else checkOrdinaryInvalidFlag(ledger, command, refused);
  });
  ledger.settle(
    "ac04-invalid-flag",
    "ac06-help",
    "ac13-one-envelope",
    "ac13-ok-exit-code",
    "ac13-declared-exit-codes",
    "ac13-invalid-flag",
  );
  const servers = runnable.filter(isProtocol);
  const withFlags = servers.flatMap((command) =>
    Object.keys(COMMAND_FRAMEWORK_FLAGS).map((flag) => ({ command, flag }))
  );
  const flagged = await mapLimited(withFlags, CONCURRENCY, options.signal, ({ command, flag }) => {
    const value = flag === "dry-run" || flag === "confirm-destructive" ? "" : "=toolwire-check";
    return probe(["--format", "json", ...command.words, `--${flag}${value}`]);
  });
  withFlags.forEach(({ command, flag }, index) =>
    checkFrameworkFlagRefused(ledger, command, flag, flagged[index]!)
  );
  ledger.settle("ac12-framework-flags-refused");
  for (const command of servers) await checkServer(ledger, cli, command, options);
  ledger.settle(
    "ac07-stdout-purity",
    "ac08-malformed-request",
    "ac09-stdin-eof",
    "ac10-sigterm",
    "ac11-idle-not-killed",
  );
  if (servers.length === 0) {
    for (
      const id of [
        "ac04-invalid-flag",
        "ac05-prepare-failure",
        "ac07-stdout-purity",
        "ac08-malformed-request",
        "ac09-stdin-eof",
        "ac10-sigterm",
        "ac11-idle-not-killed",
        "ac12-framework-flags-refused",
      ] as const
    ) {
      ledger.skip(id, "the CLI has no protocol command");
    }
  } else if (triggers.length === 0) {
    ledger.skip(
      "ac05-prepare-failure",
      'not checked: how to make preparation fail is specific to the CLI; say it with --prepare-failure "<command> <arguments>" (and --prepare-failure-env NAME=VALUE)',
    );
  }
  await checkPrepareFailure(
    ledger,
    triggers,
    options.prepareFailure?.env ?? {},
    (argv, env) => probe(argv, { env }),
  );
  ledger.settle("ac05-prepare-failure");
  await checkMcpToolList(ledger, cli, commands, options);
  ledger.settle("ac14-mcp-false-shown", "ac15-mcp-false-refused");
  return report(cli, ledger);
}

function report(cli: readonly string[], ledger: Ledger, missing?: string): CheckReport {
  const criteria = ledger.results().map((result) =>
    missing !== undefined && result.status === "skip" && result.evidence === "nothing to observe"
      ? { ...result, evidence: missing }
      : result
  );
  const count = (status: string) => criteria.filter((result) => result.status === status).length;
  return {
    cli: quoteCommandLine(cli),
    complete: ledger.complete,
    summary: { passed: count("pass"), failed: count("fail"), skipped: count("skip") },
    criteria,
  };
}

/**
 * `work` on every item, at most `limit` at once; the results in the items' order. Once `signal` fires no
 * item is started; the first failure is thrown once every started item has ended, so nothing runs on after.
 */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failed = ended.find((outcome) => outcome.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  if (signal.aborted) throw signal.reason;
  return results;
}
