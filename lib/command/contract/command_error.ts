/** Extra detail a {@linkcode CommandError} can carry into the envelope's `error` object. */
export interface CommandErrorOptions {
  /** The stable `error.code`; defaults to the exit code's constant name, e.g. `"NOT_FOUND"`. */
  code?: string;
  /** The next step, phrased for an agent. */
  suggestion?: string;
  /** Overrides the `retryable` the command declared for this exit code. */
  retryable?: boolean;
  /** Further machine-readable members of `error` (never `code`, `message`, `retryable`). */
  details?: Record<string, unknown>;
  /**
   * The envelope's `data` despite the failure, for a command whose result explains the failure — a
   * conformance report that lists the checks that failed. Plain output renders it on stdout as on success.
   * Most failures have none: `data` is then `null`.
   */
  data?: Record<string, unknown> | unknown[];
  /** The underlying error, for stderr diagnostics. */
  cause?: unknown;
}

/**
 * A failure a command reports on purpose: an exit code from the standard table (or the command's own 79–125
 * range), a message, and what to do next. Anything else a handler throws becomes GENERAL_ERROR.
 *
 * @example
 * ```ts
 * import { ExitCode } from "@toolwire/toolwire";
 *
 * throw new CommandError(ExitCode.NOT_FOUND, "note 42 does not exist", {
 *   suggestion: "run `notes list` to see the ids",
 * });
 * ```
 */
export class CommandError extends Error {
  /** The process exit code. */
  readonly exitCode: number;
  /** Options given at construction. */
  readonly options: CommandErrorOptions;

  constructor(exitCode: number, message: string, options: CommandErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CommandError";
    this.exitCode = exitCode;
    this.options = options;
  }
}

/**
 * A command declaration the registry refused (docs/contract.md#registration): names the command and the field.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "notes", version: "1.0.0", description: "Keep notes" });
 * try {
 *   // no description, and no exit code 0: refused at the first broken rule
 *   tool.command("list", {
 *     description: "",
 *     danger_level: "safe",
 *     required_scopes: [],
 *     exit_codes: {},
 *     run: () => [],
 *   });
 * } catch (error) {
 *   if (error instanceof RegistrationError) console.error(error.field); // "description"
 * }
 * ```
 */
export class RegistrationError extends Error {
  /** The dotted path of the refused command. */
  readonly command: string;
  /** The field that broke a rule, e.g. `"exit_codes"` or `"flags.limit.default"`. */
  readonly field: string;

  constructor(command: string, field: string, problem: string) {
    super(`command '${command}': ${field}: ${problem}`);
    this.name = "RegistrationError";
    this.command = command;
    this.field = field;
  }
}
