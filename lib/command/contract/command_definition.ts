import type { ExitCodeTable } from "../../exit_code.ts";
import type { ProtocolLoop } from "../../protocol/protocol_io.ts";

export type { ProtocolFailure, ProtocolIO, ProtocolLoop } from "../../protocol/protocol_io.ts";
import type { Warning } from "./envelope.ts";
import type { McpCaller } from "../../protocol/mcp/caller.ts";

/** Output formats of `--format`. */
export const FORMATS = ["json", "plain"] as const;

/** An output format: one JSON envelope per invocation, or text for a person. */
export type OutputFormat = (typeof FORMATS)[number];

/** How severe the worst effect of a command is (REQ-C-002). */
export type DangerLevel = "safe" | "mutating" | "destructive";

/** The value types a flag can declare. */
export type FlagType = "string" | "integer" | "number" | "boolean" | "array" | "enum";

/**
 * One flag of a command, as the manifest shows it.
 *
 * @example
 * ```ts
 * const limit: FlagSpec = { type: "integer", description: "Show at most N notes", default: 20 };
 * ```
 */
export interface FlagSpec {
  /** The value type; `array` flags repeat (`--tag a --tag b`) and hold strings. */
  type: FlagType;
  /** What the flag controls. */
  description: string;
  /** Must be given. @default false */
  required?: boolean;
  /** The value when the flag is absent. */
  default?: string | number | boolean | readonly string[];
  /** The accepted values of an `enum` flag. */
  enum_values?: readonly string[];
  /** A one-letter alias: `-n` for `--limit`. */
  short?: string;
}

/**
 * A positional argument of a command.
 *
 * @example
 * ```ts
 * const id: PositionalSpec = { name: "id", type: "integer", description: "The note's id", required: true };
 * ```
 */
export interface PositionalSpec {
  /** The name handlers read it by, and its MCP argument name. */
  name: string;
  /** What it is. */
  description: string;
  /** The value type. @default "string" */
  type?: "string" | "integer" | "number";
  /** Must be given; for a variadic positional, at least one value. @default true */
  required?: boolean;
  /**
   * The last positional only: takes every remaining argument (`toolwire check -- <cli…>`). The handler gets an
   * array of the declared type, `[]` when none were given; MCP clients pass a JSON array. @default false
   */
  variadic?: boolean;
}

/** A usage example shown in help and the manifest. */
export interface CommandExample {
  /** What the example demonstrates. */
  description: string;
  /** The full invocation. */
  command: string;
}

/**
 * The declared contract of a command: plain data that the manifest serialises as it is (REQ-O-041). Field
 * names follow the manifest's wire format.
 */
export interface CommandContract {
  /** One sentence: what the command does. */
  description: string;
  /** The most severe effect the command can have. */
  danger_level: DangerLevel;
  /** Permission scopes the command needs; `[]` when it needs none (REQ-C-029). */
  required_scopes: readonly string[];
  /** Every exit code the command can end with; must contain "0" (REQ-C-001). Framework codes are added. */
  exit_codes: ExitCodeTable;
  /** Other names the command answers to, in place of its last word. */
  aliases?: readonly string[];
  /**
   * JSON Schema of `data` whenever it is not null: on success, and on a failure that carries data (REQ-C-015).
   * Over MCP it becomes `data` in the tool's `outputSchema` (with `null` allowed, for failures). Registration
   * refuses a malformed one; `$ref`s must be local (`#/$defs/name`).
   */
  output_schema?: Record<string, unknown>;
  /** Usage examples. */
  examples?: readonly CommandExample[];
  /** `"protocol"`: stdout carries a protocol from the first byte, never an envelope (REQ-C-032). */
  stdout?: "protocol";
  /** The protocol spoken on stdout, lowercase kebab-case: `mcp-stdio`, `lsp`, `dap`, … (REQ-C-032). */
  protocol?: string;
  /** `false` keeps the command off the tool's MCP server; absent means it may be offered (REQ-C-032). */
  mcp?: false;
  /** `"passthrough"`: the command hands its arguments to a delegated tool (REQ-C-031). */
  arguments?: "passthrough";
  /** `"child_log"`: stderr carries a child's log (REQ-F-038). */
  stderr?: "child_log";
  /** The payload the command reads from stdin (REQ-F-054). */
  stdin?: { description: string; max_bytes?: number };
  /** The command prompts a person (REQ-C-005). */
  interactive?: boolean;
  /** The command streams results by default (REQ-O-004). */
  streaming_default?: boolean;
  /** The command can write its result to a file given by `--output <path>`. */
  output_file?: boolean;
  /** Extra output formats (REQ-O-049). */
  output_formats?: readonly string[];
  /** Media types of the output (REQ-O-049). */
  output_media_types?: readonly string[];
  /**
   * The format when neither `--format` nor `<TOOL>_FORMAT` picks one, in place of "json unless stdout is a
   * terminal": `"plain"` for a command whose output is a file's content (`tool completions bash > file`).
   * `--format json` still gives one envelope.
   */
  default_format?: OutputFormat;
  /** The command starts an async job (REQ-C-022). */
  async?: boolean;
  /** The command leaves a background process running (REQ-C-010). */
  spawns_background_process?: boolean;
  /** The command that stops the background process (REQ-C-010). */
  cleanup_command?: string;
  /** How long the background process may live (REQ-C-010). */
  max_lifetime_seconds?: number;
  /** The flag that confirms the previewed action (REQ-O-048). */
  confirm_flag?: string;
  /** The command previews unless confirmed (REQ-O-048). */
  safe_default?: boolean;
  /**
   * A mutating command that can preview takes `--dry-run` too (destructive ones always do): it then
   * changes nothing and returns `effect: "would_…"` with `would_affect`.
   */
  supports_dry_run?: boolean;
  /** Repeating the call has no further effect. */
  idempotent?: boolean;
  /** The command talks to the network (MCP `openWorldHint`). */
  has_network_io?: boolean;
}

/** Maps one flag spec to the type a handler receives. */
export type FlagValue<S extends FlagSpec> = S["type"] extends "boolean" ? boolean
  : S["type"] extends "integer" | "number" ? number
  : S["type"] extends "array" ? string[]
  : S extends { type: "enum"; enum_values: readonly (infer E)[] } ? E
  : string;

/** `true` for a flag that always has a value: required, or defaulted. */
export type FlagAlwaysSet<S extends FlagSpec> = S extends { required: true } ? true
  : S extends { default: unknown } ? true
  : false;

/** The flag values a handler receives: booleans and arrays are always present; other flags when given or defaulted. */
export type FlagValues<F extends Record<string, FlagSpec>> = {
  // The test goes through FlagAlwaysSet so that F[K] is not narrowed by it: a narrowed `{ default: unknown }
  // & F[K]` is no FlagSpec under `exactOptionalPropertyTypes`, which broke users' library checks.
  [K in keyof F]: F[K]["type"] extends "boolean" | "array" ? FlagValue<F[K]>
    : FlagAlwaysSet<F[K]> extends true ? FlagValue<F[K]>
    : FlagValue<F[K]> | undefined;
};

/** The positional values a handler receives, by name. */
export type PositionalValues<P extends readonly PositionalSpec[]> = {
  [S in P[number] as S["name"]]: S extends { variadic: true } ? PositionalValue<S>[]
    : S extends { required: false } ? PositionalValue<S> | undefined
    : PositionalValue<S>;
};

type PositionalValue<S extends PositionalSpec> = S["type"] extends "integer" | "number" ? number : string;

/** Progress a handler reports; MCP clients receive it as `notifications/progress`, the CLI on stderr. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What a handler receives for one invocation, whether it came from argv or from an MCP `tools/call`.
 *
 * @example
 * ```ts
 * const run = async (ctx: CommandContext) => {
 *   ctx.log(`adding ${ctx.flags.title}`);
 *   return { effect: "created", id: 1 };
 * };
 * ```
 */
export interface CommandContext<
  F extends Record<string, FlagSpec> = Record<string, FlagSpec>,
  P extends readonly PositionalSpec[] = readonly PositionalSpec[],
> {
  /** Validated flag values. */
  flags: FlagValues<F>;
  /** Validated positional values, by name. */
  args: PositionalValues<P>;
  /** Fires on timeout, signal or MCP cancellation; stop work and let `finally` blocks clean up. */
  signal: AbortSignal;
  /** Destructive commands, and mutating ones with `supports_dry_run`: preview, change nothing, return `effect: "would_…"` and `would_affect` (REQ-C-004). */
  dryRun: boolean;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** A diagnostic line for people: stderr on the CLI, never stdout. */
  log(message: string): void;
  /** Adds a warning to the envelope. */
  warn(warning: Warning): void;
  /** Reports progress. */
  progress(update: ProgressUpdate): void;
  /** Extra members for the envelope's `meta` (e.g. `not_modified`); `exit_code` and `duration_ms` stay the framework's. */
  meta: Record<string, unknown>;
  /**
   * Who called, when an MCP request over HTTP was authenticated (docs/auth.md): the token's subject, client
   * and granted scopes, never the token. `undefined` on the CLI, over stdio and sockets, and without auth.
   */
  readonly caller?: McpCaller;
}

/**
 * A value a handler may return as `data`: an object — an interface type too, no index signature needed — an
 * array, or nothing. It is checked when the handler returns: what JSON makes of it must be an object, an
 * array or null, so a handler that returns a string, a number or a Date fails with GENERAL_ERROR.
 *
 * @example
 * ```ts
 * interface Note { id: number; title: string }
 * const data: CommandData = { id: 1, title: "groceries" } satisfies Note;
 * ```
 */
export type CommandData = object | null | undefined;

/** Renders `data` for a person (`--format plain`). */
export type PlainRenderer = (data: unknown) => string;

/**
 * An ordinary command: parse → validate → `run` → one envelope.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "hello", version: "1.0.0", description: "Greets people" });
 * tool.command("greet", {
 *   description: "Say hello",
 *   danger_level: "safe",
 *   required_scopes: [],
 *   flags: { name: { type: "string", description: "Who to greet", default: "world" } },
 *   exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },
 *   run: (ctx) => ({ greeting: `hello ${ctx.flags.name}` }),
 * });
 * ```
 */
export interface CommandDefinition<
  F extends Record<string, FlagSpec> = Record<string, FlagSpec>,
  P extends readonly PositionalSpec[] = readonly PositionalSpec[],
> extends CommandContract {
  flags?: F;
  positionals?: P;
  /** Seconds before the framework ends the command with TIMEOUT; `0` = none. @default the tool's */
  timeout_seconds?: number;
  /** Renders `data` for `--format plain`. @default a generic key/value rendering */
  plain?: PlainRenderer;
  /** The handler: validated input in, `data` out; throw {@linkcode CommandError} to fail with a code. */
  run(ctx: CommandContext<F, P>): CommandData | Promise<CommandData>;
  serve?: never;
}

/**
 * A protocol server command (REQ-C-032): phase 1 is `serve` preparing (flags validated, nothing on stdout,
 * the timeout applies); phase 2 is the loop it returns, which owns stdin and stdout.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 * import { type LspHandlers, serveLsp } from "@toolwire/toolwire/lsp";
 *
 * declare const handlers: LspHandlers;
 * const tool = createTool({ name: "notes", version: "1.0.0", description: "Keep notes" });
 * tool.command("lsp", {
 *   description: "Serve the Language Server Protocol over stdio",
 *   danger_level: "safe",
 *   required_scopes: [],
 *   stdout: "protocol",
 *   protocol: "lsp",
 *   exit_codes: {
 *     "0": { name: "SUCCESS", description: "Clean shutdown", retryable: false, side_effects: "none" },
 *   },
 *   serve: async () => (io) => serveLsp(io, handlers),
 * });
 * ```
 */
export interface ProtocolCommandDefinition<
  F extends Record<string, FlagSpec> = Record<string, FlagSpec>,
  P extends readonly PositionalSpec[] = readonly PositionalSpec[],
> extends CommandContract {
  stdout: "protocol";
  protocol: string;
  flags?: F;
  positionals?: P;
  /** Seconds phase 1 may take; serving itself is never timed out. @default the tool's */
  timeout_seconds?: number;
  /** Phase 1: prepare (open files, load config) and return the loop; throw {@linkcode CommandError} to fail. */
  serve(ctx: CommandContext<F, P>): ProtocolLoop | Promise<ProtocolLoop>;
  run?: never;
}

/** Either kind of command definition. */
export type AnyCommandDefinition = CommandDefinition | ProtocolCommandDefinition;
