/**
 * Runs every criterion of {@linkcode CRITERIA} against a CLI from outside, the way an agent meets it: its
 * manifest, then each command with `--help` and with an invalid flag, then each protocol server in a live
 * session. Nothing here can change the CLI's state: ordinary commands only ever get `--help` or a flag
 * that must be refused before anything runs, a call naming an `mcp: false` tool carries an argument no
 * command takes, and every probe has a time limit after which its process group is killed.
 */
import { type ChildRun, lastLine, runChild } from "../../lib/command/child_run.ts";
import { CommandError } from "../../lib/command/command_error.ts";
import { quoteCommandLine } from "../../lib/command/command_line.ts";
import { readEnvelope, validateEnvelope } from "../../lib/command/envelope_validation.ts";
import { ExitCode } from "../../lib/command/exit_code.ts";
import { COMMAND_FRAMEWORK_FLAGS } from "../../lib/command/framework_flags.ts";
import { validateManifest } from "../../lib/command/manifest_validation.ts";
import { PROTOCOL_FORBIDDEN } from "../../lib/command/registration_rules.ts";
import { type CriterionResult, Ledger } from "./criteria.ts";
import { McpProbe } from "./mcp_probe.ts";
import { ServerSession } from "./server_session.ts";

/** Options of {@linkcode runChecks}. */
export interface CheckOptions {
  /** Milliseconds each probe may take before its process group is killed. */
  probeTimeoutMs: number;
  /** Ends the run early (a signal); running probes are killed. */
  signal: AbortSignal;
}

/** The outcome of {@linkcode runChecks}: plain data, the `data` of `toolwire check`'s envelope. */
export type CheckReport = {
  /** The CLI checked, as one command line. */
  cli: string;
  /** How many criteria passed, failed, and were skipped. */
  summary: { passed: number; failed: number; skipped: number };
  /** Every criterion, in report order. */
  criteria: CriterionResult[];
};

type Entry = Record<string, unknown>;

interface Command {
  path: string;
  words: string[];
  entry: Entry;
}

/** An argument no command takes: the flag every refusal probe passes. */
const INVALID_FLAG = "--definitely-not-a-flag";
/** How long an idle server is watched with `--timeout 1` before it must still be serving. */
const IDLE_TIMEOUT_SECONDS = 1;
const IDLE_WATCH_MS = 2_500;
/** Probes run at once against ordinary commands. */
const CONCURRENCY = 4;
const STDERR_KEPT_BYTES = 64 * 1024;

/**
 * Checks a CLI against the criteria and returns the report. Throws a NOT_FOUND {@linkcode CommandError} when
 * the CLI cannot be started at all; everything else — even a CLI without a manifest — is a report.
 *
 * @example
 * ```ts
 * const report = await runChecks(["python3", "tool.py"], { probeTimeoutMs: 10_000, signal });
 * report.summary.failed; // 0 when the CLI conforms
 * ```
 */
export async function runChecks(cli: readonly string[], options: CheckOptions): Promise<CheckReport> {
  const ledger = new Ledger();
  const probe = (argv: readonly string[], stdin: "null" | "open" = "null") =>
    runChild([...cli, ...argv], { timeoutMs: options.probeTimeoutMs, signal: options.signal, stdin, maxStderrBytes: STDERR_KEPT_BYTES })
      .then((run) => {
        if (run.ending === "cancelled") throw options.signal.reason;
        return run;
      });

  const manifestRun = await probe(["--format", "json", "manifest"]);
  if (manifestRun.exit.spawnError !== undefined) {
    throw new CommandError(ExitCode.NOT_FOUND, `cannot start '${cli[0]}' (${manifestRun.exit.spawnError})`, {
      suggestion: "name the CLI after --: toolwire check -- <program> [arguments…]",
    });
  }
  const commands = checkManifest(ledger, manifestRun);
  if (commands === undefined) return report(cli, ledger, "the CLI printed no manifest, so nothing else could be checked");

  const runnable = commands.filter((command) => {
    if (command.entry.arguments !== "passthrough") return true;
    ledger.skip("ac06-help", `${show(command)}: passthrough, its arguments belong to another tool`);
    return false;
  });
  // Probes run a few at a time; their observations are recorded in manifest order, so reports are stable.
  const probed = await mapLimited(runnable, CONCURRENCY, async (command) => ({
    help: await probe([...command.words, "--help"], "open"),
    refused: await probe(["--format", "json", ...command.words, INVALID_FLAG]),
  }));
  runnable.forEach((command, index) => {
    const { help, refused } = probed[index]!;
    checkHelp(ledger, command, help);
    if (isProtocol(command)) checkProtocolInvalidFlag(ledger, command, refused);
    else checkOrdinaryInvalidFlag(ledger, command, refused);
  });
  const servers = runnable.filter(isProtocol);
  const withFlags = servers.flatMap((command) => Object.keys(COMMAND_FRAMEWORK_FLAGS).map((flag) => ({ command, flag })));
  const flagged = await mapLimited(withFlags, CONCURRENCY, ({ command, flag }) => {
    const value = flag === "dry-run" || flag === "confirm-destructive" ? "" : "=toolwire-check";
    return probe(["--format", "json", ...command.words, `--${flag}${value}`]);
  });
  withFlags.forEach(({ command, flag }, index) => {
    const run = flagged[index]!;
    const ok = run.ending === "exited" && run.exit.code === ExitCode.ARG_ERROR && run.stdout === "";
    ledger.record("ac12-framework-flags-refused", ok, `${show(command)} --${flag}: ${outcome(run)}${run.stdout === "" ? "" : ", stdout not empty"}`);
  });
  for (const command of servers) await checkServer(ledger, cli, command, options);
  if (servers.length === 0) {
    for (const id of ["ac04-invalid-flag", "ac07-stdout-purity", "ac08-malformed-request", "ac09-stdin-eof", "ac10-sigterm", "ac11-idle-not-killed", "ac12-framework-flags-refused"] as const) {
      ledger.skip(id, "the CLI has no protocol command");
    }
  }
  ledger.skip("ac05-prepare-failure", "making a server fail while it prepares needs a trigger specific to the CLI; not observable from outside");
  await checkMcpToolList(ledger, cli, commands, options);
  return report(cli, ledger);
}

function report(cli: readonly string[], ledger: Ledger, missing?: string): CheckReport {
  const criteria = ledger.results().map((result) =>
    missing !== undefined && result.status === "skip" && result.evidence === "nothing to observe" ? { ...result, evidence: missing } : result
  );
  const count = (status: string) => criteria.filter((result) => result.status === status).length;
  return { cli: quoteCommandLine(cli), summary: { passed: count("pass"), failed: count("fail"), skipped: count("skip") }, criteria };
}

// ---- the manifest ----

function checkManifest(ledger: Ledger, run: ChildRun): Command[] | undefined {
  const lines = nonEmptyLines(run.stdout);
  const read = readEnvelope(lastLine(run.stdout));
  const envelope = "envelope" in read ? read.envelope : undefined;
  const problems = [
    ...(run.ending === "timeout" ? ["did not exit in time"] : []),
    ...(run.exit.code === 0 ? [] : [`exited ${run.exit.code}`]),
    ...(lines.length === 1 ? [] : [`${lines.length} lines on stdout`]),
    ...("problems" in read ? [`last stdout line is not an envelope: ${read.problems.join(", ")}`] : []),
    ...(envelope !== undefined && !envelope.ok ? [`ok is false: ${envelope.error?.code}: ${envelope.error?.message}`] : []),
  ];
  ledger.record("manifest-envelope", problems.length === 0, problems.length === 0 ? "manifest: one envelope line, exit 0" : `manifest: ${problems.join("; ")}${stderrHint(run)}`);
  const data = envelope?.ok ? envelope.data : undefined;
  if (!isRecord(data) || !isRecord(data.commands)) return undefined;

  const commands = Object.entries(data.commands)
    .filter((pair): pair is [string, Entry] => isRecord(pair[1]))
    .map(([path, entry]) => ({ path, words: path.split("."), entry }));
  observeOrdinaryRun(ledger, commands.find((command) => command.path === "manifest"), "manifest", run);

  const issues = validateManifest(data);
  if (issues.length === 0) ledger.pass("manifest-schema", `${commands.length} commands, no issues`);
  for (const issue of issues) ledger.fail("manifest-schema", issue.message);
  const byCommand = (path: string) => issues.filter((issue) => issue.command === path);
  const forbidden = new Set(PROTOCOL_FORBIDDEN.map(([field]) => field));
  for (const command of commands) {
    const own = byCommand(command.path);
    const pairing = own.filter((issue) => issue.field === "stdout" || issue.field === "protocol");
    for (const issue of pairing) {
      ledger.fail("ac01-stdout-protocol-fields", issue.message);
      ledger.fail("ac02-pairing", issue.message);
    }
    if (pairing.length === 0 && isProtocol(command)) {
      ledger.pass("ac01-stdout-protocol-fields", `${show(command)}: stdout protocol, protocol ${String(command.entry.protocol)}`);
    }
    if (isProtocol(command)) {
      const combined = own.filter((issue) => forbidden.has(issue.field) || issue.field === "requires_confirmation");
      for (const issue of combined) ledger.fail("ac03-forbidden-fields", issue.message);
      if (combined.length === 0) ledger.pass("ac03-forbidden-fields", `${show(command)}: no field that does not combine`);
      for (const issue of own.filter((issue) => issue.field.startsWith("flags.") && issue.message.includes("protocol command"))) {
        ledger.fail("ac12-framework-flags-refused", `manifest: ${issue.message}`);
      }
    }
    checkIdempotencyFlag(ledger, command);
    if (command.entry.mcp === true) ledger.fail("ac16-no-mcp-true", `${show(command)}: mcp: true`);
  }
  if (!commands.some(isProtocol)) ledger.pass("ac01-stdout-protocol-fields", "no command declares stdout or protocol");
  if (!issues.some((issue) => issue.field === "stdout" || issue.field === "protocol")) {
    ledger.pass("ac02-pairing", "every stdout and protocol field is paired (judged from the manifest; registration happens inside the CLI)");
  }
  if (!commands.some((command) => command.entry.mcp === true)) ledger.pass("ac16-no-mcp-true", "no command carries mcp: true");
  return commands;
}

function checkIdempotencyFlag(ledger: Ledger, command: Command): void {
  const { entry } = command;
  if (isProtocol(command) || entry.arguments === "passthrough" || entry.danger_level === "safe") return;
  const flags = isRecord(entry.flags) ? entry.flags : {};
  const declared = Object.hasOwn(flags, "idempotency-key");
  ledger.record("ac13-idempotency-key", declared, `${show(command)} (${String(entry.danger_level)}): ${declared ? "declares" : "does not declare"} --idempotency-key`);
}

// ---- every command: --help and an invalid flag ----

function checkHelp(ledger: Ledger, command: Command, run: ChildRun): void {
  if (run.ending === "timeout") {
    ledger.fail("ac06-help", `${show(command)} --help: did not exit with stdin left open (is it reading stdin?)`);
    return;
  }
  const ok = run.exit.code === 0 && run.stdout.trim() !== "";
  ledger.record("ac06-help", ok, `${show(command)} --help: ${outcome(run)}${run.stdout.trim() === "" ? ", nothing on stdout" : ""}`);
}

function checkProtocolInvalidFlag(ledger: Ledger, command: Command, run: ChildRun): void {
  const read = readEnvelope(lastLine(run.stderrTail));
  const code = "envelope" in read ? read.envelope.error?.code : undefined;
  const problems = [
    ...(run.exit.code === ExitCode.ARG_ERROR ? [] : [`exit ${run.exit.code}, expected 2`]),
    ...(run.stdout === "" ? [] : ["stdout is not empty"]),
    ...("problems" in read ? [`last stderr line is not an envelope (${read.problems.join(", ")})`] : []),
    ...(code === undefined || code === "ARG_ERROR" ? [] : [`error.code ${code}, expected ARG_ERROR`]),
  ];
  ledger.record("ac04-invalid-flag", problems.length === 0, `${show(command)} ${INVALID_FLAG}: ${problems.length === 0 ? "exit 2, stdout empty, ARG_ERROR envelope last on stderr" : problems.join("; ")}`);
}

function checkOrdinaryInvalidFlag(ledger: Ledger, command: Command, run: ChildRun): void {
  const read = readEnvelope(lastLine(run.stdout));
  const code = "envelope" in read ? read.envelope.error?.code : undefined;
  const ok = run.exit.code === ExitCode.ARG_ERROR && code === "ARG_ERROR";
  const label = `${show(command)} ${INVALID_FLAG}`;
  ledger.record("ac13-invalid-flag", ok, `${label}: ${outcome(run)}, error.code ${code ?? "(no envelope)"}`);
  observeOrdinaryRun(ledger, command, label, run);
}

/** REQ-F-004 on one run of a command without stdout: "protocol": one envelope line, ok ⇔ exit 0, a declared code. */
function observeOrdinaryRun(ledger: Ledger, command: Command | undefined, label: string, run: ChildRun): void {
  if (run.ending === "timeout") {
    ledger.fail("ac13-one-envelope", `${label}: did not exit in time`);
    return;
  }
  const lines = nonEmptyLines(run.stdout);
  const last = lastLine(run.stdout);
  const problems = last === "" ? ["stdout is empty"] : validateEnvelope(parseJson(last));
  const oneLine = lines.length === 1 && problems.length === 0;
  ledger.record("ac13-one-envelope", oneLine, `${label}: ${oneLine ? "one envelope line" : `${lines.length} stdout lines${problems.length > 0 ? `, last: ${problems.join(", ")}` : ""}`}`);
  const raw = parseJson(last);
  if (isRecord(raw) && typeof raw.ok === "boolean") {
    const exitCode = isRecord(raw.meta) ? raw.meta.exit_code : undefined;
    const ok = raw.ok === (run.exit.code === 0) && exitCode === run.exit.code;
    ledger.record("ac13-ok-exit-code", ok, `${label}: ok ${raw.ok}, meta.exit_code ${String(exitCode)}, process exit ${run.exit.code}`);
  }
  const table = command !== undefined && isRecord(command.entry.exit_codes) ? command.entry.exit_codes : undefined;
  if (table !== undefined) {
    const declared = Object.hasOwn(table, String(run.exit.code));
    ledger.record("ac13-declared-exit-codes", declared, `${label}: exit ${run.exit.code} ${declared ? "is" : "is not"} declared`);
  }
}

// ---- protocol servers, in live sessions ----

async function checkServer(ledger: Ledger, cli: readonly string[], command: Command, options: CheckOptions): Promise<void> {
  const argv = [...cli, "--format", "json", ...command.words];
  const mcp = command.entry.protocol === "mcp-stdio";
  const label = show(command);
  if (!mcp) {
    for (const id of ["ac07-stdout-purity", "ac08-malformed-request"] as const) {
      ledger.skip(id, `${label}: speaks ${String(command.entry.protocol)}; the checker speaks mcp-stdio only`);
    }
  }
  await session(argv, options, async (server) => {
    if (mcp) {
      const client = new McpProbe(server, options.probeTimeoutMs);
      const { firstLine, response } = await client.open();
      if (response !== undefined) ledger.pass("ac07-stdout-purity", `${label}: the first stdout line answers server/discover (${client.era} era)`);
      else ledger.fail("ac07-stdout-purity", `${label}: ${firstLine === undefined ? "no stdout line in time" : `the first stdout line is not the response: ${clip(firstLine)}`}`);
      await server.send("{this is not json");
      const parseError = await client.reply((reply) => reply.error?.code === -32700);
      const after = parseError === undefined ? undefined : await client.request("tools/list");
      ledger.record(
        "ac08-malformed-request",
        after !== undefined,
        `${label}: ${parseError === undefined ? "no -32700 answer to a malformed line" : after === undefined ? "answered -32700, then stopped answering" : "answered -32700, then answered tools/list"}`,
      );
    }
    await server.closeStdin();
    const exit = await server.waitExit(options.probeTimeoutMs);
    const envelopeLine = server.stderr.split("\n").find((line) => "envelope" in readEnvelope(line));
    const ok = exit?.code === 0 && envelopeLine === undefined;
    ledger.record("ac09-stdin-eof", ok, `${label}: ${exit === undefined ? "still running after stdin closed" : `exit ${exit.code}`}${envelopeLine === undefined ? "" : ", an envelope on stderr"}`);
  });
  await session(argv, options, async (server) => {
    // Serving has begun once a request is answered; a server of another protocol gets a moment instead.
    if (mcp) await new McpProbe(server, options.probeTimeoutMs).open();
    else await delay(500);
    server.signal("SIGTERM");
    const exit = await server.waitExit(options.probeTimeoutMs);
    const read = readEnvelope(lastLine(server.stderr));
    const ok = exit?.code === ExitCode.SIGTERM && "envelope" in read;
    ledger.record("ac10-sigterm", ok, `${label}: ${exit === undefined ? "still running after SIGTERM" : `exit ${exit.code}`}, ${"envelope" in read ? "envelope last on stderr" : "no envelope last on stderr"}`);
  });
  await session([...argv, "--timeout", String(IDLE_TIMEOUT_SECONDS)], options, async (server) => {
    const client = new McpProbe(server, options.probeTimeoutMs);
    if (mcp) await client.open();
    const early = await server.waitExit(IDLE_WATCH_MS);
    if (early !== undefined) {
      if (early.code === ExitCode.ARG_ERROR) ledger.skip("ac11-idle-not-killed", `${label}: exits 2 with --timeout, which it may not take (REQ-C-012)`);
      else ledger.fail("ac11-idle-not-killed", `${label}: exited ${early.code} while idle, ${IDLE_WATCH_MS / 1000} s into a --timeout of ${IDLE_TIMEOUT_SECONDS} s`);
      return;
    }
    const answered = mcp ? (await client.request("tools/list")) !== undefined : true;
    ledger.record("ac11-idle-not-killed", answered, `${label}: ${answered ? "still serving" : "still running but no longer answering"} after ${IDLE_WATCH_MS / 1000} s idle with --timeout ${IDLE_TIMEOUT_SECONDS}`);
    await server.closeStdin();
    await server.waitExit(options.probeTimeoutMs);
  });
}

/** The tool's own MCP server (`mcp serve`) against the manifest: mcp: false commands off the list and refused. */
async function checkMcpToolList(ledger: Ledger, cli: readonly string[], commands: Command[], options: CheckOptions): Promise<void> {
  const server = commands.find((command) => command.path === "mcp.serve" && command.entry.protocol === "mcp-stdio");
  if (server === undefined) {
    for (const id of ["ac14-mcp-false-shown", "ac15-mcp-false-refused"] as const) ledger.skip(id, "the CLI has no `mcp serve` speaking mcp-stdio");
    return;
  }
  await session([...cli, "--format", "json", "mcp", "serve"], options, async (live) => {
    const client = new McpProbe(live, options.probeTimeoutMs);
    await client.open();
    const names = await client.toolNames();
    if (names === undefined) {
      ledger.fail("ac15-mcp-false-refused", "mcp serve: no tools/list result");
      ledger.fail("ac14-mcp-false-shown", "mcp serve: no tools/list result");
      return;
    }
    const listed = (command: Command) => names.includes(command.path) || names.includes(toolName(command.path));
    const candidates = commands.filter((command) => command !== server && !isProtocol(command) && command.entry.arguments !== "passthrough");
    for (const command of candidates) {
      const label = show(command);
      if (command.entry.mcp === false) {
        ledger.record("ac15-mcp-false-refused", !listed(command), `${label} (mcp: false) is ${listed(command) ? "listed" : "not listed"}`);
        ledger.record("ac14-mcp-false-shown", !listed(command), `${label}: left out and marked mcp: false`);
        // An argument no command takes: even a server that wrongly runs the tool refuses it before running.
        const reply = await client.request("tools/call", { name: toolName(command.path), arguments: { definitely_not_an_argument: true } });
        const refused = reply?.error !== undefined;
        ledger.record("ac15-mcp-false-refused", refused, `${label}: a call ${refused ? `is answered with protocol error ${String(reply?.error?.code)}` : reply === undefined ? "got no answer" : "is answered with a result, not a protocol error"}`);
      } else if (!listed(command)) {
        ledger.fail("ac14-mcp-false-shown", `${label} is left out of the tool list but does not declare mcp: false`);
      } else if ("mcp" in command.entry) {
        ledger.fail("ac14-mcp-false-shown", `${label} is listed yet carries mcp: ${JSON.stringify(command.entry.mcp)}`);
      } else {
        ledger.pass("ac14-mcp-false-shown", `${label}: listed, no mcp field`);
      }
    }
    if (!candidates.some((command) => command.entry.mcp === false)) ledger.skip("ac15-mcp-false-refused", "no command is marked mcp: false");
    await live.closeStdin();
    await live.waitExit(options.probeTimeoutMs);
  });
}

// ---- helpers ----

async function session(argv: readonly string[], options: CheckOptions, use: (server: ServerSession) => Promise<void>): Promise<void> {
  const server = new ServerSession(argv);
  const stop = () => void server.dispose();
  options.signal.addEventListener("abort", stop, { once: true });
  try {
    await use(server);
  } finally {
    options.signal.removeEventListener("abort", stop);
    await server.dispose();
  }
  if (options.signal.aborted) throw options.signal.reason;
}

/** `work` on every item, at most `limit` at once; the results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function isProtocol(command: Command): boolean {
  return command.entry.stdout === "protocol";
}

function show(command: Command): string {
  return command.words.join(" ");
}

function toolName(path: string): string {
  return path.replaceAll(".", "_");
}

function outcome(run: ChildRun): string {
  return run.ending === "timeout" ? "did not exit in time" : `exit ${run.exit.code}`;
}

function stderrHint(run: ChildRun): string {
  const last = lastLine(run.stderrTail);
  return last === "" ? "" : ` (stderr: ${clip(last)})`;
}

function nonEmptyLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
