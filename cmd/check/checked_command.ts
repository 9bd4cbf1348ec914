/**
 * The CLI under check as its manifest describes it: its commands, and how the report names them.
 */
import { isRecord } from "../../lib/bridge/mod.ts";

/** A manifest entry as read from another program: checked field by field before any use. */
export type Entry = Record<string, unknown>;

/** One command of the CLI under check. */
export interface CheckedCommand {
  /** The dotted path, the manifest's key. */
  path: string;
  /** The command words that run it. */
  words: string[];
  /** Its manifest entry. */
  entry: Entry;
}

/**
 * The commands of a manifest's `commands` map whose entry is at least an object.
 *
 * @example
 * ```ts
 * commandsOf({ "mcp.serve": { stdout: "protocol" } })[0]?.words; // ["mcp", "serve"]
 * ```
 */
export function commandsOf(commands: Record<string, unknown>): CheckedCommand[] {
  return Object.entries(commands)
    .filter((pair): pair is [string, Entry] => isRecord(pair[1]))
    .map(([path, entry]) => ({ path, words: path.split("."), entry }));
}

/**
 * Whether a command declares itself a protocol server (`stdout: "protocol"`).
 *
 * @example
 * ```ts
 * isProtocol({ path: "lsp", words: ["lsp"], entry: { stdout: "protocol" } }); // true
 * ```
 */
export function isProtocol(command: CheckedCommand): boolean {
  return command.entry.stdout === "protocol";
}

/**
 * Whether a command's manifest entry declares an exit code.
 *
 * @example
 * ```ts
 * declaresExit({ path: "lsp", words: ["lsp"], entry: { exit_codes: { "0": {} } } }, 0); // true
 * ```
 */
export function declaresExit(command: CheckedCommand, code: number): boolean {
  return isRecord(command.entry.exit_codes) && Object.hasOwn(command.entry.exit_codes, String(code));
}

/**
 * A command as the report names it: its words.
 *
 * @example
 * ```ts
 * show({ path: "mcp.serve", words: ["mcp", "serve"], entry: {} }); // "mcp serve"
 * ```
 */
export function show(command: CheckedCommand): string {
  return command.words.join(" ");
}
