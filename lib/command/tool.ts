import {
  commandArgs,
  exitProcess,
  getEnv,
  homeDir,
  isTerminal,
  joinPath,
  killAllChildren,
  monotonicMs,
} from "../runtime/mod.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import { CliOutput } from "./cli/cli_output.ts";
import { RegistrationError } from "./contract/command_error.ts";
import type {
  CommandDefinition,
  FlagSpec,
  PositionalSpec,
  ProtocolCommandDefinition,
} from "./contract/contract.ts";
import { dispatch } from "./cli/dispatch.ts";
import { makeEnvelope } from "./contract/envelope.ts";
import { ExitCode } from "../exit_code.ts";
import { DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS } from "./run/idempotency_store.ts";
import type { Manifest } from "./contract/manifest.ts";
import { renderPlainError } from "./cli/plain_text.ts";
import { unexpectedError } from "./run/thrown_error.ts";
import { CommandRegistry, type EntryRefiner } from "./contract/registry.ts";

/** Options of {@linkcode createTool}. */
export interface ToolOptions {
  /** The program name, lowercase kebab-case: `notes`. */
  name: string;
  /** The tool's own version. */
  version: string;
  /** One sentence: what the tool is for. */
  description: string;
  /** Default time limit of every command, in seconds; 0 = none. @default 60 */
  timeoutSeconds?: number;
  /** Prefix of the tool's environment variables (`NOTES_FORMAT`). @default the name, upper snake case */
  envPrefix?: string;
  /** Directory of the idempotency store, from the environment. @default `$XDG_STATE_HOME/<name>/idempotency` */
  stateDir?: (env: (name: string) => string | undefined) => string;
  /**
   * How long an idempotency key's record is kept, in seconds: a replay within it returns the first result;
   * after it the key is free again (docs/idempotency.md). @default 86400 (one day)
   */
  idempotencyLifetimeSeconds?: number;
  /**
   * Built-in commands the tool registers itself instead, at the same path — `mcp.serve` through
   * {@linkcode registerMcpServe}, say, to serve more than the tool's own commands, and `mcp.install` through
   * {@linkcode registerMcpInstall} to register what that server needs. Every tool keeps the built-in
   * `manifest` and `completions`. @default []
   */
  replaceBuiltins?: readonly ("mcp.serve" | "mcp.install")[];
}

/** A hook that registers a built-in command on every tool; see {@linkcode registerBuiltin}. */
export type BuiltinInstaller = (tool: Tool) => void;

const builtins = new Map<string, BuiltinInstaller>();

/**
 * Adds the built-in command at `path` to every tool created afterwards (`manifest` and `mcp.serve` use it),
 * unless the tool replaces it ({@linkcode ToolOptions.replaceBuiltins}). For framework modules, not for tool
 * authors.
 *
 * @example
 * ```ts
 * import type { CommandDefinition } from "@toolwire/toolwire";
 *
 * declare const doctorDefinition: CommandDefinition;
 * registerBuiltin("doctor", (tool) => tool.command("doctor", doctorDefinition));
 * ```
 */
export function registerBuiltin(path: string, installer: BuiltinInstaller): void {
  builtins.set(path, installer);
}

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * A command-line tool: a set of commands with declared contracts, the built-in `manifest` and
 * `mcp serve`, and `main()` that runs one invocation and exits with its code.
 *
 * @example
 * ```ts
 * const tool = createTool({ name: "hello", version: "1.0.0", description: "Greets people" });
 * tool.command("greet", {
 *   description: "Greet someone",
 *   danger_level: "safe",
 *   required_scopes: [],
 *   flags: { name: { type: "string", description: "Who to greet", default: "world" } },
 *   exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },
 *   run: (ctx) => ({ greeting: `hello ${ctx.flags.name}` }),
 * });
 * await tool.main();
 * ```
 */
export class Tool {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly envPrefix: string;
  readonly timeoutSeconds: number;
  /** How long idempotency records are kept, in seconds ({@linkcode ToolOptions.idempotencyLifetimeSeconds}). */
  readonly idempotencyLifetimeSeconds: number;
  readonly registry: CommandRegistry = new CommandRegistry();
  readonly #stateDir: ToolOptions["stateDir"];

  constructor(options: ToolOptions) {
    if (!NAME.test(options.name)) {
      throw new RegistrationError(options.name, "name", "a tool name is lowercase kebab-case, e.g. 'notes'");
    }
    this.name = options.name;
    this.version = options.version;
    this.description = options.description;
    this.envPrefix = options.envPrefix ?? options.name.toUpperCase().replaceAll("-", "_");
    this.timeoutSeconds = options.timeoutSeconds ?? 60;
    if (!(typeof this.timeoutSeconds === "number" && this.timeoutSeconds >= 0)) {
      throw new RegistrationError(
        options.name,
        "timeoutSeconds",
        "must be a number of seconds >= 0 (0 = no limit)",
      );
    }
    const lifetime = options.idempotencyLifetimeSeconds ?? DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS;
    if (!Number.isFinite(lifetime) || lifetime <= 0) {
      throw new RegistrationError(
        options.name,
        "idempotencyLifetimeSeconds",
        "the lifetime of idempotency records is a number of seconds > 0",
      );
    }
    this.idempotencyLifetimeSeconds = lifetime;
    this.#stateDir = options.stateDir;
    const replaced = new Set<string>(options.replaceBuiltins ?? []);
    for (const [path, install] of builtins) if (!replaced.has(path)) install(this);
  }

  /**
   * Registers a command at a dotted path (`notes.add` runs as `tool notes add`). Throws
   * {@linkcode RegistrationError} at once when the declaration breaks a rule.
   */
  command<const F extends Record<string, FlagSpec>, const P extends readonly PositionalSpec[]>(
    path: string,
    definition: CommandDefinition<F, P> | ProtocolCommandDefinition<F, P>,
    refiner?: EntryRefiner,
  ): this {
    this.registry.register(path, definition as unknown as CommandDefinition, refiner);
    return this;
  }

  /** The manifest (REQ-O-041). */
  manifest(): Promise<Manifest> {
    return this.registry.manifest(FRAMEWORK_VERSION);
  }

  /** Directory of the idempotency store. */
  stateDir(): string {
    if (this.#stateDir !== undefined) return this.#stateDir(getEnv);
    const base = getEnv("XDG_STATE_HOME") || joinPath(homeDir(), ".local", "state");
    return joinPath(base, this.name, "idempotency");
  }

  /**
   * Runs one invocation (argv defaults to the process's) and exits with its code once stdout and stderr are
   * flushed and every child process has been told to end.
   */
  async main(argv: readonly string[] = commandArgs()): Promise<never> {
    const output = new CliOutput();
    let code: number;
    try {
      code = await dispatch(this, argv, output);
    } catch (error) {
      // A framework bug (or a permission the runtime refused before a command ran) still ends in one
      // envelope and exit 1: on stdout when it is not a terminal, as every run's envelope, and as plain text
      // on stderr.
      const unexpected = unexpectedError(error, "internal error");
      const envelope = makeEnvelope({
        exitCode: ExitCode.GENERAL_ERROR,
        error: unexpected.error,
        startedAt: monotonicMs(),
      });
      await output.line("stderr", renderPlainError(this.name, envelope));
      if (unexpected.stack !== undefined) await output.line("stderr", unexpected.stack);
      code = isTerminal("stdout") ? ExitCode.GENERAL_ERROR : await output.envelope("stdout", envelope);
    }
    await output.flush();
    killAllChildren();
    return exitProcess(code);
  }
}

/**
 * Creates a tool.
 *
 * @example
 * ```ts
 * const tool = createTool({ name: "notes", version: "1.0.0", description: "Keep short notes" });
 * ```
 */
export function createTool(options: ToolOptions): Tool {
  return new Tool(options);
}
