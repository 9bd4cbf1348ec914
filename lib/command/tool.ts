import type { ToolHost } from "./contract/tool_host.ts";
import {
  commandArgs,
  exitProcess,
  getEnv,
  homeDir,
  isClosedPipe,
  isTerminal,
  joinPath,
  killAllChildren,
  monotonicMs,
  platformName,
  stdioWriteFailure,
  userStateHome,
} from "../runtime/mod.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import { CliOutput } from "./cli/cli_output.ts";
import { RegistrationError } from "./contract/command_error.ts";
import type {
  CommandDefinition,
  FlagSpec,
  PositionalSpec,
  ProtocolCommandDefinition,
} from "./contract/command_definition.ts";
import { dispatch } from "./cli/dispatch.ts";
import { makeEnvelope } from "./contract/envelope.ts";
import { ExitCode } from "../exit_code.ts";
import { DEFAULT_IDEMPOTENCY_LIFETIME_SECONDS } from "./run/idempotency_store.ts";
import type { SharedState } from "./contract/state_store.ts";
import { MIN_CONFIRMATION_SECRET_BYTES } from "./mcp/confirmation_state.ts";
import type { Manifest } from "./contract/manifest.ts";
import { errorMessage, unexpectedError } from "./run/thrown_error.ts";
import { CommandRegistry } from "./contract/registry.ts";
import { registerManifest } from "./builtins/manifest_command.ts";
import { type McpServeDefinition, registerMcpServe } from "./builtins/mcp_serve_command.ts";
import { type McpInstallDefinition, registerMcpInstall } from "./builtins/mcp_install_command.ts";
import type { McpInstallFlags } from "./builtins/mcp_install/install_flags.ts";
import { registerCompletions } from "./builtins/completions_command.ts";
import { type McpListenDefinition, registerMcpListen } from "./builtins/mcp_listen_command.ts";
import type { McpListenFlags } from "./builtins/mcp_listen/listen_flags.ts";

/**
 * Options of {@linkcode createTool}. `S`, `I` and `L` are the flags of an extended `mcp serve`, `mcp install`
 * and `mcp listen`, inferred from {@linkcode ToolOptions.extendMcpServe}, {@linkcode ToolOptions.extendMcpInstall}
 * and {@linkcode ToolOptions.extendMcpListen}.
 *
 * @example
 * ```ts
 * const options: ToolOptions = { name: "notes", version: "1.0.0", description: "Keep short notes" };
 * ```
 */
export interface ToolOptions<
  S extends Record<string, FlagSpec> = Record<string, FlagSpec>,
  I extends McpInstallFlags = McpInstallFlags,
  L extends McpListenFlags = McpListenFlags,
> {
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
  /**
   * Directory of the idempotency store, from the environment. @default `$XDG_STATE_HOME/<name>/idempotency`,
   * on Windows `%LOCALAPPDATA%\<name>\idempotency`
   */
  stateDir?: (env: (name: string) => string | undefined) => string;
  /**
   * How long an idempotency key's record is kept, in seconds: a replay within it returns the first result;
   * after it the key is free again (docs/idempotency.md). @default 86400 (one day)
   */
  idempotencyLifetimeSeconds?: number;
  /**
   * Builds the tool's `mcp serve` from the built-in one, to serve more than the tool's own commands: spread
   * `builtin`, add flags, and call `builtin.serve(ctx)` for the plain case. Whatever it returns, the manifest
   * entry stays at least as dangerous as the most severe command served, with their scopes. Written inline,
   * give the parameter its type, so that the handler's `ctx.flags` knows the added flags.
   * @default the built-in
   *
   * @example
   * ```ts
   * import type { McpServeDefinition, McpServeFlags, ProtocolCommandDefinition, ProtocolLoop } from "@toolwire/toolwire";
   *
   * declare function profileLoop(profile: string): ProtocolLoop;
   * const PROFILE = { profile: { type: "string", description: "Configuration profile" } } as const;
   * const tool = createTool({
   *   name: "hub", version: "1.0.0", description: "A hub",
   *   extendMcpServe: (builtin: McpServeDefinition): ProtocolCommandDefinition<McpServeFlags & typeof PROFILE> => ({
   *     ...builtin,
   *     flags: { ...builtin.flags, ...PROFILE },
   *     serve: (ctx) => ctx.flags.profile === undefined ? builtin.serve(ctx) : profileLoop(ctx.flags.profile),
   *   }),
   * });
   * ```
   */
  extendMcpServe?: (builtin: McpServeDefinition) => ProtocolCommandDefinition<S>;
  /**
   * Builds the tool's `mcp install` from the built-in one, to register a server that needs more arguments:
   * keep `builtin.flags`, add your own, and call `installMcpServer(ctx, { serveArgs, defaultName })`, or
   * `builtin.run(ctx)` for the plain case. @default the built-in
   *
   * @example
   * ```ts
   * import { type CommandDefinition, installMcpServer, type McpInstallDefinition, type McpInstallFlags } from "@toolwire/toolwire";
   *
   * const PROFILE = { profile: { type: "string", description: "Profile to serve" } } as const;
   * const tool = createTool({
   *   name: "hub", version: "1.0.0", description: "A hub",
   *   extendMcpInstall: (builtin: McpInstallDefinition): CommandDefinition<McpInstallFlags & typeof PROFILE> => ({
   *     ...builtin,
   *     flags: { ...builtin.flags, ...PROFILE },
   *     run: (ctx) =>
   *       ctx.flags.profile === undefined ? builtin.run(ctx) : installMcpServer(ctx, {
   *         serveArgs: ["mcp", "serve", "--profile", ctx.flags.profile],
   *         defaultName: `hub-${ctx.flags.profile}`,
   *       }),
   *   }),
   * });
   * ```
   */
  extendMcpInstall?: (builtin: McpInstallDefinition) => CommandDefinition<I>;
  /**
   * Builds the tool's `mcp listen` from the built-in one, to serve more than the tool's own commands: keep
   * `builtin.flags`, add your own, and call `listenForClients(ctx, served)`, or `builtin.run(ctx)` for the
   * plain case. Whatever it returns, the manifest entry stays at least as dangerous as the most severe command
   * served. @default the built-in
   */
  extendMcpListen?: (builtin: McpListenDefinition) => CommandDefinition<L>;
  /**
   * The Deno permission flags the tool's commands need when an MCP client starts its `mcp serve` from
   * source on Deno: `mcp install` registers `deno run <these> <main module> mcp serve`, and never copies the
   * permissions its own run held (those were for writing a configuration file). Unused on Node and by a
   * compiled binary, whose permissions are its own. Undeclared, the server gets none, and `mcp install`
   * warns on Deno. @default undeclared
   *
   * @example
   * ```ts
   * const tool = createTool({
   *   name: "notes", version: "1.0.0", description: "Keep short notes",
   *   denoPermissions: ["--allow-env=NOTES_HOME,XDG_DATA_HOME,HOME", "--allow-read", "--allow-write"],
   * });
   * ```
   */
  denoPermissions?: readonly string[];
  /**
   * What the tool's processes share when it runs as a fleet (docs/scaling.md): `store`, a `StateStore` such
   * as `redisStateStore` over your own Redis client, keeps idempotency keys and redeemed confirmations for
   * every command line and MCP server of the tool; `confirmationSecret` (32 bytes or more) signs
   * confirmations the same way on every instance. `mcp listen --state-store` and
   * `--confirmation-secret-file` override each. @default the state directory, and a key per process
   *
   * @example
   * ```ts
   * import { redisStateStore, type RedisCommands } from "@toolwire/toolwire";
   *
   * declare const commands: RedisCommands; // three methods over your node-redis or ioredis client
   * declare const secret: Uint8Array;
   * const tool = createTool({
   *   name: "notes", version: "1.0.0", description: "Keep short notes",
   *   sharedState: { store: redisStateStore(commands, { prefix: "notes:" }), confirmationSecret: secret },
   * });
   * ```
   */
  sharedState?: SharedState;
}

// A permission flag as `deno run` takes it: `--allow-read`, `--allow-env=HOME,PATH`, `--deny-net`, `-A`.
const DENO_PERMISSION = /^(?:-A|--allow-all|--(?:allow|deny)-[a-z]+(?:=.+)?)$/;

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * A command-line tool: a set of commands with declared contracts, the built-ins (`manifest`, `mcp serve`,
 * `mcp install`, `completions`), and `main()` that runs one invocation and exits with its code.
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
export class Tool implements ToolHost {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly envPrefix: string;
  readonly timeoutSeconds: number;
  /** How long idempotency records are kept, in seconds ({@linkcode ToolOptions.idempotencyLifetimeSeconds}). */
  readonly idempotencyLifetimeSeconds: number;
  readonly registry: CommandRegistry = new CommandRegistry();
  /** What `mcp serve` is started with on Deno ({@linkcode ToolOptions.denoPermissions}). */
  readonly denoPermissions: readonly string[] | undefined;
  /** What its instances share ({@linkcode ToolOptions.sharedState}). */
  readonly sharedState: SharedState | undefined;
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
    const permissions = options.denoPermissions;
    const bad = permissions?.find((flag) => !DENO_PERMISSION.test(flag));
    if (bad !== undefined) {
      throw new RegistrationError(
        options.name,
        "denoPermissions",
        `'${bad}' is not a Deno permission flag: --allow-<name>[=<values>], --deny-<name>[=<values>] or -A`,
      );
    }
    this.denoPermissions = permissions === undefined ? undefined : [...permissions];
    const secret = options.sharedState?.confirmationSecret;
    if (secret !== undefined && secret.length < MIN_CONFIRMATION_SECRET_BYTES) {
      throw new RegistrationError(
        options.name,
        "sharedState",
        `a confirmation secret needs at least ${MIN_CONFIRMATION_SECRET_BYTES} bytes, got ${secret.length}`,
      );
    }
    this.sharedState = options.sharedState;
    this.#stateDir = options.stateDir;
    registerManifest(this);
    registerMcpServe(this, options.extendMcpServe);
    registerMcpInstall(this, options.extendMcpInstall);
    registerMcpListen(this, options.extendMcpListen);
    registerCompletions(this);
  }

  /**
   * Registers a command at a dotted path (`notes.add` runs as `tool notes add`). Throws
   * {@linkcode RegistrationError} at once when the declaration breaks a rule.
   */
  command<const F extends Record<string, FlagSpec>, const P extends readonly PositionalSpec[]>(
    path: string,
    definition: CommandDefinition<F, P> | ProtocolCommandDefinition<F, P>,
  ): this {
    this.registry.register(path, definition as unknown as CommandDefinition);
    return this;
  }

  /** The manifest (REQ-O-041). */
  manifest(): Promise<Manifest> {
    return this.registry.manifest(FRAMEWORK_VERSION);
  }

  /** Directory of the idempotency store. */
  stateDir(): string {
    if (this.#stateDir !== undefined) return this.#stateDir(getEnv);
    const base = userStateHome({ platform: platformName(), env: getEnv, home: homeDir });
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
      // The text a person reads is a chunk of its own (loaded on first use): should it fail to load, the
      // run still ends in its envelope, its message as the plain line.
      const text = await import("./cli/plain_text.ts").then(
        ({ renderPlainError }) => renderPlainError(this.name, envelope),
        () => `${this.name}: error: ${envelope.error?.message}`,
      );
      await output.line("stderr", text);
      if (unexpected.stack !== undefined) await output.line("stderr", unexpected.stack);
      code = isTerminal("stdout") ? ExitCode.GENERAL_ERROR : await output.envelope("stdout", envelope);
    }
    await output.flush();
    code = await reportLostStdout(this.name, output, code);
    killAllChildren();
    return exitProcess(code);
  }
}

/**
 * Creates a tool, its built-in commands registered.
 *
 * @example
 * ```ts
 * const tool = createTool({ name: "notes", version: "1.0.0", description: "Keep short notes" });
 * ```
 */
export function createTool<
  const S extends Record<string, FlagSpec> = Record<string, FlagSpec>,
  const I extends McpInstallFlags = McpInstallFlags,
  const L extends McpListenFlags = McpListenFlags,
>(options: ToolOptions<S, I, L>): Tool {
  return new Tool(options);
}

/**
 * The exit code once the run's output is out: a stdout that could not be written for any reason but a
 * closed pipe (a full disk, `> /dev/full`) lost what the command printed, which exit 1 and a line on stderr
 * say. A reader that went away (EPIPE) is no failure of the command: its code stands (REQ-F-014).
 */
async function reportLostStdout(tool: string, output: CliOutput, code: number): Promise<number> {
  const failure = stdioWriteFailure("stdout");
  if (failure === undefined || isClosedPipe(failure)) return code;
  await output.line(
    "stderr",
    `${tool}: error: stdout could not be written (${
      errorMessage(failure)
    }); what the command printed is lost`,
  );
  await output.flush();
  return ExitCode.GENERAL_ERROR;
}
