import type { CommandEntry, FlagEntry } from "../contract/manifest.ts";
import { GLOBAL_FLAGS } from "../contract/framework_flags.ts";
import { NO_STYLE, type TextStyle } from "./terminal_style.ts";
import { commandWords } from "../contract/command_words.ts";

/** What help needs to know about the tool. */
export interface HelpTool {
  name: string;
  version: string;
  description: string;
}

/**
 * Help for one command: usage, flags, positionals, danger level, exit codes, examples; headings marked up
 * by `style` (bold on a terminal).
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool;
 * const entry = tool.registry.entryOf("add");
 * if (entry) console.log(commandHelp(tool, "add", entry));
 * ```
 */
export function commandHelp(
  tool: HelpTool,
  path: string,
  entry: CommandEntry,
  style: TextStyle = NO_STYLE,
): string {
  const words = commandWords(path);
  const positionals = (entry.positionals ?? []).map((p) => {
    const name = p.variadic ? `${p.name}...` : p.name;
    return p.required ? `<${name}>` : `[${name}]`;
  });
  const hasFlags = Object.keys(entry.flags).length > 0;
  const lines = [
    `${tool.name} ${words} — ${entry.description}`,
    "",
    `${style.heading("Usage:")} ${
      [tool.name, words, hasFlags ? "[flags]" : "", ...positionals].filter(Boolean).join(" ")
    }`,
  ];
  if (entry.aliases?.length) lines.push(`Aliases: ${entry.aliases.join(", ")}`);
  if (entry.positionals?.length) {
    lines.push("", style.heading("Arguments:"));
    lines.push(...table(entry.positionals.map((p) => [
      `<${p.name}${p.variadic ? "..." : ""}>`,
      `${p.description} (${p.type}${p.variadic ? ", one or more" : ""}${p.required ? "" : ", optional"})`,
    ])));
  }
  if (hasFlags) {
    lines.push("", style.heading("Flags:"));
    lines.push(
      ...table(Object.entries(entry.flags).map(([name, flag]) => [flagUsage(name, flag), flagNote(flag)])),
    );
  }
  lines.push("", style.heading("Global flags:"));
  lines.push(
    ...table(
      Object.entries(GLOBAL_FLAGS).map((
        [name, flag],
      ) => [flagUsage(name, { ...flag, required: false }), flag.description]),
    ),
  );
  const scopes = entry.required_scopes.length > 0 ? entry.required_scopes.join(", ") : "none";
  lines.push("", `Danger level: ${entry.danger_level}. Scopes: ${scopes}.`);
  if (entry.stdout === "protocol") {
    lines.push(`Speaks ${entry.protocol} on stdin/stdout until stdin closes; stderr carries diagnostics.`);
  }
  if (entry.mcp === false) lines.push("Not offered as an MCP tool: run it from the command line.");
  if (entry["x-default-format"] === "plain") {
    lines.push(
      "Prints plain text even when stdout is not a terminal; --format json gives one envelope instead.",
    );
  }
  lines.push("", style.heading("Exit codes:"));
  lines.push(
    ...table(
      Object.entries(entry.exit_codes).map(([code, e]) => [`${code.padStart(3)} ${e.name}`, e.description]),
    ),
  );
  if (entry.examples?.length) {
    lines.push("", style.heading("Examples:"));
    for (const example of entry.examples) lines.push(`  ${example.command}`, `      ${example.description}`);
  }
  return lines.join("\n");
}

/**
 * Help for the whole tool, or for a group of commands (`tool mcp --help`).
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool;
 * console.log(toolHelp(tool, Object.entries(tool.registry.entries())));
 * ```
 */
export function toolHelp(
  tool: HelpTool,
  entries: ReadonlyArray<readonly [string, CommandEntry]>,
  group?: string,
  style: TextStyle = NO_STYLE,
): string {
  const title = group === undefined
    ? `${tool.name} ${tool.version} — ${tool.description}`
    : `${tool.name} ${commandWords(group)}`;
  const lines = [
    title,
    "",
    `${style.heading("Usage:")} ${tool.name} ${
      group === undefined ? "" : `${commandWords(group)} `
    }<command> [flags]`,
    "",
    style.heading("Commands:"),
  ];
  // Code-unit order: the same under every locale, and no collation data loaded (docs/performance.md#code-shapes).
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  lines.push(
    ...table(
      sorted.map(([path, entry]) => [commandWords(path), `${entry.description} [${entry.danger_level}]`]),
    ),
  );
  lines.push("", style.heading("Global flags:"));
  lines.push(
    ...table(
      Object.entries(GLOBAL_FLAGS).map((
        [name, flag],
      ) => [flagUsage(name, { ...flag, required: false }), flag.description]),
    ),
  );
  lines.push("", `Run '${tool.name} <command> --help' for a command's flags and exit codes.`);
  return lines.join("\n");
}

function flagUsage(name: string, flag: FlagEntry): string {
  const short = flag.short === undefined ? "    " : `-${flag.short}, `;
  if (flag.type === "boolean") return `${short}--${name}`;
  const value = flag.type === "enum"
    ? (flag.enum_values ?? []).join("|")
    : `<${flag.type === "array" ? "string" : flag.type}>`;
  return `${short}--${name} ${value}${flag.type === "array" ? " ..." : ""}`;
}

function flagNote(flag: FlagEntry): string {
  const notes: string[] = [];
  if (flag.required) notes.push("required");
  if (flag.default !== undefined) notes.push(`default: ${JSON.stringify(flag.default)}`);
  if (flag.type === "array") notes.push("repeatable");
  return notes.length > 0 ? `${flag.description} (${notes.join("; ")})` : flag.description;
}

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
