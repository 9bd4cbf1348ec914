import type { AnyCommandDefinition, FlagSpec, FlagType, PositionalSpec } from "./contract.ts";
import { RegistrationError } from "./command_error.ts";
import { exitCodeName, isDeclarableExitCode } from "./exit_code.ts";
import { RESERVED_FLAG_NAMES } from "./framework_flags.ts";

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const PATH = /^[a-z][a-z0-9]*(-[a-z0-9]+)*(\.[a-z][a-z0-9]*(-[a-z0-9]+)*)*$/;
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
const DANGER_LEVELS = new Set(["safe", "mutating", "destructive"]);
const FLAG_TYPES = new Set<FlagType>(["string", "integer", "number", "boolean", "array", "enum"]);
const SIDE_EFFECTS = new Set(["none", "partial", "complete"]);

/**
 * The fields a protocol command must not declare (REQ-C-032 "Fields that do not combine with it"): each with
 * the value that counts as declaring it.
 */
export const PROTOCOL_FORBIDDEN: ReadonlyArray<readonly [field: string, declared: (value: unknown) => boolean]> = [
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

/**
 * Checks a command declaration against every registration rule of SPEC §3 and REQ-C-032, throwing a
 * {@linkcode RegistrationError} that names the command and the field at the first broken rule.
 *
 * @example
 * ```ts
 * validateDefinition("notes.add", definition); // throws on a bad declaration
 * ```
 */
export function validateDefinition(path: string, definition: AnyCommandDefinition): void {
  const fail = (field: string, problem: string): never => {
    throw new RegistrationError(path, field, problem);
  };
  if (!PATH.test(path)) fail("path", "must be dotted lowercase kebab-case words, e.g. 'notes.add'");
  if (typeof definition !== "object" || definition === null) fail("definition", "must be an object");
  const d = definition as unknown as Record<string, unknown>;

  if (typeof d.description !== "string" || d.description.trim() === "") fail("description", "must be a non-empty string");
  if (!DANGER_LEVELS.has(d.danger_level as string)) fail("danger_level", "must be 'safe', 'mutating' or 'destructive'");
  if (!isStringArray(d.required_scopes)) fail("required_scopes", "must be an array of strings ([] when no auth)");
  checkExitCodes(d.exit_codes, fail);
  checkFlags(d.flags, fail);
  checkPositionals(d.positionals, d.flags as Record<string, FlagSpec> | undefined, fail);
  checkStdoutProtocol(d, fail);
  // `undefined` counts as absent, as for every other optional field; only `true` (or junk) is refused.
  if (d.mcp !== undefined && d.mcp !== false) fail("mcp", "may only be false (absent means the MCP server may offer it)");
  checkHandler(d, fail);
  checkOptionalShapes(d, fail);
}

type Fail = (field: string, problem: string) => never;

function checkExitCodes(table: unknown, fail: Fail): void {
  if (typeof table !== "object" || table === null || Array.isArray(table)) {
    fail("exit_codes", "is required: a map from exit code to {name, description, retryable, side_effects}");
  }
  const entries = Object.entries(table as Record<string, unknown>);
  if (!entries.some(([code]) => code === "0")) fail("exit_codes", "must contain \"0\" (SUCCESS)");
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
    if (typeof entry.retryable !== "boolean") fail(`${field}.retryable`, "must be a boolean");
    if (!SIDE_EFFECTS.has(entry.side_effects as string)) {
      fail(`${field}.side_effects`, "must be 'none', 'partial' or 'complete'");
    }
    if (entry.retryable === true && entry.side_effects !== "none") {
      fail(`${field}.retryable`, "retryable: true requires side_effects: \"none\"");
    }
  }
}

function checkFlags(flags: unknown, fail: Fail): void {
  if (flags === undefined) return;
  if (typeof flags !== "object" || flags === null || Array.isArray(flags)) fail("flags", "must be a map of flag specs");
  const shorts = new Set<string>();
  for (const [name, raw] of Object.entries(flags as Record<string, unknown>)) {
    const field = `flags.${name}`;
    if (!KEBAB.test(name)) fail(field, "flag names are lowercase kebab-case");
    if (name.startsWith("no-")) fail(field, "a flag may not start with 'no-': --no-<flag> negates booleans");
    if (RESERVED_FLAG_NAMES.has(name)) fail(field, `--${name} is a framework flag`);
    if (typeof raw !== "object" || raw === null) fail(field, "must be an object");
    const spec = raw as Record<string, unknown>;
    if (!FLAG_TYPES.has(spec.type as FlagType)) {
      fail(`${field}.type`, "must be string, integer, number, boolean, array or enum");
    }
    if (typeof spec.description !== "string" || spec.description === "") fail(`${field}.description`, "is required");
    if (spec.required !== undefined && typeof spec.required !== "boolean") fail(`${field}.required`, "must be a boolean");
    if (spec.type === "enum" && (!isStringArray(spec.enum_values) || spec.enum_values.length === 0)) {
      fail(`${field}.enum_values`, "an enum flag needs a non-empty list of strings");
    }
    if (spec.type !== "enum" && spec.enum_values !== undefined) fail(`${field}.enum_values`, "only enum flags have enum_values");
    if (spec.default !== undefined && !defaultFits(spec as unknown as FlagSpec)) {
      fail(`${field}.default`, `does not match type ${String(spec.type)}`);
    }
    if (spec.required === true && spec.default !== undefined) fail(`${field}.default`, "a required flag has no default");
    if (spec.short !== undefined) {
      if (typeof spec.short !== "string" || !/^[a-zA-Z]$/.test(spec.short) || spec.short === "h") {
        fail(`${field}.short`, "must be one ASCII letter other than h (-h is help)");
      }
      if (shorts.has(spec.short as string)) fail(`${field}.short`, `-${String(spec.short)} is used twice`);
      shorts.add(spec.short as string);
    }
  }
}

function defaultFits(spec: FlagSpec): boolean {
  const value = spec.default;
  switch (spec.type) {
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return Number.isSafeInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "array":
      return isStringArray(value);
    case "enum":
      return typeof value === "string" && (spec.enum_values ?? []).includes(value);
    case "string":
      return typeof value === "string";
  }
}

function checkPositionals(positionals: unknown, flags: Record<string, FlagSpec> | undefined, fail: Fail): void {
  if (positionals === undefined) return;
  if (!Array.isArray(positionals)) fail("positionals", "must be an array");
  const seen = new Set<string>();
  let optionalSeen = false;
  (positionals as PositionalSpec[]).forEach((spec, index) => {
    const field = `positionals.${index}`;
    if (typeof spec?.name !== "string" || !IDENTIFIER.test(spec.name)) {
      fail(`${field}.name`, "must be a lowercase identifier ([a-z][a-z0-9_]*)");
    }
    if (seen.has(spec.name)) fail(`${field}.name`, `'${spec.name}' is used twice`);
    seen.add(spec.name);
    const asFlag = spec.name.replaceAll("_", "-");
    if (flags !== undefined && Object.hasOwn(flags, asFlag)) fail(`${field}.name`, `'${spec.name}' is also a flag`);
    if (typeof spec.description !== "string" || spec.description === "") fail(`${field}.description`, "is required");
    if (spec.type !== undefined && !["string", "integer", "number"].includes(spec.type)) {
      fail(`${field}.type`, "must be string, integer or number");
    }
    if (spec.required === false) optionalSeen = true;
    else if (optionalSeen) fail(`${field}.required`, "a required positional cannot follow an optional one");
  });
}

function checkStdoutProtocol(d: Record<string, unknown>, fail: Fail): void {
  if (d.stdout !== undefined && d.stdout !== "protocol") {
    fail("stdout", "may only be \"protocol\" (absent means stdout carries envelopes)");
  }
  if (d.stdout === "protocol" && d.protocol === undefined) {
    fail("protocol", "stdout: \"protocol\" requires a protocol name (mcp-stdio, lsp, dap, ...)");
  }
  if (d.protocol !== undefined && d.stdout !== "protocol") fail("stdout", "protocol requires stdout: \"protocol\"");
  if (d.protocol === undefined) return;
  if (typeof d.protocol !== "string" || !KEBAB.test(d.protocol)) {
    fail("protocol", "must be a lowercase kebab-case name, e.g. mcp-stdio, lsp, dap");
  }
  for (const [field, declared] of PROTOCOL_FORBIDDEN) {
    if (declared(d[field])) fail(field, `a protocol command cannot declare ${field} (REQ-C-032)`);
  }
}

function checkHandler(d: Record<string, unknown>, fail: Fail): void {
  if (d.stdout === "protocol") {
    if (typeof d.serve !== "function") fail("serve", "a protocol command needs a serve(ctx) handler");
    if (d.run !== undefined) fail("run", "a protocol command serves; it has no run handler");
    return;
  }
  if (typeof d.run !== "function") fail("run", "a command needs a run(ctx) handler");
  if (d.serve !== undefined) fail("serve", "only protocol commands (stdout: \"protocol\") serve");
}

function checkOptionalShapes(d: Record<string, unknown>, fail: Fail): void {
  if (d.aliases !== undefined && (!isStringArray(d.aliases) || !d.aliases.every((a) => KEBAB.test(a)))) {
    fail("aliases", "must be lowercase kebab-case words");
  }
  if (d.examples !== undefined) {
    const ok = Array.isArray(d.examples) &&
      d.examples.every((e) => typeof e?.description === "string" && typeof e?.command === "string");
    if (!ok) fail("examples", "must be a list of {description, command}");
  }
  if (d.timeout_seconds !== undefined && !(typeof d.timeout_seconds === "number" && d.timeout_seconds >= 0)) {
    fail("timeout_seconds", "must be a number of seconds >= 0");
  }
  if (d.arguments !== undefined && d.arguments !== "passthrough") fail("arguments", "may only be \"passthrough\"");
  if (d.stderr !== undefined && d.stderr !== "child_log") fail("stderr", "may only be \"child_log\"");
  if (d.output_schema !== undefined && (typeof d.output_schema !== "object" || d.output_schema === null)) {
    fail("output_schema", "must be a JSON Schema object");
  }
  for (const field of ["interactive", "streaming_default", "output_file", "async", "spawns_background_process", "safe_default", "idempotent", "has_network_io"]) {
    if (d[field] !== undefined && typeof d[field] !== "boolean") fail(field, "must be a boolean");
  }
  checkManifestShapes(d, fail);
}

// The manifest serialises these fields as declared, so a malformed value here would publish a manifest that
// fails the project's own manifest schema; refuse it at registration instead (SPEC §3).
function checkManifestShapes(d: Record<string, unknown>, fail: Fail): void {
  if (d.stdin !== undefined) checkStdinShape(d.stdin, fail);
  for (const field of ["output_formats", "output_media_types"]) {
    if (d[field] !== undefined && !(isStringArray(d[field]) && d[field].every((item) => item !== ""))) {
      fail(field, "must be a list of non-empty strings");
    }
  }
  if (d.cleanup_command !== undefined && (typeof d.cleanup_command !== "string" || d.cleanup_command.trim() === "")) {
    fail("cleanup_command", "must be a non-empty command line");
  }
  if (d.max_lifetime_seconds !== undefined && !(typeof d.max_lifetime_seconds === "number" && d.max_lifetime_seconds > 0)) {
    fail("max_lifetime_seconds", "must be a number of seconds > 0");
  }
  if (d.confirm_flag !== undefined && (typeof d.confirm_flag !== "string" || !KEBAB.test(d.confirm_flag))) {
    fail("confirm_flag", "must be a flag name in lowercase kebab-case, without the leading --");
  }
}

function checkStdinShape(stdin: unknown, fail: Fail): void {
  if (typeof stdin !== "object" || stdin === null || Array.isArray(stdin)) {
    fail("stdin", "must be an object {description, max_bytes?}");
  }
  const spec = stdin as Record<string, unknown>;
  const unknown = Object.keys(spec).find((key) => key !== "description" && key !== "max_bytes");
  if (unknown !== undefined) fail(`stdin.${unknown}`, "is not a stdin field (description, max_bytes)");
  if (typeof spec.description !== "string" || spec.description === "") fail("stdin.description", "is required");
  if (spec.max_bytes !== undefined && !(Number.isSafeInteger(spec.max_bytes) && (spec.max_bytes as number) > 0)) {
    fail("stdin.max_bytes", "must be a whole number of bytes > 0");
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
