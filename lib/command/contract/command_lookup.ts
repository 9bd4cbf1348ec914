import type { FlagSpec } from "./command_definition.ts";

/**
 * What the argv parser needs to know about the registered commands: the registry's view for it
 * (`registry.commandLookup()`), so that the parser depends on this shape and not on the registry.
 *
 * @example
 * ```ts
 * import type { CommandRegistry } from "./registry.ts";
 *
 * declare const registry: CommandRegistry;
 * const lookup: CommandLookup = registry.commandLookup();
 * lookup.resolve(["mcp", "serve"]); // "mcp.serve"
 * ```
 */
export interface CommandLookup {
  /** The global flags, accepted before, between or after the command words. */
  globalFlags: Readonly<Record<string, FlagSpec>>;
  /** Whether these words are a command path (or an alias) or the beginning of one. */
  continues(words: readonly string[]): boolean;
  /** The canonical dotted path these exact words name, if any. */
  resolve(words: readonly string[]): string | undefined;
  /** Every flag the command accepts, its own and the framework's. */
  flagsOf(path: string): Readonly<Record<string, FlagSpec>>;
  /** Why the command refuses a framework flag it does not take (a protocol command and `--dry-run`). */
  refusal(path: string, flag: string): string | undefined;
  /** The canonical paths, for "did you mean". */
  paths(): Iterable<string>;
}
