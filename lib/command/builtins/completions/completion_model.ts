import type { FlagSpec } from "../../contract/command_definition.ts";
import type { CommandEntry } from "../../contract/manifest.ts";

/** A flag as a completion script offers it. */
export interface CompletionFlag {
  /** The long form, `--title`. */
  long: string;
  /** The short form, `-n`, when the flag has one. */
  short?: string;
  /** Whether the next word is the flag's value (every type but boolean). */
  takesValue: boolean;
  /** The values an enum flag accepts; empty for free text, which shells complete as file names. */
  values: readonly string[];
  /** What the flag controls. */
  description: string;
}

/** A word that may follow a command node. */
export interface CompletionWord {
  word: string;
  description: string;
}

/**
 * Everything a completion script needs, from a manifest: the command tree (the words to offer, aliases among
 * them, each leading to its command), each command's flags, and the global flags.
 */
export interface CompletionModel {
  /** The program name the script completes. */
  program: string;
  /** A stem for shell function names: the program name with every character outside `[A-Za-z0-9_]` made `_`. */
  ident: string;
  /** Command node (dotted path, `""` at the top) → the words that may follow it, sorted. */
  children: ReadonlyMap<string, readonly CompletionWord[]>;
  /** `"<node>/<word>"` → the node that word leads to; aliases lead to their command. */
  steps: ReadonlyMap<string, string>;
  /** Command path → the flags it takes, its own and the framework's per-command ones. */
  flags: ReadonlyMap<string, readonly CompletionFlag[]>;
  /** The flags every invocation takes. */
  globalFlags: readonly CompletionFlag[];
}

/**
 * The spellings of a flag a shell offers: the long form, then the short one when there is one.
 *
 * @example
 * ```ts
 * flagForms({ long: "--limit", short: "-n", takesValue: true, values: [], description: "" }); // ["--limit", "-n"]
 * ```
 */
export function flagForms(flag: CompletionFlag): string[] {
  return flag.short === undefined ? [flag.long] : [flag.long, flag.short];
}

/**
 * A description on one line, as a completion menu shows it: every run of white space one space.
 *
 * @example
 * ```ts
 * oneLine("Show\n  every note"); // "Show every note"
 * ```
 */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * A name made safe as a shell function name in bash, zsh and fish: every character outside `[A-Za-z0-9_]`
 * becomes `_`, and a leading digit gets a `_` before it.
 *
 * @example
 * ```ts
 * shellIdentifier("my-tool"); // "my_tool"
 * ```
 */
export function shellIdentifier(name: string): string {
  const ident = name.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z_]/.test(ident) ? ident : `_${ident}`;
}

/**
 * Builds the completion model of a tool from its manifest's `commands` and the global flags.
 *
 * @example
 * ```ts
 * import type { Manifest } from "@toolwire/toolwire";
 * import { GLOBAL_FLAGS } from "../../contract/framework_flags.ts";
 *
 * declare const manifest: Manifest; // the data of `notes manifest`
 * const model = completionModel("notes", manifest.commands, GLOBAL_FLAGS);
 * model.children.get("")?.map((child) => child.word); // ["add", "completions", …, "mcp", …]
 * ```
 */
export function completionModel(
  program: string,
  commands: Readonly<Record<string, CommandEntry>>,
  globalFlags: Readonly<Record<string, FlagSpec>>,
): CompletionModel {
  const children = new Map<string, Map<string, string>>();
  const steps = new Map<string, string>();
  const flags = new Map<string, CompletionFlag[]>();
  const add = (node: string, word: string, description: string | undefined) => {
    const words = children.get(node) ?? new Map<string, string>();
    children.set(node, words);
    if (description !== undefined || !words.has(word)) words.set(word, description ?? "");
  };
  for (const [path, entry] of Object.entries(commands)) {
    const words = path.split(".");
    words.forEach((word, index) => {
      const node = words.slice(0, index).join(".");
      const next = words.slice(0, index + 1).join(".");
      steps.set(`${node}/${word}`, next);
      add(node, word, index === words.length - 1 ? entry.description : undefined);
    });
    const parent = words.slice(0, -1).join(".");
    for (const alias of entry.aliases ?? []) {
      steps.set(`${parent}/${alias}`, path);
      add(parent, alias, `${entry.description} (alias of ${words.at(-1)})`);
    }
    flags.set(path, Object.entries(entry.flags).map(([name, spec]) => completionFlag(name, spec)));
  }
  const sorted = new Map<string, CompletionWord[]>();
  for (const [node, words] of children) {
    const list = [...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    sorted.set(
      node,
      list.map(([word, description]) => ({
        word,
        description: description || groupDescription(node, word, children),
      })),
    );
  }
  return {
    program,
    ident: shellIdentifier(program),
    children: sorted,
    steps,
    flags,
    globalFlags: Object.entries(globalFlags).map(([name, spec]) => completionFlag(name, spec)),
  };
}

function completionFlag(
  name: string,
  spec: Pick<FlagSpec, "type" | "short" | "enum_values" | "description">,
): CompletionFlag {
  return {
    long: `--${name}`,
    ...(spec.short === undefined ? {} : { short: `-${spec.short}` }),
    takesValue: spec.type !== "boolean",
    values: spec.enum_values ?? [],
    description: spec.description,
  };
}

// A word that only groups commands (`mcp`) has no description of its own: name what it leads to.
function groupDescription(
  node: string,
  word: string,
  children: ReadonlyMap<string, ReadonlyMap<string, string>>,
): string {
  const below = children.get(node === "" ? word : `${node}.${word}`);
  return below === undefined ? "" : `Commands: ${[...below.keys()].sort().join(", ")}`;
}
