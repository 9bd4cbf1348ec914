/**
 * The registration rules of a command's flags and positionals: names, types, defaults, short forms, and
 * that a protocol command takes none of the framework's per-invocation flags.
 * @module
 */
import type { FlagSpec, FlagType, PositionalSpec } from "./command_definition.ts";
import { COMMAND_FRAMEWORK_FLAGS, GLOBAL_FLAGS, RESERVED_FLAG_NAMES } from "./framework_flags.ts";
import { checkKnownFields, type Fail, isStringArray, KEBAB, type Subject } from "./rule_kit.ts";
import { isRecord } from "../../json.ts";

const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
const FLAG_TYPES = new Set<FlagType>(["string", "integer", "number", "boolean", "array", "enum"]);

const FLAG_FIELDS = new Set(["type", "description", "required", "default", "enum_values", "short"]);

/** Checks a command's flags (a definition's or an entry's). */
export function checkFlags(flags: unknown, fail: Fail, subject: Subject, protocol: boolean): void {
  if (flags === undefined) {
    if (subject === "entry") {
      fail("flags", "is required: a map of flag entries ({} when the command takes none)");
    }
    return;
  }
  if (!isRecord(flags)) fail("flags", "must be a map of flag specs");
  const shorts = new Set<string>();
  for (const [name, raw] of Object.entries(flags as Record<string, unknown>)) {
    const field = `flags.${name}`;
    if (!KEBAB.test(name)) fail(field, "flag names are lowercase kebab-case");
    if (name.startsWith("no-")) fail(field, "a flag may not start with 'no-': --no-<flag> negates booleans");
    checkFlagName(name, field, fail, subject, protocol);
    if (typeof raw !== "object" || raw === null) fail(field, "must be an object");
    const spec = raw as Record<string, unknown>;
    if (!FLAG_TYPES.has(spec.type as FlagType)) {
      fail(`${field}.type`, "must be string, integer, number, boolean, array or enum");
    }
    if (typeof spec.description !== "string" || spec.description === "") {
      fail(`${field}.description`, "is required");
    }
    // A manifest entry always states `required`; a definition may leave it out.
    if ((spec.required !== undefined || subject === "entry") && typeof spec.required !== "boolean") {
      fail(`${field}.required`, "must be a boolean");
    }
    if (spec.type === "enum" && (!isStringArray(spec.enum_values) || spec.enum_values.length === 0)) {
      fail(`${field}.enum_values`, "an enum flag needs a non-empty list of strings");
    }
    if (spec.type !== "enum" && spec.enum_values !== undefined) {
      fail(`${field}.enum_values`, "only enum flags have enum_values");
    }
    if (spec.default !== undefined && !defaultFits(spec as unknown as FlagSpec)) {
      fail(`${field}.default`, `does not match type ${String(spec.type)}`);
    }
    if (spec.required === true && spec.default !== undefined) {
      fail(`${field}.default`, "a required flag has no default");
    }
    if (spec.short !== undefined) {
      if (typeof spec.short !== "string" || !/^[a-zA-Z]$/.test(spec.short) || spec.short === "h") {
        fail(`${field}.short`, "must be one ASCII letter other than h (-h is help)");
      }
      if (shorts.has(spec.short as string)) fail(`${field}.short`, `-${String(spec.short)} is used twice`);
      shorts.add(spec.short as string);
    }
    if (subject === "entry") checkKnownFields(spec, FLAG_FIELDS, field, fail);
  }
}

/**
 * A definition may use no framework flag name; a manifest entry lists the framework's per-command flags
 * (`--dry-run`, …) with the command's own, but never a global flag, and a protocol command takes none of them
 * (REQ-C-032).
 */
function checkFlagName(name: string, field: string, fail: Fail, subject: Subject, protocol: boolean): void {
  if (subject === "definition") {
    if (RESERVED_FLAG_NAMES.has(name)) fail(field, `--${name} is a framework flag`);
    return;
  }
  if (Object.hasOwn(GLOBAL_FLAGS, name)) {
    fail(field, `--${name} is a global flag; the manifest does not list it per command`);
  }
  if (protocol && Object.hasOwn(COMMAND_FRAMEWORK_FLAGS, name)) {
    fail(
      field,
      `a protocol command does not accept --${name}: it serves a protocol, not a one-shot invocation`,
    );
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

const POSITIONAL_FIELDS = new Set(["name", "description", "type", "required", "variadic"]);

/** Checks a command's positionals against each other and its flags. */
export function checkPositionals(positionals: unknown, flags: unknown, fail: Fail, subject: Subject): void {
  if (!Array.isArray(positionals)) fail("positionals", "must be an array");
  const seen = new Set<string>();
  let optionalSeen = false;
  const last = (positionals as unknown[]).length - 1;
  (positionals as PositionalSpec[]).forEach((spec, index) => {
    const field = `positionals.${index}`;
    if (typeof spec?.name !== "string" || !IDENTIFIER.test(spec.name)) {
      fail(`${field}.name`, "must be a lowercase identifier ([a-z][a-z0-9_]*)");
    }
    if (seen.has(spec.name)) fail(`${field}.name`, `'${spec.name}' is used twice`);
    seen.add(spec.name);
    const asFlag = spec.name.replaceAll("_", "-");
    if (isRecord(flags) && Object.hasOwn(flags, asFlag)) {
      fail(`${field}.name`, `'${spec.name}' is also a flag`);
    }
    if (typeof spec.description !== "string" || spec.description === "") {
      fail(`${field}.description`, "is required");
    }
    // A manifest entry always states `type` and `required`; a definition may leave them to their defaults.
    if (
      (spec.type !== undefined || subject === "entry") &&
      !["string", "integer", "number"].includes(spec.type as string)
    ) {
      fail(`${field}.type`, "must be string, integer or number");
    }
    if (subject === "entry" && typeof spec.required !== "boolean") {
      fail(`${field}.required`, "must be a boolean");
    }
    if (spec.variadic !== undefined && typeof spec.variadic !== "boolean") {
      fail(`${field}.variadic`, "must be a boolean");
    }
    if (spec.variadic === true && index !== last) {
      fail(
        `${field}.variadic`,
        "only the last positional may be variadic: it takes every remaining argument",
      );
    }
    if (spec.required === false) optionalSeen = true;
    else if (optionalSeen) fail(`${field}.required`, "a required positional cannot follow an optional one");
    if (subject === "entry") {
      checkKnownFields(spec as unknown as Record<string, unknown>, POSITIONAL_FIELDS, field, fail);
    }
  });
}
