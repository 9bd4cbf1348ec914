import { closestMatch } from "./closest_match.ts";
import type { FlagSpec, PositionalSpec } from "../contract/command_definition.ts";
import { copyJson, SAFE_INTEGER_RANGE } from "../../json.ts";

/** One thing wrong with an invocation's input; all of them are collected before anything runs. */
export interface InputIssue {
  /** The flag or argument at fault, as the caller wrote it (`--limit`, `<id>`, `limit`). */
  field: string;
  /** What is wrong, e.g. `--read-only expects a boolean, got 'maybe'`. */
  message: string;
  /** What would be right. */
  suggestion?: string;
}

/** Validated input, the same whether it came from argv or from an MCP `tools/call`. */
export interface CommandInput {
  /** Flag values by flag name (kebab-case). */
  flags: Record<string, unknown>;
  /** Positional values by name. */
  args: Record<string, unknown>;
}

type Coerced = { value: unknown } | { issue: InputIssue };

const INTEGER_TEXT = /^[+-]?\d+$/;
const SAFE_INTEGER = `an integer ${SAFE_INTEGER_RANGE}`;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Converts one flag value written on the command line into its declared type.
 *
 * @example
 * ```ts
 * coerceText("--limit", { type: "integer" }, "5"); // { value: 5 }
 * ```
 */
export function coerceText(
  label: string,
  spec: Pick<FlagSpec, "type" | "enum_values">,
  text: string,
): Coerced {
  switch (spec.type) {
    case "boolean":
      if (text === "true") return { value: true };
      if (text === "false") return { value: false };
      return { issue: invalid(label, "a boolean", text, "use true or false") };
    case "integer": {
      const value = Number(text);
      if (INTEGER_TEXT.test(text) && Number.isSafeInteger(value)) return { value };
      return { issue: invalid(label, INTEGER_TEXT.test(text) ? SAFE_INTEGER : "an integer", text) };
    }
    case "number": {
      const value = Number(text);
      if (NUMBER_TEXT.test(text) && Number.isFinite(value)) return { value };
      return { issue: invalid(label, "a number", text) };
    }
    case "enum": {
      const issue = enumIssue(label, spec.enum_values ?? [], text);
      return issue === undefined ? { value: text } : { issue };
    }
    case "array":
      return { value: [text] };
    case "string":
      return { value: text };
  }
}

/**
 * Checks one flag value that arrived as JSON (an MCP tool argument) against its declared type.
 *
 * @example
 * ```ts
 * coerceJson("limit", { type: "integer" }, 5); // { value: 5 }
 * ```
 */
export function coerceJson(
  label: string,
  spec: Pick<FlagSpec, "type" | "enum_values">,
  value: unknown,
): Coerced {
  const issues: InputIssue[] = [];
  const accepted = checkJson(label, spec, value, issues);
  return issues.length === 0 ? { value: accepted } : { issue: issues[0]! };
}

/**
 * {@linkcode coerceJson} for a caller that checks many values per call and collects their issues: the value
 * as the command receives it (an array copied, so a handler that changes it changes nothing of the
 * caller's), or `undefined` — which it never accepts — after pushing what is wrong onto `issues`.
 *
 * @example
 * ```ts
 * const issues: InputIssue[] = [];
 * checkJson("limit", { type: "integer" }, "5", issues); // undefined
 * issues[0]?.message; // "limit expects an integer, got '5'"
 * ```
 */
export function checkJson(
  label: string,
  spec: Pick<FlagSpec, "type" | "enum_values">,
  value: unknown,
  issues: InputIssue[],
): unknown {
  let issue: InputIssue | undefined;
  switch (spec.type) {
    case "boolean":
      if (typeof value === "boolean") return value;
      issue = invalid(label, "a boolean", value);
      break;
    case "integer":
      if (Number.isSafeInteger(value)) return value;
      issue = invalid(label, Number.isInteger(value) ? SAFE_INTEGER : "an integer", value);
      break;
    case "number":
      if (typeof value === "number" && Number.isFinite(value)) return value;
      issue = invalid(label, "a number", value);
      break;
    case "enum":
      issue = typeof value === "string"
        ? enumIssue(label, spec.enum_values ?? [], value)
        : invalid(label, "a string", value);
      if (issue === undefined) return value;
      break;
    case "array":
      if (Array.isArray(value) && value.every((item) => typeof item === "string")) return [...value];
      issue = invalid(label, "an array of strings", value);
      break;
    case "string":
      if (typeof value === "string") return value;
      issue = invalid(label, "a string", value);
  }
  issues.push(issue);
  return undefined;
}

function enumIssue(label: string, allowed: readonly string[], text: string): InputIssue | undefined {
  if (allowed.includes(text)) return undefined;
  const near = closestMatch(text, allowed);
  return {
    field: label,
    message: `${label} expects one of ${allowed.join(", ")}, got ${quote(text)}`,
    ...(near === undefined ? {} : { suggestion: `did you mean ${quote(near)}?` }),
  };
}

function invalid(label: string, expected: string, got: unknown, suggestion?: string): InputIssue {
  return {
    field: label,
    message: `${label} expects ${expected}, got ${quote(got)}`,
    ...(suggestion === undefined ? {} : { suggestion }),
  };
}

/** How many characters of a received value an error message shows. */
const QUOTED_CHARS = 60;

/**
 * Renders a received value for an error message: short, single-quoted text, or JSON for non-strings. Only
 * the start of the value is rendered, without recursion: a client's argument nested 100,000 levels deep,
 * or 8 MB long, costs a few dozen steps here, never a stack overflow.
 *
 * @example
 * ```ts
 * quote("maybe"); // "'maybe'"
 * quote({ a: [1, 2] }); // '{"a":[1,2]}'
 * ```
 */
export function quote(value: unknown): string {
  const text = typeof value === "string" ? value : jsonStart(value, QUOTED_CHARS + 1);
  const short = text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS - 3)}...` : text;
  return typeof value === "string" ? `'${short}'` : short;
}

type Piece = { literal: string } | { value: unknown };

/**
 * At least the first `limit` characters of `JSON.stringify(value)` (all of it when shorter), walked with an
 * explicit stack. Each array element and object member adds a character or more, so no container needs more
 * than `limit` of them, and the walk stops once the text is long enough.
 */
function jsonStart(value: unknown, limit: number): string {
  // A number too large for a double (1e309 in JSON) parses as Infinity, which JSON.stringify would call null.
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return String(value);
  let text = "";
  const pending: Piece[] = [{ value }];
  while (pending.length > 0 && text.length < limit) {
    const piece = pending.pop()!;
    if ("literal" in piece) {
      text += piece.literal;
      continue;
    }
    const item = piece.value;
    if (typeof item !== "object" || item === null) {
      text += scalarJson(item, limit);
      continue;
    }
    const members: Piece[][] = [];
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length && i < limit; i++) members.push([{ value: item[i] }]);
    } else {
      for (const key in item) {
        if (members.length >= limit) break;
        const member = (item as Record<string, unknown>)[key];
        if (!Object.hasOwn(item, key) || !serialisedInObject(member)) continue;
        members.push([{ literal: `${JSON.stringify(key)}:` }, { value: member }]);
      }
    }
    const [open, close] = Array.isArray(item) ? ["[", "]"] : ["{", "}"];
    text += open;
    pending.push({ literal: close });
    for (let i = members.length - 1; i >= 0; i--) {
      pending.push(...members[i]!.reverse());
      if (i > 0) pending.push({ literal: "," });
    }
  }
  return text;
}

/** A scalar as `JSON.stringify` writes it inside a container (`null` for what JSON cannot hold). */
function scalarJson(value: unknown, limit: number): string {
  if (typeof value === "string") return JSON.stringify(value.length > limit ? value.slice(0, limit) : value);
  if (typeof value === "bigint") return String(value);
  return JSON.stringify(value) ?? "null";
}

function serialisedInObject(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/**
 * Applies defaults and required-flag checks once every given flag is coerced. Booleans default to `false`
 * and arrays to `[]`, so handlers never see them undefined.
 *
 * @example
 * ```ts
 * const issues: InputIssue[] = [];
 * const specs = { limit: { type: "integer", description: "How many", default: 10 } } as const;
 * const flags = completeFlags(specs, new Map(), issues, (name) => `--${name}`); // { limit: 10 }
 * ```
 */
export function completeFlags(
  specs: Readonly<Record<string, FlagSpec>>,
  given: Map<string, unknown>,
  issues: InputIssue[],
  label: (name: string) => string,
): Record<string, unknown> {
  const flags: Record<string, unknown> = Object.create(null);
  // for…in, not Object.entries: no array per call (this runs for every MCP call), and V8 caches the keys.
  for (const name in specs) {
    if (!Object.hasOwn(specs, name)) continue;
    const spec = specs[name]!;
    if (given.has(name)) flags[name] = given.get(name);
    else completeAbsentFlag(flags, name, spec, issues, label(name));
  }
  return flags;
}

/**
 * Fills in one flag the invocation did not give: its default, `false` for a boolean, `[]` for an array, or,
 * for a required flag, an issue labelled `label`; any other flag stays absent.
 *
 * @example
 * ```ts
 * const flags: Record<string, unknown> = {};
 * completeAbsentFlag(flags, "tag", { type: "array", description: "Tags" }, [], "--tag"); // flags.tag: []
 * ```
 */
export function completeAbsentFlag(
  flags: Record<string, unknown>,
  name: string,
  spec: FlagSpec,
  issues: InputIssue[],
  label: string,
): void {
  // A default object (an array) is copied: a handler that changes it must not change the next call's.
  if (spec.default !== undefined) {
    flags[name] = typeof spec.default === "object" ? copyJson(spec.default) : spec.default;
  } else if (spec.required) issues.push({ field: label, message: `${label} is required` });
  else if (spec.type === "boolean") flags[name] = false;
  else if (spec.type === "array") flags[name] = [];
}

/** What a command without positionals gets: one shared empty object, frozen so no call can change it. */
const NO_ARGUMENTS: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/**
 * Validates positional values in declaration order, collecting every problem. A variadic last positional
 * takes every remaining value — from the command line, the rest of the words; from JSON (MCP), one array —
 * and always yields an array.
 *
 * @example
 * ```ts
 * const issues: InputIssue[] = [];
 * const args = completePositionals([{ name: "id", description: "", type: "integer" }], ["7"], issues, "text");
 * ```
 */
export function completePositionals(
  specs: readonly PositionalSpec[],
  values: readonly unknown[],
  issues: InputIssue[],
  source: "text" | "json",
  label: (name: string) => string = (name) => `<${name}>`,
): Record<string, unknown> {
  if (specs.length === 0 && values.length === 0) return NO_ARGUMENTS;
  const args: Record<string, unknown> = Object.create(null);
  specs.forEach((spec, index) => {
    const name = label(spec.name);
    if (spec.variadic === true) {
      const given = source === "text" ? values.slice(index) : values[index];
      args[spec.name] = variadicValues(spec, name, given, issues, source);
      return;
    }
    if (index >= values.length || values[index] === undefined) {
      if (spec.required !== false) issues.push({ field: name, message: `missing argument ${name}` });
      return;
    }
    const coerced = coercePositional(spec, name, values[index], source);
    if ("issue" in coerced) issues.push(coerced.issue);
    else args[spec.name] = coerced.value;
  });
  const taken = specs.at(-1)?.variadic === true ? values.length : specs.length;
  for (const extra of values.slice(taken)) {
    issues.push({ field: quote(extra), message: `unexpected argument ${quote(extra)}` });
  }
  return args;
}

function variadicValues(
  spec: PositionalSpec,
  name: string,
  given: unknown,
  issues: InputIssue[],
  source: "text" | "json",
): unknown[] {
  const list = given ?? [];
  if (!Array.isArray(list)) {
    issues.push({
      field: name,
      message: `${name} expects an array of ${spec.type ?? "string"} values, got ${quote(list)}`,
    });
    return [];
  }
  if (list.length === 0 && spec.required !== false) {
    issues.push({ field: name, message: `missing argument ${name}: at least one value is required` });
  }
  const out: unknown[] = [];
  list.forEach((item, index) => {
    const coerced = coercePositional(spec, source === "json" ? `${name}[${index}]` : name, item, source);
    if ("issue" in coerced) issues.push(coerced.issue);
    else out.push(coerced.value);
  });
  return out;
}

function coercePositional(
  spec: PositionalSpec,
  name: string,
  value: unknown,
  source: "text" | "json",
): Coerced {
  const flagLike = { type: spec.type ?? "string" } as const;
  return source === "text" ? coerceText(name, flagLike, String(value)) : coerceJson(name, flagLike, value);
}
