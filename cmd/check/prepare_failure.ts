/**
 * REQ-C-032's preparation failure, observed when the user says how to cause one: `--prepare-failure` names a
 * protocol command and the arguments that make its preparation fail (`lsp --config missing.toml`), and
 * `--prepare-failure-env NAME=VALUE` sets variables for those runs (a home directory holding a corrupt
 * file, say). Each trigger is run twice with stdin at EOF — with `--format json` and with `--format plain` — and
 * neither run may write to stdout.
 */
import { CommandError, ExitCode } from "../../mod.ts";
import {
  type ChildRun,
  lastLine,
  quoteCommandLine,
  readEnvelope,
  splitCommandLine,
} from "../../lib/bridge/mod.ts";
import type { Ledger } from "./criteria.ts";
import { clip, nonEmptyLines, outcome } from "./evidence.ts";
import { type CheckedCommand, declaresExit, isProtocol, show } from "./checked_command.ts";

/** How to make preparation fail, as the user gave it. */
export interface PrepareFailureOptions {
  /** Each trigger: a protocol command's words, then the arguments that make its preparation fail. */
  triggers: string[][];
  /** Variables set, on top of the checker's own environment, for every trigger's runs. */
  env: Record<string, string>;
}

/** One trigger tied to the protocol command it runs. */
export interface PrepareTrigger {
  command: CheckedCommand;
  /** Everything after the CLI: the command's words and the trigger's arguments. */
  argv: string[];
}

/** Runs the CLI with `argv` after its own words and `env` added to the environment, stdin at EOF. */
export type EnvProbe = (argv: readonly string[], env: Record<string, string>) => Promise<ChildRun>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads `--prepare-failure` and `--prepare-failure-env`; an ARG_ERROR {@linkcode CommandError} for a value
 * that cannot be split, a variable that is not `NAME=VALUE` or is given twice, or variables without a
 * trigger.
 *
 * @example
 * ```ts
 * parsePrepareFailure(["lsp --config missing.toml"], ["NOTES_HOME=/tmp/x"]);
 * // { triggers: [["lsp", "--config", "missing.toml"]], env: { NOTES_HOME: "/tmp/x" } }
 * ```
 */
export function parsePrepareFailure(
  values: readonly string[],
  envValues: readonly string[],
): PrepareFailureOptions {
  if (values.length === 0 && envValues.length > 0) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      "--prepare-failure-env needs --prepare-failure: name the protocol command it is for",
      {
        suggestion: `toolwire check --prepare-failure lsp --prepare-failure-env ${envValues[0]} -- <cli …>`,
      },
    );
  }
  const env = new Map<string, string>();
  for (const value of envValues) {
    const equals = value.indexOf("=");
    const name = equals === -1 ? value : value.slice(0, equals);
    if (equals === -1 || !ENV_NAME.test(name)) {
      throw new CommandError(ExitCode.ARG_ERROR, `--prepare-failure-env expects NAME=VALUE, got '${value}'`, {
        suggestion:
          "name a variable with letters, digits and underscores: --prepare-failure-env APP_CONFIG=missing.toml",
      });
    }
    if (env.has(name)) throw new CommandError(ExitCode.ARG_ERROR, `--prepare-failure-env sets ${name} twice`);
    env.set(name, value.slice(equals + 1));
  }
  return { triggers: values.map(triggerArgv), env: Object.fromEntries(env) };
}

function triggerArgv(value: string): string[] {
  const split = splitCommandLine(value);
  if ("argv" in split && split.argv.length > 0) return split.argv;
  throw new CommandError(
    ExitCode.ARG_ERROR,
    `--prepare-failure: ${"error" in split ? split.error : "it is empty"}`,
    {
      suggestion:
        "give the protocol command's words, then its arguments, quoted as a shell would: --prepare-failure \"lsp --config 'my config.toml'\"",
    },
  );
}

/**
 * Ties each trigger to the protocol command whose words begin it (the longest such command); an ARG_ERROR
 * {@linkcode CommandError} naming the CLI's protocol commands when a trigger begins with none.
 *
 * @example
 * ```ts
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const commands: CheckedCommand[]; // from checkManifest
 * resolveTriggers(commands, [["lsp", "--config", "missing.toml"]])[0]?.command.path; // "lsp"
 * ```
 */
export function resolveTriggers(
  commands: readonly CheckedCommand[],
  triggers: readonly string[][],
): PrepareTrigger[] {
  const servers = commands.filter(isProtocol).sort((a, b) => b.words.length - a.words.length);
  return triggers.map((argv) => {
    const command = servers.find((server) => server.words.every((word, index) => argv[index] === word));
    if (command === undefined) {
      const names = servers.map(show).sort();
      throw new CommandError(
        ExitCode.ARG_ERROR,
        `--prepare-failure '${quoteCommandLine(argv)}' does not begin with a protocol command of the CLI; ${
          names.length === 0 ? "it has none" : `its protocol commands: ${names.join(", ")}`
        }`,
        {
          suggestion:
            'begin the value with the command\'s words: --prepare-failure "lsp --config missing.toml"',
        },
      );
    }
    return { command, argv: [...argv] };
  });
}

/**
 * Runs each trigger in JSON mode and in plain mode, and records what ac05 asks: a non-zero, declared exit
 * code (2 only with error.code ARG_ERROR: a refused flag), nothing on stdout, something on stderr — in JSON
 * mode exactly one envelope, its last line, with ok false and the exit code; in plain mode no envelope.
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { allEnv } from "../../lib/runtime/environment.ts";
 * import { Ledger } from "./criteria.ts";
 *
 * declare const triggers: PrepareTrigger[]; // from resolveTriggers
 * const ledger = new Ledger();
 * await checkPrepareFailure(ledger, triggers, {}, (argv, env) =>
 *   runChild(["notes", ...argv], { timeoutMs: 10_000, env: { ...allEnv(), ...env } }));
 * ```
 */
export async function checkPrepareFailure(
  ledger: Ledger,
  triggers: readonly PrepareTrigger[],
  env: Record<string, string>,
  probe: EnvProbe,
): Promise<void> {
  for (const trigger of triggers) {
    const label = quoteCommandLine(trigger.argv);
    const json = await probe(["--format", "json", ...trigger.argv], env);
    // A run that did not fail at all says everything: a plain run would only repeat it.
    const failed = json.ending === "exited" && json.exit.code !== ExitCode.SUCCESS;
    const plain = failed ? await probe(["--format", "plain", ...trigger.argv], env) : undefined;
    const problems = [
      ...jsonProblems(trigger.command, json),
      ...(plain === undefined ? [] : plainProblems(json, plain)),
    ];
    const code = json.exit.code;
    const read = readEnvelope(lastLine(json.stderrTail));
    const errorCode = "envelope" in read ? read.envelope.error?.code : undefined;
    ledger.record(
      "ac05-prepare-failure",
      problems.length === 0,
      `${label}: ${
        problems.length > 0
          ? problems.join("; ")
          : `exit ${code} (declared), stdout empty, the ${
            String(errorCode)
          } envelope last on stderr; in plain mode the same exit and ${
            JSON.stringify(clip(nonEmptyLines(plain?.stderrTail ?? "")[0] ?? ""))
          } on stderr`
      }`,
    );
  }
}

function jsonProblems(command: CheckedCommand, run: ChildRun): string[] {
  if (run.ending !== "exited") {
    return [`${outcome(run)} with stdin at EOF: did preparation fail, or did it serve and hang?`];
  }
  const code = run.exit.code;
  if (code === ExitCode.SUCCESS) {
    return ["exit 0: preparation did not fail (the server started, and ended at stdin EOF)"];
  }
  const read = readEnvelope(lastLine(run.stderrTail));
  const envelope = "envelope" in read ? read.envelope : undefined;
  const envelopes = nonEmptyLines(run.stderrTail).filter((line) => "envelope" in readEnvelope(line)).length;
  return [
    ...(declaresExit(command, code) ? [] : [`exit ${code} is not declared by ${show(command)}`]),
    ...(code === ExitCode.ARG_ERROR && envelope !== undefined && envelope.error?.code !== "ARG_ERROR"
      ? [`exit 2 is for a refused flag, but error.code is ${String(envelope.error?.code)}`]
      : []),
    ...stdoutProblems(run, "--format json"),
    ...(run.stderrTail.trim() === "" ? ["stderr is empty"] : []),
    ...(envelope === undefined
      ? [`the last stderr line is not an envelope (${"problems" in read ? read.problems.join(", ") : ""})`]
      : []),
    ...(envelope !== undefined && envelope.ok !== false ? ["the envelope has ok: true"] : []),
    ...(envelope !== undefined && envelope.meta.exit_code !== code
      ? [`the envelope's meta.exit_code is ${envelope.meta.exit_code}, the exit ${code}`]
      : []),
    ...(envelopes > 1 ? [`${envelopes} envelopes on stderr, expected one`] : []),
  ];
}

function plainProblems(json: ChildRun, plain: ChildRun): string[] {
  if (plain.ending !== "exited") return [`--format plain: ${outcome(plain)}`];
  return [
    ...(plain.exit.code === json.exit.code
      ? []
      : [`--format plain: exit ${plain.exit.code}, with --format json ${json.exit.code}`]),
    ...stdoutProblems(plain, "--format plain"),
    ...(plain.stderrTail.trim() === "" ? ["--format plain: stderr is empty"] : []),
    ...(nonEmptyLines(plain.stderrTail).some((line) => "envelope" in readEnvelope(line))
      ? ["--format plain: an envelope on stderr"]
      : []),
  ];
}

function stdoutProblems(run: ChildRun, mode: string): string[] {
  if (run.stdout === "" && run.stdoutDropped === 0) return [];
  return [
    `${mode}: ${run.stdout.length + run.stdoutDropped} bytes on stdout: ${clip(JSON.stringify(run.stdout))}`,
  ];
}
