import type { AnyCommandDefinition } from "./command_definition.ts";
import { checkFlags, checkPositionals } from "./flag_rules.ts";
import { checkKnownFields, type Fail, isStringArray, KEBAB, type Subject } from "./rule_kit.ts";
import { RegistrationError } from "./command_error.ts";
import { CONTRACT_FIELDS, DEFAULT_FORMAT_MEMBER, EARLIER_ENTRY_MEMBERS } from "./contract_fields.ts";
import { exitCodeName, isDeclarableExitCode } from "../../exit_code.ts";
import { FORMATS } from "./command_definition.ts";
import { outputSchemaProblem } from "./output_schema.ts";
import { isRecord } from "../../json.ts";

const PATH = /^[a-z][a-z0-9]*(-[a-z0-9]+)*(\.[a-z][a-z0-9]*(-[a-z0-9]+)*)*$/;
const DANGER_LEVELS = new Set(["safe", "mutating", "destructive"]);
const SIDE_EFFECTS = new Set(["none", "partial", "complete"]);

/**
 * The fields a protocol command must not declare (REQ-C-032 "Fields that do not combine with it"): each with
 * the value that counts as declaring it.
 */
export const PROTOCOL_FORBIDDEN: ReadonlyArray<
  readonly [field: string, declared: (value: unknown) => boolean]
> = [
  ["arguments", (v) => v === "passthrough"],
  ["stderr", (v) => v === "child_log"],
  ["stdin", (v) => v !== undefined],
  ["interactive", (v) => v === true],
  ["streaming_default", (v) => v === true],
  ["output_file", (v) => v !== undefined && v !== false],
  ["output_schema", (v) => v !== undefined],
  ["output_formats", (v) => v !== undefined],
  ["output_media_types", (v) => v !== undefined],
  ["async", (v) => v === true],
  ["spawns_background_process", (v) => v === true],
  ["cleanup_command", (v) => v !== undefined],
  ["max_lifetime_seconds", (v) => v !== undefined],
  ["confirm_flag", (v) => v !== undefined],
  ["safe_default", (v) => v === true],
];

type Check = (d: Record<string, unknown>, fail: Fail, subject: Subject) => void;

// The contract rules, in the order registration applies them. Each check stops at its first broken rule;
// registration stops at the first broken check, a manifest entry is held to every check. Positionals are
// checked only when there are some: every function that runs is compiled in full, at each start of a tool
// that registers the command, and most commands declare none.
const CONTRACT_CHECKS: readonly Check[] = [
  checkSummary,
  (d, fail, subject) => checkExitCodes(d.exit_codes, fail, subject),
  (d, fail, subject) => checkFlags(d.flags, fail, subject, d.stdout === "protocol"),
  (d, fail, subject) => {
    if (d.positionals !== undefined) checkPositionals(d.positionals, d.flags, fail, subject);
  },
  checkStdoutProtocol,
  checkMcp,
  checkHandler,
  checkOptionalShapes,
  checkEntryShape,
];

/**
 * Checks a command declaration against every registration rule (docs/contract.md#registration), those of
 * protocol commands (REQ-C-032) included, throwing a {@linkcode RegistrationError} that names the command and
 * the field at the first broken rule. `ownFlags` names framework flags the command declares and implements
 * itself (`mcp listen`'s `--dry-run`): they pass the rule that reserves those names.
 *
 * @example
 * ```ts
 * import type { CommandDefinition } from "@toolwire/toolwire";
 *
 * declare const definition: CommandDefinition;
 * validateDefinition("notes.add", definition); // throws on a bad declaration
 * ```
 */
export function validateDefinition(
  path: string,
  definition: AnyCommandDefinition,
  ownFlags: readonly string[] = [],
): void {
  if (ownFlags.length > 0 && definition.flags !== undefined) {
    const flags = Object.fromEntries(
      Object.entries(definition.flags).filter(([name]) => !ownFlags.includes(name)),
    );
    return validateDefinition(path, { ...definition, flags } as AnyCommandDefinition);
  }
  const fail = (field: string, problem: string): never => {
    throw new RegistrationError(path, field, problem);
  };
  if (!PATH.test(path)) fail("path", "must be dotted lowercase kebab-case words, e.g. 'notes.add'");
  if (typeof definition !== "object" || definition === null) fail("definition", "must be an object");
  const d = definition as unknown as Record<string, unknown>;
  for (const check of CONTRACT_CHECKS) check(d, fail, "definition");
}

/**
 * The rules a manifest entry breaks, checked the way registration checks a definition — so an entry this
 * framework would have refused is refused here too, whatever language printed it. Every rule group is
 * applied, so one entry can yield several errors; each names the command and the field.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 *
 * declare const entry: CommandEntry;
 * manifestEntryIssues("release.approve", { ...entry, mcp: true })[0]?.field; // "mcp"
 * ```
 */
export function manifestEntryIssues(path: string, entry: unknown): RegistrationError[] {
  const issues: RegistrationError[] = [];
  const fail = (field: string, problem: string): never => {
    throw new RegistrationError(path, field, problem);
  };
  const collect = (check: () => void) => {
    try {
      check();
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      issues.push(error);
    }
  };
  collect(() => {
    if (!PATH.test(path)) fail("path", "must be dotted lowercase kebab-case words, e.g. 'notes.add'");
  });
  if (!isRecord(entry)) {
    return [...issues, new RegistrationError(path, "entry", "must be an object")];
  }
  for (const check of CONTRACT_CHECKS) collect(() => check(entry, fail, "entry"));
  return issues;
}

function checkSummary(d: Record<string, unknown>, fail: Fail): void {
  if (typeof d.description !== "string" || d.description.trim() === "") {
    fail("description", "must be a non-empty string");
  }
  if (!DANGER_LEVELS.has(d.danger_level as string)) {
    fail("danger_level", "must be 'safe', 'mutating' or 'destructive'");
  }
  if (!isStringArray(d.required_scopes)) {
    fail("required_scopes", "must be an array of strings ([] when no auth)");
  }
}

function checkMcp(d: Record<string, unknown>, fail: Fail): void {
  // `undefined` counts as absent, as for every other optional field; only `true` (or junk) is refused.
  if (d.mcp !== undefined && d.mcp !== false) {
    fail("mcp", "may only be false (absent means the MCP server may offer it)");
  }
}

const EXIT_CODE_FIELDS = new Set(["name", "description", "retryable", "side_effects"]);
const EXIT_CODE_DESCRIPTION_MAX = 120;

function checkExitCodes(table: unknown, fail: Fail, subject: Subject): void {
  if (!isRecord(table)) {
    fail("exit_codes", "is required: a map from exit code to {name, description, retryable, side_effects}");
  }
  const entries = Object.entries(table as Record<string, unknown>);
  if (!entries.some(([code]) => code === "0")) fail("exit_codes", 'must contain "0" (SUCCESS)');
  for (const [key, raw] of entries) {
    const field = `exit_codes.${key}`;
    const code = Number(key);
    // Canonical decimal only: "080" would parse as 80, yet every lookup by String(80) would miss it.
    if (!/^(0|[1-9]\d*)$/.test(key) || !isDeclarableExitCode(code)) {
      fail(field, "must be a standard exit code (0-14, 129, 130, 143) or a command-specific code in 79-125");
    }
    if (typeof raw !== "object" || raw === null) fail(field, "must be an object");
    const entry = raw as Record<string, unknown>;
    const standardName = exitCodeName(code);
    if (typeof entry.name !== "string" || entry.name === "") fail(`${field}.name`, "must name the constant");
    if (standardName !== undefined && entry.name !== standardName) {
      fail(`${field}.name`, `code ${key} is ${standardName}, not '${String(entry.name)}'`);
    }
    if (typeof entry.description !== "string" || entry.description === "") {
      fail(`${field}.description`, "must be a non-empty string");
    }
    // The published ExitCodeEntry caps it (maxLength counts code points): one line an agent reads whole.
    if ([...entry.description].length > EXIT_CODE_DESCRIPTION_MAX) {
      fail(`${field}.description`, `must be at most ${EXIT_CODE_DESCRIPTION_MAX} characters`);
    }
    if (typeof entry.retryable !== "boolean") fail(`${field}.retryable`, "must be a boolean");
    if (!SIDE_EFFECTS.has(entry.side_effects as string)) {
      fail(`${field}.side_effects`, "must be 'none', 'partial' or 'complete'");
    }
    if (entry.retryable === true && entry.side_effects !== "none") {
      fail(`${field}.retryable`, 'retryable: true requires side_effects: "none"');
    }
    if (subject === "entry") checkKnownFields(entry, EXIT_CODE_FIELDS, field, fail);
  }
}

function checkStdoutProtocol(d: Record<string, unknown>, fail: Fail): void {
  if (d.stdout !== undefined && d.stdout !== "protocol") {
    fail("stdout", 'may only be "protocol" (absent means stdout carries envelopes)');
  }
  if (d.stdout === "protocol" && d.protocol === undefined) {
    fail("protocol", 'stdout: "protocol" requires a protocol name (mcp-stdio, lsp, dap, ...)');
  }
  if (d.protocol !== undefined && d.stdout !== "protocol") {
    fail("stdout", 'protocol requires stdout: "protocol"');
  }
  if (d.protocol === undefined) return;
  if (typeof d.protocol !== "string" || !KEBAB.test(d.protocol)) {
    fail("protocol", "must be a lowercase kebab-case name, e.g. mcp-stdio, lsp, dap");
  }
  for (const [field, declared] of PROTOCOL_FORBIDDEN) {
    if (declared(d[field])) {
      fail(
        field,
        `a protocol command cannot declare ${field}: its stdout carries the protocol, not an envelope`,
      );
    }
  }
}

function checkHandler(d: Record<string, unknown>, fail: Fail, subject: Subject): void {
  // A manifest entry is data: its handlers stayed behind in the program that printed it.
  if (subject === "entry") return;
  if (d.stdout === "protocol") {
    if (typeof d.serve !== "function") fail("serve", "a protocol command needs a serve(ctx) handler");
    if (d.run !== undefined) fail("run", "a protocol command serves; it has no run handler");
    return;
  }
  if (typeof d.run !== "function") fail("run", "a command needs a run(ctx) handler");
  if (d.serve !== undefined) fail("serve", 'only protocol commands (stdout: "protocol") serve');
}

function checkOptionalShapes(d: Record<string, unknown>, fail: Fail, subject: Subject): void {
  if (d.aliases !== undefined && (!isStringArray(d.aliases) || !d.aliases.every((a) => KEBAB.test(a)))) {
    fail("aliases", "must be lowercase kebab-case words");
  }
  if (d.examples !== undefined) {
    const ok = Array.isArray(d.examples) &&
      d.examples.every((e) =>
        typeof e?.description === "string" && typeof e?.command === "string" &&
        Object.keys(e).every((key) => key === "description" || key === "command")
      );
    if (!ok) fail("examples", "must be a list of {description, command}");
  }
  // A run-time setting of the definition; the manifest does not carry it.
  if (
    subject === "definition" && d.timeout_seconds !== undefined &&
    !(typeof d.timeout_seconds === "number" && d.timeout_seconds >= 0)
  ) {
    fail("timeout_seconds", "must be a number of seconds >= 0");
  }
  if (d.arguments !== undefined && d.arguments !== "passthrough") {
    fail("arguments", 'may only be "passthrough"');
  }
  if (d.stderr !== undefined && d.stderr !== "child_log") fail("stderr", 'may only be "child_log"');
  if (d.output_schema !== undefined) {
    const problem = outputSchemaProblem(d.output_schema);
    if (problem !== undefined) fail(problem.field, problem.problem);
  }
  for (
    const field of [
      "interactive",
      "streaming_default",
      "output_file",
      "async",
      "spawns_background_process",
      "safe_default",
      "supports_dry_run",
      "idempotent",
      "has_network_io",
    ]
  ) {
    if (d[field] !== undefined && typeof d[field] !== "boolean") fail(field, "must be a boolean");
  }
  checkOutputChoices(d, fail, subject);
  checkManifestShapes(d, fail);
}

// Both concern one invocation's output and effect on the command line; a protocol session has neither: its
// stdout is the protocol, and each request it answers previews or confirms inside the protocol. A manifest
// shows the default format as `x-default-format`; earlier ones, still read, as `default_format`.
function checkOutputChoices(d: Record<string, unknown>, fail: Fail, subject: Subject): void {
  for (const field of subject === "entry" ? [DEFAULT_FORMAT_MEMBER, "default_format"] : ["default_format"]) {
    if (d[field] === undefined) continue;
    if (!(FORMATS as readonly unknown[]).includes(d[field])) {
      fail(field, `must be one of ${FORMATS.join(", ")}`);
    }
    if (d.stdout === "protocol") {
      fail(field, "a protocol command writes no envelope to stdout, in any format");
    }
  }
  if (d.supports_dry_run === true) {
    if (d.stdout === "protocol") {
      fail(
        "supports_dry_run",
        "a protocol command does not accept --dry-run: it serves a protocol, not a one-shot invocation",
      );
    }
    if (d.danger_level === "safe") {
      fail("supports_dry_run", "a safe command changes nothing, so it has nothing to preview");
    }
  }
}

// The manifest serialises these fields as declared, so a malformed value here would publish a manifest that
// fails the project's own manifest schema; refuse it at registration instead.
function checkManifestShapes(d: Record<string, unknown>, fail: Fail): void {
  if (d.stdin !== undefined) checkStdinShape(d.stdin, fail);
  for (const field of ["output_formats", "output_media_types"]) {
    if (d[field] !== undefined && !(isStringArray(d[field]) && d[field].every((item) => item !== ""))) {
      fail(field, "must be a list of non-empty strings");
    }
  }
  if (
    d.cleanup_command !== undefined &&
    (typeof d.cleanup_command !== "string" || d.cleanup_command.trim() === "")
  ) {
    fail("cleanup_command", "must be a non-empty command line");
  }
  if (
    d.max_lifetime_seconds !== undefined &&
    !(typeof d.max_lifetime_seconds === "number" && d.max_lifetime_seconds > 0)
  ) {
    fail("max_lifetime_seconds", "must be a number of seconds > 0");
  }
  if (d.confirm_flag !== undefined && (typeof d.confirm_flag !== "string" || !KEBAB.test(d.confirm_flag))) {
    fail("confirm_flag", "must be a flag name in lowercase kebab-case, without the leading --");
  }
}

function checkStdinShape(stdin: unknown, fail: Fail): void {
  if (!isRecord(stdin)) {
    fail("stdin", "must be an object {description, max_bytes?}");
  }
  const spec = stdin as Record<string, unknown>;
  const unknown = Object.keys(spec).find((key) => key !== "description" && key !== "max_bytes");
  if (unknown !== undefined) fail(`stdin.${unknown}`, "is not a stdin field (description, max_bytes)");
  if (typeof spec.description !== "string" || spec.description === "") {
    fail("stdin.description", "is required");
  }
  if (
    spec.max_bytes !== undefined && !(Number.isSafeInteger(spec.max_bytes) && (spec.max_bytes as number) > 0)
  ) {
    fail("stdin.max_bytes", "must be a whole number of bytes > 0");
  }
}

const ENTRY_FIELDS = new Set<string>([
  ...CONTRACT_FIELDS,
  ...EARLIER_ENTRY_MEMBERS,
  DEFAULT_FORMAT_MEMBER,
  "flags",
  "positionals",
  "exit_codes",
  "requires_confirmation",
  "subcommands",
]);

/**
 * What only a manifest entry has: the fields the framework adds, and no field it does not know — but for
 * `x-` extension members, which a reader may ignore by definition (another framework's, or a later toolwire's).
 */
function checkEntryShape(d: Record<string, unknown>, fail: Fail, subject: Subject): void {
  if (subject === "definition") return;
  checkKnownFields(d, ENTRY_FIELDS, "", fail, (key) => key.startsWith("x-"));
  if (d.requires_confirmation !== undefined) {
    if (d.requires_confirmation !== true) fail("requires_confirmation", "may only be true");
    if (d.danger_level !== "destructive") {
      fail("requires_confirmation", "only a destructive command requires confirmation");
    }
    if (d.stdout === "protocol") {
      fail("requires_confirmation", "a protocol command confirms inside the protocol");
    }
  }
  if (
    d.subcommands !== undefined &&
    !(isStringArray(d.subcommands) && d.subcommands.every((path) => PATH.test(path)))
  ) {
    fail("subcommands", "must be a list of dotted command paths");
  }
}
