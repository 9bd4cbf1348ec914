import { closestMatch } from "../input/closest_match.ts";
import type { FlagSpec } from "../contract/command_definition.ts";
import { coerceText, type InputIssue, quote } from "../input/input_values.ts";
import { commandWords } from "../contract/command_words.ts";
import type { CommandLookup } from "../contract/command_lookup.ts";

/** An argv, split and typed. Nothing here has run yet. */
export interface ParsedArgv {
  /** The command words as typed. */
  words: string[];
  /** The canonical dotted path, when the words name a command. */
  path?: string;
  /** Flag values by name: global and command flags alike, coerced to their declared types. */
  given: Map<string, unknown>;
  /** Positional arguments, as text. */
  positionals: string[];
  /** Everything wrong, collected — never just the first problem (REQ-C-006). */
  issues: InputIssue[];
}

const NEGATIVE_NUMBER = /^-\d/;

/**
 * Splits argv into command words, flags and positionals, and types every flag value. Handles `--a=b`,
 * `--a b`, `--no-a`, short flags (`-n 5`, `-n5`, `-abc`), `--`, repeated array flags, and global flags before
 * or after the command words. Every problem is collected as an {@linkcode InputIssue}.
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool; // with an `add` command that takes --title
 * const parsed = parseArgv(["--format", "json", "add", "--title", "x"], tool.registry.commandLookup());
 * parsed.path; // "add"
 * parsed.given.get("title"); // "x"
 * ```
 */
export function parseArgv(argv: readonly string[], commands: CommandLookup): ParsedArgv {
  const parsed: ParsedArgv = { words: [], given: new Map(), positionals: [], issues: [] };
  let specs: Readonly<Record<string, FlagSpec>> = commands.globalFlags;
  let resolving = true;
  let index = 0;

  const finishWords = () => {
    resolving = false;
    if (parsed.words.length === 0) return;
    parsed.path = commands.resolve(parsed.words);
    if (parsed.path !== undefined) specs = { ...commands.globalFlags, ...commands.flagsOf(parsed.path) };
  };

  while (index < argv.length) {
    const token = argv[index]!;
    index++;
    if (token === "--") {
      if (resolving) finishWords();
      parsed.positionals.push(...argv.slice(index));
      break;
    }
    if (token.startsWith("-") && token !== "-" && !(NEGATIVE_NUMBER.test(token) && !hasDigitShort(specs))) {
      // A command's own flag ends the command words; a global flag may sit between them (`mcp --format json serve`).
      if (resolving && commands.resolve(parsed.words) !== undefined && !isGlobalFlag(token, commands)) {
        finishWords();
      }
      const next = () => (index < argv.length ? argv[index++] : undefined);
      const peek = () => argv[index];
      readFlag(token, specs, parsed, { next, peek, refusal: (name) => refusal(commands, parsed.path, name) });
      continue;
    }
    if (resolving && commands.continues([...parsed.words, token])) {
      parsed.words.push(token);
      continue;
    }
    if (resolving) finishWords();
    parsed.positionals.push(token);
  }
  if (resolving) finishWords();

  if (parsed.path === undefined && parsed.words.length === 0 && parsed.positionals.length > 0) {
    const unknown = parsed.positionals.shift()!;
    const near = closestMatch(unknown, [...commands.paths()].map(commandWords));
    parsed.issues.unshift({
      field: unknown,
      message: `unknown command ${quote(unknown)}`,
      ...(near === undefined ? {} : { suggestion: `did you mean '${near}'?` }),
    });
  }
  return parsed;
}

function refusal(commands: CommandLookup, path: string | undefined, name: string): string | undefined {
  return path === undefined ? undefined : commands.refusal(path, name);
}

function isGlobalFlag(token: string, commands: CommandLookup): boolean {
  if (!token.startsWith("--")) {
    // Only a cluster made entirely of global letters may sit between command words: in `list -hv` the `v` is
    // the command's, so the command words end there and `-v` is read against the command's flags.
    const shorts = new Set(Object.values(commands.globalFlags).map((spec) => spec.short));
    const eq = token.indexOf("=");
    return [...token.slice(1, eq === -1 ? undefined : eq)].every((letter) => shorts.has(letter));
  }
  const eq = token.indexOf("=");
  const name = token.slice(2, eq === -1 ? undefined : eq);
  return Object.hasOwn(commands.globalFlags, name);
}

function hasDigitShort(specs: Readonly<Record<string, FlagSpec>>): boolean {
  return Object.values(specs).some((spec) => spec.short !== undefined && /\d/.test(spec.short));
}

interface TokenCursor {
  next(): string | undefined;
  peek(): string | undefined;
  refusal(name: string): string | undefined;
}

function readFlag(
  token: string,
  specs: Readonly<Record<string, FlagSpec>>,
  parsed: ParsedArgv,
  cursor: TokenCursor,
): void {
  if (token.startsWith("--")) {
    const eq = token.indexOf("=");
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    readLongFlag(name, inline, specs, parsed, cursor);
    return;
  }
  readShortFlags(token.slice(1), specs, parsed, cursor);
}

function readLongFlag(
  name: string,
  inline: string | undefined,
  specs: Readonly<Record<string, FlagSpec>>,
  parsed: ParsedArgv,
  cursor: TokenCursor,
): void {
  const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
  if (spec === undefined && name.startsWith("no-")) {
    const positive = name.slice(3);
    const negated = Object.hasOwn(specs, positive) ? specs[positive] : undefined;
    if (negated?.type === "boolean") {
      if (inline !== undefined) {
        parsed.issues.push({ field: `--${name}`, message: `--${name} takes no value, got ${quote(inline)}` });
      } else store(parsed, positive, negated, false);
      return;
    }
  }
  if (spec === undefined) {
    unknownFlag(`--${name}`, name, specs, parsed, cursor);
    return;
  }
  if (spec.type === "boolean") {
    if (inline === undefined) store(parsed, name, spec, true);
    else assign(parsed, name, spec, `--${name}`, inline);
    return;
  }
  const value = inline ?? takeValue(cursor);
  if (value === undefined) {
    parsed.issues.push({
      field: `--${name}`,
      message: `--${name} expects a value`,
      suggestion: usageHint(name, spec),
    });
    return;
  }
  assign(parsed, name, spec, `--${name}`, value);
}

function readShortFlags(
  cluster: string,
  specs: Readonly<Record<string, FlagSpec>>,
  parsed: ParsedArgv,
  cursor: TokenCursor,
): void {
  const eq = cluster.indexOf("=");
  const letters = eq === -1 ? cluster : cluster.slice(0, eq);
  const inline = eq === -1 ? undefined : cluster.slice(eq + 1);
  for (let i = 0; i < letters.length; i++) {
    const letter = letters[i]!;
    const entry = Object.entries(specs).find(([, spec]) => spec.short === letter);
    if (entry === undefined) {
      unknownFlag(`-${letter}`, letter, specs, parsed, cursor);
      return;
    }
    const [name, spec] = entry;
    const rest = letters.slice(i + 1);
    const last = rest.length === 0;
    if (spec.type === "boolean") {
      if (last && inline !== undefined) assign(parsed, name, spec, `-${letter}`, inline);
      else store(parsed, name, spec, true);
      continue;
    }
    // A value flag ends the cluster: `-n5` or `-n 5` or `-n=5`.
    const value = !last ? rest : inline ?? takeValue(cursor);
    if (value === undefined) {
      parsed.issues.push({
        field: `-${letter}`,
        message: `-${letter} expects a value`,
        suggestion: usageHint(name, spec),
      });
    } else assign(parsed, name, spec, `-${letter}`, value);
    return;
  }
}

function takeValue(cursor: TokenCursor): string | undefined {
  const candidate = cursor.peek();
  if (candidate === undefined) return undefined;
  if (candidate.startsWith("-") && candidate !== "-" && !NEGATIVE_NUMBER.test(candidate)) return undefined;
  return cursor.next();
}

function unknownFlag(
  written: string,
  name: string,
  specs: Readonly<Record<string, FlagSpec>>,
  parsed: ParsedArgv,
  cursor: TokenCursor,
): void {
  const refused = cursor.refusal(name);
  if (refused !== undefined) {
    parsed.issues.push({ field: written, message: refused });
    return;
  }
  const near = closestMatch(name, Object.keys(specs));
  parsed.issues.push({
    field: written,
    message: `unknown flag ${written}`,
    ...(near === undefined ? {} : { suggestion: `did you mean --${near}?` }),
  });
}

function assign(parsed: ParsedArgv, name: string, spec: FlagSpec, written: string, text: string): void {
  const coerced = coerceText(written, spec, text);
  if ("issue" in coerced) parsed.issues.push(coerced.issue);
  else store(parsed, name, spec, coerced.value);
}

function store(parsed: ParsedArgv, name: string, spec: FlagSpec, value: unknown): void {
  if (spec.type === "array") {
    const previous = (parsed.given.get(name) as string[] | undefined) ?? [];
    parsed.given.set(name, [...previous, ...(value as string[])]);
    return;
  }
  if (parsed.given.has(name)) {
    parsed.issues.push({ field: `--${name}`, message: `--${name} was given more than once` });
    return;
  }
  parsed.given.set(name, value);
}

function usageHint(name: string, spec: FlagSpec): string {
  if (spec.type === "enum") return `pass --${name}=<${(spec.enum_values ?? []).join("|")}>`;
  return `pass --${name}=<${spec.type}>`;
}
