import { monotonicMs } from "../runtime/mod.ts";
import { Cancellation } from "../command/run/cancellation.ts";
import { lastLine, runChild, STDOUT_BYTES, textTail } from "./child_run.ts";
import { makeEnvelope, type ResponseEnvelope } from "../command/contract/envelope.ts";
import { readEnvelope } from "../command/contract/envelope_validation.ts";
import { cancelledError, timeoutError } from "../command/run/framework_errors.ts";
import { previewDestructive } from "../command/run/destructive_preview.ts";
import { ExitCode } from "../exit_code.ts";
import type { Manifest } from "../command/contract/manifest.ts";
import { callArgv } from "./call_argv.ts";
import { argumentErrorEnvelope } from "../command/input/argument_error.ts";
import type { InputIssue } from "../command/input/input_values.ts";
import { hasLoneSurrogate } from "../json.ts";
import {
  ManifestCatalog,
  type ManifestCatalogOptions,
  type ValidatedCall,
} from "../command/mcp/manifest_catalog.ts";
import { argumentName, type ServeFilter } from "../command/mcp/tool_mapping.ts";
import { commandWords } from "../command/contract/command_words.ts";
import { callEnvironment } from "./exec_environment.ts";

/** The CLI an exec catalog runs, and how. */
export interface ExecTarget {
  /** The program and its leading arguments, as split from `--exec`. */
  argv: readonly string[];
  /** Working directory of every call. @default the server's */
  cwd?: string;
  /** Milliseconds a call may run before its process group is stopped with TIMEOUT; 0 = no limit. */
  callTimeoutMs: number;
  /** The whole environment of the CLI, for every call and its manifest. @default the server's */
  env?: Record<string, string>;
  /** Most stdout bytes of a call kept: the last ones, so a final envelope line survives. @default {@linkcode STDOUT_BYTES} */
  maxOutputBytes?: number;
}

/**
 * The commands of another program's manifest as MCP tools (`toolwire mcp serve --exec`): the same tool list,
 * argument checks and confirmation as a tool's own `mcp serve`, with each call run as a child process
 * `<cli> --format json <words> <flags…> -- <positionals…>` (see {@linkcode callArgv}) — no shell, empty stdin,
 * its own process group, stopped on the call's time limit (TIMEOUT), on cancellation, once the CLI has
 * exited (for anything it left behind), and when the server exits. The last stdout line, when it is a valid
 * envelope, is the result; anything else is a GENERAL_ERROR envelope with the exit code and the tails of
 * stdout and stderr, and says when stdout passed `maxOutputBytes`. Each stderr line (a very long one cut,
 * saying so) is passed to the client as a log message. The bridge does not rely on the CLI to guard a
 * destructive command: an unconfirmed call runs it with `--dry-run` only, and answers CONFIRMATION_REQUIRED
 * with that preview. `options` are a fleet's: the confirmations it shares, and the store a destructive call
 * waits on.
 *
 * @example
 * ```ts
 * import type { Manifest } from "@toolwire/toolwire";
 * import { serveMcp } from "@toolwire/toolwire/mcp";
 * import { processChannel } from "@toolwire/toolwire/framing";
 *
 * declare const manifest: Manifest; // what `python3 tool.py --format json manifest` printed
 * const catalog = execCatalog({ argv: ["python3", "tool.py"], callTimeoutMs: 60_000 }, manifest, { readOnly: false });
 * await serveMcp({ channel: processChannel() }, { serverInfo: { name: "tool", version: "1.0.0" }, catalog });
 * ```
 */
export function execCatalog(
  target: ExecTarget,
  manifest: Pick<Manifest, "commands">,
  filter: ServeFilter,
  options: Pick<ManifestCatalogOptions, "confirmations" | "checkStore"> = {},
): ManifestCatalog {
  return new ManifestCatalog(manifest.commands, filter, (call) => execute(target, call), options);
}

/** Spawn errors that say the server is out of a resource for now, not that the program is missing. */
const RESOURCE_ERRORS = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);

async function execute(target: ExecTarget, call: ValidatedCall): Promise<ResponseEnvelope> {
  const startedAt = monotonicMs();
  if (call.unconfirmed) {
    // The preview is a dry run and nothing else: never with a confirmation, whatever the call carried.
    return (await previewDestructive(
      call.path,
      () => execute(target, { ...call, dryRun: true, confirmed: false, unconfirmed: false }),
      {
        startedAt,
      },
    )).envelope;
  }
  // A command line carries bytes without NUL: refuse such an argument rather than fail to spawn, or run
  // the CLI with another value than the one sent.
  const unpassable = unpassableArgument(call);
  if (unpassable !== undefined) return argumentErrorEnvelope([unpassable], startedAt);
  const maxOutputBytes = target.maxOutputBytes ?? STDOUT_BYTES;
  const env = callEnvironment(target.env, call.context.caller);
  const run = await runChild(callArgv(target.argv, call), {
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    ...(env === undefined ? {} : { env }),
    maxStdoutBytes: maxOutputBytes,
    timeoutMs: target.callTimeoutMs,
    signal: call.context.signal,
    onStderrLine: (line) => call.context.log("info", line),
  });
  const words = commandWords(call.path);
  if (run.ending === "timeout") {
    const message = `${words} took longer than ${
      target.callTimeoutMs / 1000
    } s; its process group was stopped`;
    const suggestion = "narrow the request, or restart the server with a longer --call-timeout";
    return makeEnvelope({
      exitCode: ExitCode.TIMEOUT,
      error: timeoutError(call.entry.exit_codes, message, suggestion),
      startedAt,
    });
  }
  if (run.ending === "cancelled") {
    const cancellation = Cancellation.of(call.context.cancellation.reason);
    return makeEnvelope({ exitCode: cancellation.exitCode, error: cancelledError(cancellation), startedAt });
  }
  const read = readEnvelope(lastLine(run.stdout));
  if ("envelope" in read) return read.envelope;
  const started = run.exit.spawnError === undefined;
  // Out of descriptors, processes or memory: nothing ran, and a retry may well succeed.
  const exhausted = !started && RESOURCE_ERRORS.has(run.exit.spawnError!);
  const dropped = run.stdoutDropped === 0
    ? ""
    : `; its stdout passed the --max-output-bytes limit of ${maxOutputBytes} bytes; its first ${run.stdoutDropped} bytes were dropped`;
  return makeEnvelope({
    exitCode: ExitCode.GENERAL_ERROR,
    error: {
      code: "GENERAL_ERROR",
      message: started
        ? `${words} exited ${run.exit.code} without an envelope on its last stdout line (${
          read.problems.join("; ")
        })${dropped}`
        : exhausted
        ? `${words}: the server could not start '${
          target.argv[0]
        }' right now (${run.exit.spawnError}: it has no file descriptors, processes or memory to spare); nothing ran`
        : `${words}: the program '${target.argv[0]}' could not be started (${run.exit.spawnError})`,
      retryable: exhausted,
      phase: "execution",
      exit_code: run.exit.code,
      ...(run.exit.signal === null ? {} : { signal: run.exit.signal }),
      stdout_tail: textTail(run.stdout),
      stderr_tail: run.stderrTail,
    },
    startedAt,
  });
}

/**
 * The first argument a command line cannot carry as it is: one with a NUL character (it would end the
 * word), or with a lone surrogate — a JavaScript string can hold one, UTF-8 cannot, so the CLI would get
 * U+FFFD instead: another value, and another idempotency key (`"\ud800"` and `"\ufffd"` would share one).
 */
function unpassableArgument(call: ValidatedCall): InputIssue | undefined {
  const problem = (value: unknown): string | undefined => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== "string") continue;
      if (item.includes("\0")) return "contains a NUL character, which a command line cannot carry";
      if (hasLoneSurrogate(item)) {
        return "contains a lone surrogate (half of a UTF-16 pair), which a command line cannot carry: send well-formed Unicode text";
      }
    }
    return undefined;
  };
  const issue = (field: string, value: unknown) => {
    const found = problem(value);
    return found === undefined ? undefined : { field, message: `${field} ${found}` };
  };
  for (const [flag, value] of call.given) {
    const found = issue(argumentName(flag), value);
    if (found !== undefined) return found;
  }
  for (const [name, value] of Object.entries(call.args)) {
    const found = issue(name, value);
    if (found !== undefined) return found;
  }
  return issue("idempotency_key", call.idempotencyKey);
}
