/**
 * The criteria every command answers when it is run the two ways that change nothing: with `--help`, and
 * with a flag that must be refused before anything runs.
 */
import { ExitCode } from "../../mod.ts";
import {
  type ChildRun,
  isRecord,
  lastLine,
  parseJson,
  readEnvelope,
  validateEnvelope,
} from "../../lib/bridge/mod.ts";
import type { Ledger } from "./criteria.ts";
import { nonEmptyLines, outcome } from "./evidence.ts";
import { type CheckedCommand, show } from "./checked_command.ts";

/** A flag no command takes: every refusal probe passes it. */
export const INVALID_FLAG = "--definitely-not-a-flag";

/**
 * `<cli> <cmd> --help` with stdin left open: help on stdout, exit 0, and an exit at all (REQ-C-032).
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const command: CheckedCommand; // a command of the CLI's manifest
 * const ledger = new Ledger();
 * const run = await runChild(["notes", ...command.words, "--help"], { timeoutMs: 10_000, stdin: "open" });
 * checkHelp(ledger, command, run);
 * ```
 */
export function checkHelp(ledger: Ledger, command: CheckedCommand, run: ChildRun): void {
  if (run.ending === "timeout") {
    ledger.fail(
      "ac06-help",
      `${show(command)} --help: did not exit with stdin left open (is it reading stdin?)`,
    );
    return;
  }
  const ok = run.exit.code === 0 && run.stdout.trim() !== "";
  ledger.record(
    "ac06-help",
    ok,
    `${show(command)} --help: ${outcome(run)}${run.stdout.trim() === "" ? ", nothing on stdout" : ""}`,
  );
}

/**
 * A protocol command given {@linkcode INVALID_FLAG}: exit 2, stdout empty, the ARG_ERROR envelope last on stderr.
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const command: CheckedCommand; // `notes lsp`
 * const ledger = new Ledger();
 * const argv = ["notes", "--format", "json", ...command.words, INVALID_FLAG];
 * const run = await runChild(argv, { timeoutMs: 10_000 });
 * checkProtocolInvalidFlag(ledger, command, run);
 * ```
 */
export function checkProtocolInvalidFlag(ledger: Ledger, command: CheckedCommand, run: ChildRun): void {
  const read = readEnvelope(lastLine(run.stderrTail));
  const code = "envelope" in read ? read.envelope.error?.code : undefined;
  const problems = [
    ...(run.exit.code === ExitCode.ARG_ERROR ? [] : [`exit ${run.exit.code}, expected 2`]),
    ...(run.stdout === "" ? [] : ["stdout is not empty"]),
    ...("problems" in read ? [`last stderr line is not an envelope (${read.problems.join(", ")})`] : []),
    ...(code === undefined || code === "ARG_ERROR" ? [] : [`error.code ${code}, expected ARG_ERROR`]),
  ];
  ledger.record(
    "ac04-invalid-flag",
    problems.length === 0,
    `${show(command)} ${INVALID_FLAG}: ${
      problems.length === 0 ? "exit 2, stdout empty, ARG_ERROR envelope last on stderr" : problems.join("; ")
    }`,
  );
}

/**
 * An ordinary command given {@linkcode INVALID_FLAG}: exit 2 with an ARG_ERROR envelope on stdout, and the
 * envelope basics of {@linkcode observeOrdinaryRun}.
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const command: CheckedCommand; // `notes list`
 * const ledger = new Ledger();
 * const argv = ["notes", "--format", "json", ...command.words, INVALID_FLAG];
 * const run = await runChild(argv, { timeoutMs: 10_000 });
 * checkOrdinaryInvalidFlag(ledger, command, run);
 * ```
 */
export function checkOrdinaryInvalidFlag(ledger: Ledger, command: CheckedCommand, run: ChildRun): void {
  const read = readEnvelope(lastLine(run.stdout));
  const code = "envelope" in read ? read.envelope.error?.code : undefined;
  const ok = run.exit.code === ExitCode.ARG_ERROR && code === "ARG_ERROR";
  const label = `${show(command)} ${INVALID_FLAG}`;
  ledger.record("ac13-invalid-flag", ok, `${label}: ${outcome(run)}, error.code ${code ?? "(no envelope)"}`);
  observeOrdinaryRun(ledger, command, label, run);
}

/**
 * REQ-F-004 on one run of a command without `stdout: "protocol"`: one envelope line, ok ⇔ exit 0, a declared
 * exit code.
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const command: CheckedCommand; // `notes list`
 * const ledger = new Ledger();
 * const run = await runChild(["notes", "--format", "json", "list", INVALID_FLAG], { timeoutMs: 10_000 });
 * observeOrdinaryRun(ledger, command, `list ${INVALID_FLAG}`, run);
 * ```
 */
export function observeOrdinaryRun(
  ledger: Ledger,
  command: CheckedCommand | undefined,
  label: string,
  run: ChildRun,
): void {
  if (run.ending === "timeout") {
    ledger.fail("ac13-one-envelope", `${label}: did not exit in time`);
    return;
  }
  const lines = nonEmptyLines(run.stdout);
  const last = lastLine(run.stdout);
  const problems = last === "" ? ["stdout is empty"] : validateEnvelope(parseJson(last));
  const cut = run.stdoutDropped > 0;
  const oneLine = lines.length === 1 && problems.length === 0 && !cut;
  const counted = cut ? "more stdout than the checker keeps" : `${lines.length} stdout lines`;
  ledger.record(
    "ac13-one-envelope",
    oneLine,
    `${label}: ${
      oneLine
        ? "one envelope line"
        : `${counted}${problems.length > 0 ? `, last: ${problems.join(", ")}` : ""}`
    }`,
  );
  const raw = parseJson(last);
  if (isRecord(raw) && typeof raw.ok === "boolean") {
    const exitCode = isRecord(raw.meta) ? raw.meta.exit_code : undefined;
    const ok = raw.ok === (run.exit.code === 0) && exitCode === run.exit.code;
    ledger.record(
      "ac13-ok-exit-code",
      ok,
      `${label}: ok ${raw.ok}, meta.exit_code ${String(exitCode)}, process exit ${run.exit.code}`,
    );
  }
  const table = command !== undefined && isRecord(command.entry.exit_codes)
    ? command.entry.exit_codes
    : undefined;
  if (table !== undefined) {
    const declared = Object.hasOwn(table, String(run.exit.code));
    ledger.record(
      "ac13-declared-exit-codes",
      declared,
      `${label}: exit ${run.exit.code} ${declared ? "is" : "is not"} declared`,
    );
  }
}

/**
 * A protocol command given a framework flag it must refuse (`--dry-run`, …): exit 2, stdout empty (REQ-C-032).
 *
 * @example
 * ```ts
 * import { runChild } from "../../lib/bridge/child_run.ts";
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const command: CheckedCommand; // `notes lsp`
 * const ledger = new Ledger();
 * const argv = ["notes", "--format", "json", ...command.words, "--dry-run"];
 * const run = await runChild(argv, { timeoutMs: 10_000 });
 * checkFrameworkFlagRefused(ledger, command, "dry-run", run);
 * ```
 */
export function checkFrameworkFlagRefused(
  ledger: Ledger,
  command: CheckedCommand,
  flag: string,
  run: ChildRun,
): void {
  const ok = run.ending === "exited" && run.exit.code === ExitCode.ARG_ERROR && run.stdout === "";
  ledger.record(
    "ac12-framework-flags-refused",
    ok,
    `${show(command)} --${flag}: ${outcome(run)}${run.stdout === "" ? "" : ", stdout not empty"}`,
  );
}
