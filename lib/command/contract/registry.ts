import type { CommandLookup } from "./command_lookup.ts";
import type {
  AnyCommandDefinition,
  CommandDefinition,
  DangerLevel,
  FlagSpec,
  PositionalSpec,
  ProtocolCommandDefinition,
} from "./command_definition.ts";
import { RegistrationError } from "./command_error.ts";
import { frameworkFlagsFor, GLOBAL_FLAGS, protocolRefusal } from "./framework_flags.ts";
import { assembleManifest, type CommandEntry, type Manifest, manifestEntry } from "./manifest.ts";
import { validateDefinition } from "./registration_rules.ts";

/** A registered command: its path, its definition, and its manifest entry. */
export interface RegisteredCommand {
  path: string;
  definition: AnyCommandDefinition;
  entry: CommandEntry;
  /** False for a built-in registered as never an MCP tool ({@linkcode CommandRegistry.registerBuiltin}). */
  readonly served?: boolean;
}

/**
 * A built-in's definition is built, and its entry computed, on first use: a tool's start then builds only
 * the built-ins it runs or shows (docs/performance.md#what-a-start-costs).
 */
class LazyBuiltin implements RegisteredCommand {
  readonly path: string;
  readonly served: boolean;
  #build: (() => AnyCommandDefinition) | undefined;
  #definition: AnyCommandDefinition | undefined;
  #entry: CommandEntry | undefined;

  constructor(path: string, build: () => AnyCommandDefinition, served: boolean) {
    this.path = path;
    this.served = served;
    this.#build = build;
  }

  get definition(): AnyCommandDefinition {
    if (this.#definition === undefined) {
      this.#definition = this.#build!();
      this.#build = undefined;
    }
    return this.#definition;
  }

  get entry(): CommandEntry {
    return this.#entry ??= manifestEntry(this.definition);
  }
}

/**
 * Adjusts a command's entry when the manifest is built; `mcp.serve` uses it to cover every command it serves
 * (REQ-C-032: danger_level and required_scopes of a server cover every request it can answer). It changes
 * what the manifest says of the command, not the exit codes it declares: a run takes those from the entry
 * as registered, without refining it.
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

  /**
   * Registers a command; throws {@linkcode RegistrationError} when the declaration breaks a rule.
   * `ownFlags` names framework flags the command declares and implements itself (`mcp listen`'s `--dry-run`,
   * which lists what would be served): they pass the rule that reserves those names.
   */
  register(
    path: string,
    definition: AnyCommandDefinition,
    refiner?: EntryRefiner,
    ownFlags: readonly string[] = [],
  ): void {
    const flags = definition.flags === undefined
      ? undefined
      : Object.fromEntries(Object.entries(definition.flags).filter(([name]) => !ownFlags.includes(name)));
    validateDefinition(
      path,
      ownFlags.length === 0 ? definition : { ...definition, flags } as AnyCommandDefinition,
    );
    this.#add(path, definition, refiner);
  }

  /**
   * Registers one of the framework's own built-in definitions as it ships, not extended by the tool: the
   * same as {@linkcode register} without checking the contract rules, which would cost every start of every
   * tool to learn what tests/command/builtins.test.ts proves once. A path or alias that is taken is still
   * refused.
   *
   * Given as a function (without aliases), the definition is built on first use. `served: false` says that
   * the definition is never an MCP tool (`mcp: false`, or a protocol server): {@linkcode servableEntries}
   * leaves it out without building it.
   */
  registerBuiltin<const F extends Record<string, FlagSpec>, const P extends readonly PositionalSpec[]>(
    path: string,
    definition:
      | CommandDefinition<F, P>
      | ProtocolCommandDefinition<F, P>
      | (() => CommandDefinition<F, P> | ProtocolCommandDefinition<F, P>),
    refiner?: EntryRefiner,
    served = true,
  ): void {
    if (typeof definition !== "function") {
      this.#add(path, definition as unknown as AnyCommandDefinition, refiner);
      return;
    }
    this.#reserve(path, [path]);
    this.#commands.set(path, new LazyBuiltin(path, definition as () => AnyCommandDefinition, served));
    if (refiner !== undefined) this.#refiners.set(path, refiner);
  }

  #add(path: string, definition: AnyCommandDefinition, refiner: EntryRefiner | undefined): void {
    const names = [path, ...(definition.aliases ?? []).map((alias) => replaceLastWord(path, alias))];
    this.#reserve(path, names);
    this.#commands.set(path, { path, definition, entry: manifestEntry(definition) });
    if (refiner !== undefined) this.#refiners.set(path, refiner);
  }

  /** Claims a command's path and alias names; throws when one is taken. */
  #reserve(path: string, names: readonly string[]): void {
    if (this.#commands.has(path)) throw new RegistrationError(path, "path", "is already registered");
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

  /**
   * {@linkcode entries} without the built-ins registered with `served: false`: what an MCP server's catalog
   * chooses its tools from. It would leave those out anyway; this way a server's start never builds them.
   * Each entry is made when it is read, so a call to one tool builds no other built-in's entry.
   */
  servableEntries(): Record<string, CommandEntry> {
    const entries: Record<string, CommandEntry> = {};
    for (const [path, command] of this.#commands) {
      if (command.served === false) continue;
      Object.defineProperty(entries, path, { enumerable: true, get: () => this.entryOf(path) });
    }
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
