import { processChannel } from "../../runtime/mod.ts";
import { Cancellation } from "../run/cancellation.ts";
import type { CliOutput } from "./cli_output.ts";
import type {
  CommandContext,
  ProtocolCommandDefinition,
  ProtocolFailure,
  ProtocolIO,
  ProtocolLoop,
} from "../contract/command_definition.ts";
import { runWithDeadline } from "../run/deadline.ts";
import { HandlerContext } from "../run/handler_context.ts";
import { clearLongTimeout } from "../run/time_limit.ts";
import { type ErrorDetail, makeEnvelope, type Warning } from "../contract/envelope.ts";
import { cancelledError, timeoutError } from "../run/framework_errors.ts";
import { ExitCode, type ExitCodeTable } from "../../exit_code.ts";
import type { OutputFormat } from "../contract/command_definition.ts";
import type { CommandInput } from "../input/input_values.ts";
import { textStyle } from "./terminal_style.ts";
import { failureExitCode, failureOf } from "../run/thrown_error.ts";
import { commandWords } from "../contract/command_words.ts";

/** How long a serving loop gets to wind down after a signal before the process ends without it. */
const SHUTDOWN_GRACE_MS = 1_000;

/** Everything the runner needs for one protocol command invocation. */
export interface ProtocolRun {
  tool: string;
  path: string;
  definition: ProtocolCommandDefinition;
  exitCodes: ExitCodeTable;
  input: CommandInput;
  /** Phase 1's time limit; 0 = none. Serving itself is never timed out (REQ-C-032). */
  timeoutMs: number;
  format: OutputFormat;
  output: CliOutput;
  /** Aborted by SIGTERM/SIGINT/SIGHUP with a {@linkcode Cancellation} reason. */
  signal: AbortSignal;
  env(name: string): string | undefined;
  startedAt: number;
}

/**
 * Runs a protocol server command in its two phases (REQ-C-032). Phase 1: the handler prepares under the
 * time limit; nothing touches stdout; a failure is plain text on stderr and, in JSON mode, one envelope as
 * the last stderr line, with a code from the declared table. Phase 2: the loop owns stdin/stdout; EOF or the protocol's own shutdown is exit 0 with no envelope; a
 * signal is 128+N with the envelope last on stderr; a fatal error after serving began is never 2. The caller
 * reroutes stray stdout writes to stderr for both phases.
 * Resolves to the exit code; the caller flushes and exits.
 *
 * @example
 * ```ts
 * declare const run: ProtocolRun;
 * const code = await runProtocolCommand(run);
 * ```
 */
export async function runProtocolCommand(run: ProtocolRun): Promise<number> {
  const log = (message: string) => void run.output.line("stderr", message);
  const prepared = await runWithDeadline(
    (scope) => {
      const context: CommandContext = new HandlerContext({
        input: run.input,
        dryRun: false,
        env: run.env,
        log,
        warn: (warning: Warning) => log(`warning: ${warning.message}`),
        progress: () => {},
        meta: {},
        scope,
      });
      return run.definition.serve(context);
    },
    run.timeoutMs,
    run.signal,
  );

  switch (prepared.kind) {
    case "timeout": {
      const message = `${commandWords(run.path)} took longer than ${
        run.timeoutMs / 1000
      } s to start serving; the server did not start`;
      return fail(run, ExitCode.TIMEOUT, timeoutError(run.exitCodes, message));
    }
    case "cancelled":
      return fail(run, prepared.cancellation.exitCode, cancelledError(prepared.cancellation));
    case "error":
      return failFromError(run, prepared.error, false);
    case "data":
      return await serve(run, prepared.data, log);
  }
}

async function serve(run: ProtocolRun, loop: ProtocolLoop, log: (message: string) => void): Promise<number> {
  if (typeof loop !== "function") {
    return failFromError(
      run,
      new Error(`${run.path}: serve() must return the protocol loop function`),
      false,
    );
  }
  const stop = new AbortController();
  let signalled: Cancellation | undefined;
  const onSignal = () => {
    signalled = run.signal.reason instanceof Cancellation ? run.signal.reason : new Cancellation("SIGTERM");
    stop.abort(signalled);
  };
  run.signal.addEventListener("abort", onSignal, { once: true });
  const io: ProtocolIO = { channel: processChannel(), signal: stop.signal, log };
  const session = loop(io).then((end) => ({ end }), (error: unknown) => ({ error }));
  const interrupted = new Promise<void>((resolve) =>
    stop.signal.addEventListener("abort", () => resolve(), { once: true })
  );
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const grace = interrupted.then(() =>
    new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))
  );
  try {
    const result = await Promise.race([session, grace.then(() => undefined)]);
    if (signalled !== undefined) return fail(run, signalled.exitCode, cancelledError(signalled));
    if (result === undefined) return ExitCode.SUCCESS;
    if ("error" in result) return failFromError(run, result.error, true);
    if (result.end === undefined) return ExitCode.SUCCESS;
    return failAfterServing(run, result.end);
  } finally {
    clearLongTimeout(graceTimer);
    run.signal.removeEventListener("abort", onSignal);
  }
}

function failAfterServing(run: ProtocolRun, end: ProtocolFailure): Promise<number> {
  const warnings: Warning[] = [];
  // Requests may already have changed state once serving began, so 2 (nothing done) is never right then.
  const code = failureExitCode(
    end.exitCode,
    { path: run.path, exitCodes: run.exitCodes, mayHaveActed: true },
    warnings,
  );
  return fail(run, code, { code: end.code, message: end.message, retryable: false, phase: "execution" }, {
    warnings,
  });
}

function failFromError(run: ProtocolRun, error: unknown, serving: boolean): Promise<number> {
  const failure = failureOf(error, {
    path: run.path,
    exitCodes: run.exitCodes,
    unexpected: serving ? "the server failed" : "preparing to serve failed",
    mayHaveActed: serving,
  });
  if (failure.stack !== undefined) void run.output.line("stderr", failure.stack);
  return fail(run, failure.exitCode, failure.error, failure);
}

/** Writes the failure: plain text on stderr (warnings first), then in JSON mode the envelope as the last stderr line. */
async function fail(
  run: ProtocolRun,
  exitCode: number,
  error: ErrorDetail,
  extra: { data?: unknown; warnings?: Warning[] } = {},
): Promise<number> {
  const envelope = makeEnvelope({
    exitCode,
    error,
    data: extra.data,
    warnings: extra.warnings,
    startedAt: run.startedAt,
  });
  const style = textStyle("stderr", run.format);
  for (const warning of envelope.warnings) {
    await run.output.line("stderr", `${style.warning("warning:")} ${warning.message}`);
  }
  const { renderPlainError } = await import("./plain_text.ts");
  await run.output.line("stderr", renderPlainError(run.tool, envelope, style));
  if (run.format === "json") return await run.output.envelope("stderr", envelope);
  return exitCode;
}
