import { needsConfirmation } from "../run/destructive_preview.ts";
import { getEnv, isTerminal, monotonicMs, optionalEnv, redirectStrayStdout } from "../../runtime/mod.ts";
import { parseArgv, type ParsedArgv } from "./argv_parser.ts";
import { type CliOutput, serialisableEnvelope } from "./cli_output.ts";
import type { CommandDefinition, ProtocolCommandDefinition } from "../contract/command_definition.ts";
import { makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";
import { executeCommand } from "../run/executor.ts";
import { ExitCode } from "../../exit_code.ts";
import { FORMATS, type OutputFormat } from "../contract/command_definition.ts";
import { idempotencyKeyIssue } from "../run/idempotency_store.ts";
import { toolKeys } from "../run/tool_keys.ts";
import type { SharedState } from "../contract/state_store.ts";
import { argumentErrorEnvelope } from "../input/argument_error.ts";
import { completeFlags, completePositionals, type InputIssue, quote } from "../input/input_values.ts";
import { runProtocolCommand } from "./protocol_runner.ts";
import { textStyle } from "./terminal_style.ts";
import type { CommandRegistry, RegisteredCommand } from "../contract/registry.ts";
import { bridgeSignals } from "../run/signal_bridge.ts";
import { limitMs } from "../run/time_limit.ts";
import { FRAMEWORK_VERSION } from "../../version.ts";
import { commandWords } from "../contract/command_words.ts";

/** The tool-level settings dispatch needs. */
export interface DispatchTool {
  name: string;
  version: string;
  description: string;
  registry: CommandRegistry;
  /** Prefix of the tool's environment variables, e.g. `NOTES` for `NOTES_FORMAT`. */
  envPrefix: string;
  /** Default time limit in seconds; 0 = none. */
  timeoutSeconds: number;
  /** Directory of the idempotency store. */
  stateDir(): string;
  /** How long idempotency records are kept, in seconds. @default one day */
  idempotencyLifetimeSeconds?: number;
  /** What its instances share: keyed runs use its store when it has one. */
  sharedState?: SharedState | undefined;
}

/**
 * Runs one command line to its end: parse → validate → execute (docs/contract.md#phases), writing exactly
 * one envelope in JSON mode (or the protocol command's own output). Resolves to the exit code; the caller
 * flushes and exits.
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 * import { CliOutput } from "./cli_output.ts";
 *
 * declare const tool: Tool;
 * const code = await dispatch(tool, ["add", "--title", "x"], new CliOutput());
 * ```
 */
export async function dispatch(
  tool: DispatchTool,
  argv: readonly string[],
  output: CliOutput,
): Promise<number> {
  const startedAt = monotonicMs();
  const parsed = parseArgv(argv, tool.registry.commandLookup());
  const issues = parsed.issues;
  const command = parsed.path === undefined ? undefined : tool.registry.get(parsed.path);
  const format = resolveFormat(tool, parsed, issues, command?.definition.default_format);

  if (parsed.given.get("version") === true) return printVersion(tool, format, output, startedAt);
  if (parsed.given.get("help") === true) return printHelp(tool, parsed, command, output, issues, format);
  if (command === undefined) {
    if (issues.length === 0) issues.push(missingCommand(tool, parsed));
    return argError(tool, issues, format, output, startedAt, "stdout");
  }
  if (parsed.given.get("schema") === true) {
    const entry = tool.registry.entryOf(command.path)!;
    if (format === "plain") await output.line("stdout", JSON.stringify(entry, null, 2));
    else {await output.envelope(
        "stdout",
        makeEnvelope({ exitCode: ExitCode.SUCCESS, data: entry, startedAt }),
      );}
    return ExitCode.SUCCESS;
  }

  // The registered entry's exit codes, which no refiner changes: refining `mcp serve`'s entry looks at every
  // command it serves, work its start need not do.
  const exitCodes = command.entry.exit_codes;
  const definition = command.definition;
  const ownGiven = new Map([...parsed.given].filter(([name]) => Object.hasOwn(definition.flags ?? {}, name)));
  const flags = completeFlags(definition.flags ?? {}, ownGiven, issues, (name) => `--${name}`);
  const args = completePositionals(definition.positionals ?? [], parsed.positionals, issues, "text");
  const timeoutMs = resolveTimeout(tool, parsed, definition, issues);
  const key = parsed.given.get("idempotency-key") as string | undefined;
  const keyIssue = idempotencyKeyIssue(key, "--idempotency-key");
  if (keyIssue !== undefined) issues.push(keyIssue);
  // Checked before anything runs: a target that cannot be written would otherwise fail after the work.
  const file = parsed.given.get("output") as string | undefined;
  const fileIssue = file === undefined
    ? undefined
    : await (await import("./output_file.ts")).outputFileIssue(file);
  if (fileIssue !== undefined) issues.push(fileIssue);
  const protocol = definition.stdout === "protocol";
  if (issues.length > 0) {
    return argError(tool, issues, format, output, startedAt, protocol ? "stderr" : "stdout", command.path);
  }

  const signals = bridgeSignals();
  // Handler code that prints (console.log, process.stdout.write) must not tear the envelope or the protocol.
  const restoreStdout = redirectStrayStdout();
  try {
    if (protocol) {
      return await runProtocolCommand({
        tool: tool.name,
        path: command.path,
        definition: definition as ProtocolCommandDefinition,
        exitCodes,
        input: { flags, args },
        timeoutMs,
        format,
        output,
        signal: signals.signal,
        env: getEnv,
        startedAt,
      });
    }
    let envelope = await executeCommand({
      path: command.path,
      definition: definition as CommandDefinition,
      exitCodes,
      input: { flags, args },
      ...(key === undefined ? {} : {
        idempotencyKey: key,
        store: toolKeys(tool, tool.sharedState?.store),
      }),
      dryRun: parsed.given.get("dry-run") === true,
      unconfirmed: needsConfirmation(definition.danger_level, {
        dryRun: parsed.given.get("dry-run") === true,
        confirmed: parsed.given.get("confirm-destructive") === true,
      }),
      timeoutMs,
      signal: signals.signal,
      env: getEnv,
      log: (message) => void output.line("stderr", message),
      progress: (update) => {
        if (!isTerminal("stderr")) return;
        const of = update.total === undefined ? "" : `/${update.total}`;
        void output.line(
          "stderr",
          `progress: ${update.progress}${of}${update.message ? ` ${update.message}` : ""}`,
        );
      },
    });
    if (file !== undefined && envelope.ok) {
      const { writeOutputFile } = await import("./output_file.ts");
      envelope = await writeOutputFile(file, envelope, startedAt);
    }
    return await printResult(tool, command, envelope, format, output);
  } finally {
    restoreStdout();
    signals.dispose();
  }
}

function resolveFormat(
  tool: DispatchTool,
  parsed: ParsedArgv,
  issues: InputIssue[],
  commandDefault: OutputFormat | undefined,
): OutputFormat {
  const given = parsed.given.get("format") as OutputFormat | undefined;
  if (given !== undefined) return given;
  const variable = `${tool.envPrefix}_FORMAT`;
  // Without environment access (Deno without --allow-env) the variable is as good as unset.
  const fromEnv = optionalEnv(variable);
  if (fromEnv !== undefined && fromEnv !== "") {
    if ((FORMATS as readonly string[]).includes(fromEnv)) return fromEnv as OutputFormat;
    issues.push({
      field: variable,
      message: `${variable} expects one of ${FORMATS.join(", ")}, got ${quote(fromEnv)}`,
    });
  }
  // A command whose output is a file's content (a completion script) declares plain, so `> file` writes the file.
  return commandDefault ?? (isTerminal("stdout") ? "plain" : "json");
}

function resolveTimeout(
  tool: DispatchTool,
  parsed: ParsedArgv,
  definition: { timeout_seconds?: number },
  issues: InputIssue[],
): number {
  const given = parsed.given.get("timeout") as number | undefined;
  if (given !== undefined && given < 0) {
    issues.push({
      field: "--timeout",
      message: `--timeout expects seconds >= 0 (0 = no limit), got ${given}`,
    });
  }
  const seconds = given ?? definition.timeout_seconds ?? tool.timeoutSeconds;
  return limitMs(Math.max(0, seconds));
}

function missingCommand(tool: DispatchTool, parsed: ParsedArgv): InputIssue {
  const group = parsed.words.join(".");
  const children = group === "" ? [] : tool.registry.childrenOf(group);
  if (children.length > 0) {
    const names = children.map((path) => commandWords(path.slice(group.length + 1)));
    return {
      field: parsed.words.join(" "),
      message: `'${parsed.words.join(" ")}' needs a subcommand: ${names.join(", ")}`,
      suggestion: `run '${tool.name} ${parsed.words.join(" ")} --help'`,
    };
  }
  return {
    field: "command",
    message: "no command given",
    suggestion: `run '${tool.name} --help' to list the commands`,
  };
}

async function argError(
  tool: DispatchTool,
  issues: InputIssue[],
  format: OutputFormat,
  output: CliOutput,
  startedAt: number,
  stream: "stdout" | "stderr",
  path?: string,
): Promise<number> {
  const help = path === undefined ? `${tool.name} --help` : `${tool.name} ${commandWords(path)} --help`;
  const envelope = argumentErrorEnvelope(issues, startedAt, `run '${help}'`);
  // A protocol command reports on stderr: plain text, then in JSON mode the envelope as the last line.
  if (format === "plain" || stream === "stderr") {
    const { renderPlainError } = await import("./plain_text.ts");
    await output.line("stderr", renderPlainError(tool.name, envelope, textStyle("stderr", format)));
  }
  if (format === "json") await output.envelope(stream, envelope);
  return ExitCode.ARG_ERROR;
}

async function printVersion(
  tool: DispatchTool,
  format: OutputFormat,
  output: CliOutput,
  startedAt: number,
): Promise<number> {
  if (format === "plain") {
    await output.line("stdout", `${tool.name} ${tool.version} (toolwire ${FRAMEWORK_VERSION})`);
  } else {
    const data = {
      name: tool.name,
      version: tool.version,
      description: tool.description,
      framework_version: FRAMEWORK_VERSION,
    };
    await output.envelope("stdout", makeEnvelope({ exitCode: ExitCode.SUCCESS, data, startedAt }));
  }
  return ExitCode.SUCCESS;
}

async function printHelp(
  tool: DispatchTool,
  parsed: ParsedArgv,
  command: RegisteredCommand | undefined,
  output: CliOutput,
  issues: InputIssue[],
  format: OutputFormat,
): Promise<number> {
  const style = textStyle("stdout", format);
  const { commandHelp, toolHelp } = await import("./help_text.ts");
  if (command !== undefined) {
    await output.line("stdout", commandHelp(tool, command.path, tool.registry.entryOf(command.path)!, style));
    return ExitCode.SUCCESS;
  }
  const group = parsed.words.length > 0 ? parsed.words.join(".") : undefined;
  const paths = group === undefined
    ? tool.registry.all().map((c) => c.path)
    : tool.registry.childrenOf(group);
  if (paths.length === 0) {
    await output.line(
      "stderr",
      `${tool.name}: ${textStyle("stderr", format).error("error:")} ${
        issues[0]?.message ?? "unknown command"
      }`,
    );
    return ExitCode.ARG_ERROR;
  }
  await output.line(
    "stdout",
    toolHelp(tool, paths.map((path) => [path, tool.registry.entryOf(path)!] as const), group, style),
  );
  return ExitCode.SUCCESS;
}

async function printResult(
  tool: DispatchTool,
  command: RegisteredCommand,
  envelope: ResponseEnvelope,
  format: OutputFormat,
  output: CliOutput,
): Promise<number> {
  if (format === "json") return await output.envelope("stdout", envelope);
  envelope = serialisableEnvelope(envelope);
  const { renderPlainData, renderPlainError } = await import("./plain_text.ts");
  const errStyle = textStyle("stderr", format);
  for (const warning of envelope.warnings) {
    void output.line("stderr", `${errStyle.warning("warning:")} ${warning.message}`);
  }
  // A failure that carries data (a report of what failed) shows it as a success would, then the error.
  if (envelope.ok || envelope.data !== null) {
    const plain = (command.definition as CommandDefinition).plain;
    const text = plain === undefined
      ? renderPlainData(envelope.data, textStyle("stdout", format))
      : plain(envelope.data);
    if (text !== "") await output.line("stdout", text);
  }
  if (!envelope.ok) await output.line("stderr", renderPlainError(tool.name, envelope, errStyle));
  return envelope.meta.exit_code;
}
