/**
 * The criteria a CLI's manifest alone can answer: the manifest envelope, the manifest rules, and REQ-C-032's
 * fields — `stdout`/`protocol`, the fields that do not combine, `mcp` — as the manifest shows them.
 */
import { type Manifest, validateManifest } from "../../mod.ts";
import {
  type ChildRun,
  COMMAND_FRAMEWORK_FLAGS,
  errorMessage,
  isRecord,
  lastLine,
  manifestEtag,
  PROTOCOL_FORBIDDEN,
  readEnvelope,
} from "../../lib/bridge/mod.ts";
import { observeOrdinaryRun } from "./command_checks.ts";
import type { Ledger } from "./criteria.ts";
import { clip, nonEmptyLines } from "./evidence.ts";
import { type CheckedCommand, commandsOf, isProtocol, show } from "./checked_command.ts";

/**
 * Records what the run of `<cli> --format json manifest` shows, and returns the CLI's commands — or
 * `undefined` when it printed no manifest to check anything else against.
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { Ledger } from "./criteria.ts";
 *
 * const ledger = new Ledger();
 * const run = await runChild(["notes", "--format", "json", "manifest"], { timeoutMs: 10_000 });
 * const commands = await checkManifest(ledger, run);
 * ```
 */
export async function checkManifest(ledger: Ledger, run: ChildRun): Promise<CheckedCommand[] | undefined> {
  const lines = nonEmptyLines(run.stdout);
  const read = readEnvelope(lastLine(run.stdout));
  const envelope = "envelope" in read ? read.envelope : undefined;
  const problems = [
    ...(run.ending === "timeout" ? ["did not exit in time"] : []),
    ...(run.exit.code === 0 ? [] : [`exited ${run.exit.code}`]),
    ...(lines.length === 1 ? [] : [`${lines.length} lines on stdout`]),
    ...("problems" in read ? [`last stdout line is not an envelope: ${read.problems.join(", ")}`] : []),
    ...(envelope !== undefined && !envelope.ok
      ? [`ok is false: ${envelope.error?.code}: ${envelope.error?.message}`]
      : []),
  ];
  ledger.record(
    "manifest-envelope",
    problems.length === 0,
    problems.length === 0
      ? "manifest: one envelope line, exit 0"
      : `manifest: ${problems.join("; ")}${stderrHint(run)}`,
  );
  const data = envelope?.ok ? envelope.data : undefined;
  if (!isRecord(data) || !isRecord(data.commands)) return undefined;

  const commands = commandsOf(data.commands);
  observeOrdinaryRun(ledger, commands.find((command) => command.path === "manifest"), "manifest", run);

  const issues = validateManifest(data);
  if (issues.length === 0) ledger.pass("manifest-schema", `${commands.length} commands, no issues`);
  for (const issue of issues) ledger.fail("manifest-schema", issue.message);
  await checkEtag(ledger, data);
  const byCheckedCommand = (path: string) => issues.filter((issue) => issue.command === path);
  const forbidden = new Set(PROTOCOL_FORBIDDEN.map(([field]) => field));
  const frameworkFlagFields = new Set(Object.keys(COMMAND_FRAMEWORK_FLAGS).map((flag) => `flags.${flag}`));
  for (const command of commands) {
    const own = byCheckedCommand(command.path);
    const pairing = own.filter((issue) => issue.field === "stdout" || issue.field === "protocol");
    for (const issue of pairing) {
      ledger.fail("ac01-stdout-protocol-fields", issue.message);
      ledger.fail("ac02-pairing", issue.message);
    }
    if (pairing.length === 0 && isProtocol(command)) {
      ledger.pass(
        "ac01-stdout-protocol-fields",
        `${show(command)}: stdout protocol, protocol ${String(command.entry.protocol)}`,
      );
    }
    if (isProtocol(command)) {
      const combined = own.filter((issue) =>
        forbidden.has(issue.field) || issue.field === "requires_confirmation"
      );
      for (const issue of combined) ledger.fail("ac03-forbidden-fields", issue.message);
      if (combined.length === 0) {
        ledger.pass("ac03-forbidden-fields", `${show(command)}: no field that does not combine`);
      }
      for (const issue of own.filter((issue) => frameworkFlagFields.has(issue.field))) {
        ledger.fail("ac12-framework-flags-refused", `manifest: ${issue.message}`);
      }
    }
    checkIdempotencyFlag(ledger, command);
    if (command.entry.mcp === true) ledger.fail("ac16-no-mcp-true", `${show(command)}: mcp: true`);
  }
  if (!commands.some(isProtocol)) {
    ledger.pass("ac01-stdout-protocol-fields", "no command declares stdout or protocol");
  }
  if (!issues.some((issue) => issue.field === "stdout" || issue.field === "protocol")) {
    ledger.pass(
      "ac02-pairing",
      "every stdout and protocol field is paired (judged from the manifest; registration happens inside the CLI)",
    );
  }
  if (!commands.some((command) => command.entry.mcp === true)) {
    ledger.pass("ac16-no-mcp-true", "no command carries mcp: true");
  }
  return commands;
}

/** Whether the etag is the one the content calls for; a manifest whose content cannot be hashed fails. */
async function checkEtag(ledger: Ledger, data: Record<string, unknown>): Promise<void> {
  const { schema_version, framework_version, commands } = data;
  let expected: string;
  try {
    expected = await manifestEtag({ schema_version, framework_version, commands } as Manifest);
  } catch (error) {
    ledger.fail("manifest-etag", `the content cannot be hashed: ${errorMessage(error)}`);
    return;
  }
  ledger.record(
    "manifest-etag",
    data.etag === expected,
    data.etag === expected
      ? `etag ${expected} matches the content`
      : `etag ${clip(String(data.etag))} does not match the content, whose etag is ${expected}`,
  );
}

function checkIdempotencyFlag(ledger: Ledger, command: CheckedCommand): void {
  const { entry } = command;
  if (isProtocol(command) || entry.arguments === "passthrough" || entry.danger_level === "safe") return;
  const flags = isRecord(entry.flags) ? entry.flags : {};
  const declared = Object.hasOwn(flags, "idempotency-key");
  ledger.record(
    "ac13-idempotency-key",
    declared,
    `${show(command)} (${String(entry.danger_level)}): ${
      declared ? "declares" : "does not declare"
    } --idempotency-key`,
  );
}

function stderrHint(run: ChildRun): string {
  const last = lastLine(run.stderrTail);
  return last === "" ? "" : ` (stderr: ${clip(last)})`;
}
