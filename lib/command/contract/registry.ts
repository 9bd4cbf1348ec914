import type { CommandLookup } from "../cli/argv_parser.ts";
import type {
  AnyCommandDefinition,
  CommandDefinition,
  DangerLevel,
  FlagSpec,
  PositionalSpec,
  ProtocolCommandDefinition,
} from "./contract.ts";
import { RegistrationError } from "./command_error.ts";
import { frameworkFlagsFor, GLOBAL_FLAGS, protocolRefusal } from "./framework_flags.ts";
import { assembleManifest, type CommandEntry, type Manifest, manifestEntry } from "./manifest.ts";
import { validateDefinition } from "./registration_rules.ts";

/** A registered command: its path, its definition, and its manifest entry. */
export interface RegisteredCommand {
  path: string;
  definition: AnyCommandDefinition;
  entry: CommandEntry;
}

/**
 * Adjusts a command's entry when the manifest is built; `mcp.serve` uses it to cover every command it serves
 * (REQ-C-032: danger_level and required_scopes of a server cover every request it can answer).
 */
export type EntryRefiner = (entry: CommandEntry, registry: CommandRegistry) => CommandEntry;

const DANGER_ORDER: readonly DangerLevel[] = ["safe", "mutating", "destructive"];

/**
 * The most severe of several danger levels.
 *
 * @example
 * ```ts
 * mostSevere(["safe", "destructive", "mutating"]); // "destructive"
 * ```
 */
export function mostSevere(levels: Iterable<DangerLevel>): DangerLevel {
  let worst = 0;
  for (const level of levels) worst = Math.max(worst, DANGER_ORDER.indexOf(level));
  return DANGER_ORDER[worst]!;
}

/**
 * The registered commands of one tool. Registration validates every rule at once and refuses a bad entry
 * with a {@linkcode RegistrationError} naming the command and the field — at registration, not at first use.
 *
 * @example
 * ```ts
 * import type { CommandDefinition } from "@toolwire/toolwire";
 *
 * declare const definition: CommandDefinition; // danger_level: "mutating"
 * const registry = new CommandRegistry();
 * registry.register("notes.add", definition);
 * registry.get("notes.add")?.entry.danger_level; // "mutating"
 * ```
 */
export class CommandRegistry {
  readonly #commands = new Map<string, RegisteredCommand>();
  readonly #words = new Map<string, string>();
  readonly #refiners = new Map<string, EntryRefiner>();

  /** Registers a command; throws {@linkcode RegistrationError} when the declaration breaks a rule. */
  register(path: string, definition: AnyCommandDefinition, refiner?: EntryRefiner): void {
    validateDefinition(path, definition);
    this.#add(path, definition, refiner);
  }

  /**
   * Registers one of the framework's own built-in definitions as it ships, not extended by the tool: the
   * same as {@linkcode register} without checking the contract rules. Every tool registers four built-ins
   * at every start, and running the checks on them would cost each start ~0.5 ms to learn what the tests
   * prove once (tests/command/builtins.test.ts holds every built-in to the rules). A path or alias that is
   * taken is still refused.
   */
  registerBuiltin<const F extends Record<string, FlagSpec>, const P extends readonly PositionalSpec[]>(
    path: string,
    definition: CommandDefinition<F, P> | ProtocolCommandDefinition<F, P>,
    refiner?: EntryRefiner,
  ): void {
    this.#add(path, definition as unknown as AnyCommandDefinition, refiner);
  }

  #add(path: string, definition: AnyCommandDefinition, refiner: EntryRefiner | undefined): void {
    if (this.#commands.has(path)) throw new RegistrationError(path, "path", "is already registered");
    const names = [path, ...(definition.aliases ?? []).map((alias) => replaceLastWord(path, alias))];
    for (const name of names) {
      const taken = this.#words.get(name);
      if (taken !== undefined) {
        throw new RegistrationError(
          path,
          name === path ? "path" : "aliases",
          `'${name}' already names ${taken}`,
        );
      }
    }
    for (const name of names) this.#words.set(name, path);
    this.#commands.set(path, { path, definition, entry: manifestEntry(definition) });
    if (refiner !== undefined) this.#refiners.set(path, refiner);
  }

  /** The command at a canonical path. */
  get(path: string): RegisteredCommand | undefined {
    return this.#commands.get(path);
  }

  /** Every command, in registration order. */
  all(): RegisteredCommand[] {
    return [...this.#commands.values()];
  }

  /** The entry of a command as the manifest shows it, refinements applied. */
  entryOf(path: string): CommandEntry | undefined {
    const command = this.#commands.get(path);
    if (command === undefined) return undefined;
    const refine = this.#refiners.get(path);
    return refine === undefined ? command.entry : refine(command.entry, this);
  }

  /**
   * Every command's manifest entry, refinements applied, by path: the manifest's `commands` without the
   * etag (whose SHA-256 is Web Crypto's first use — startup time a server need not spend) or `subcommands`.
   */
  entries(): Record<string, CommandEntry> {
    const entries: Record<string, CommandEntry> = {};
    for (const path of this.#commands.keys()) entries[path] = this.entryOf(path)!;
    return entries;
  }

  /** Builds the manifest (REQ-O-041). */
  manifest(frameworkVersion: string): Promise<Manifest> {
    const entries = new Map<string, CommandEntry>();
    for (const path of this.#commands.keys()) entries.set(path, this.entryOf(path)!);
    return assembleManifest(frameworkVersion, entries);
  }

  /** The view of the registry the argv parser needs: which words name a command, and what it accepts. */
  commandLookup(): CommandLookup {
    return {
      globalFlags: GLOBAL_FLAGS,
      continues: (words) => {
        const prefix = words.join(".");
        for (const name of this.#words.keys()) {
          if (name === prefix || name.startsWith(`${prefix}.`)) return true;
        }
        return false;
      },
      resolve: (words) => this.#words.get(words.join(".")),
      flagsOf: (path) => this.flagsOf(path),
      refusal: (path, flag) =>
        this.get(path)?.definition.stdout === "protocol" ? protocolRefusal(path, flag) : undefined,
      paths: () => this.#commands.keys(),
    };
  }

  /** Every flag a command accepts: its own and the framework's. */
  flagsOf(path: string): Record<string, FlagSpec> {
    const definition = this.#commands.get(path)?.definition;
    if (definition === undefined) return {};
    return { ...definition.flags, ...frameworkFlagsFor(definition) };
  }

  /** Paths of the commands directly under a group of words (`mcp` → `mcp.serve`). */
  childrenOf(prefix: string): string[] {
    return [...this.#commands.keys()].filter((path) => path.startsWith(`${prefix}.`));
  }
}

function replaceLastWord(path: string, word: string): string {
  const cut = path.lastIndexOf(".");
  return cut === -1 ? word : `${path.slice(0, cut)}.${word}`;
}
