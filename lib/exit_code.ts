/**
 * The standard exit-code table (REQ-F-001). Commands name these constants, never bare integers.
 *
 * @example
 * ```ts
 * import { CommandError } from "@toolwire/toolwire";
 *
 * throw new CommandError(ExitCode.NOT_FOUND, "note 42 does not exist");
 * ```
 */
export const ExitCode = {
  SUCCESS: 0,
  GENERAL_ERROR: 1,
  ARG_ERROR: 2,
  PARTIAL_FAILURE: 3,
  PRECONDITION: 4,
  NOT_FOUND: 5,
  CONFLICT: 6,
  PERMISSION_DENIED: 7,
  AUTH_REQUIRED: 8,
  PAYMENT_REQUIRED: 9,
  TIMEOUT: 10,
  RATE_LIMITED: 11,
  UNAVAILABLE: 12,
  REDIRECTED: 13,
  INCOMPLETE: 14,
  /** 128 + 1: ended by SIGHUP. */
  SIGHUP: 129,
  /** 128 + 2: ended by SIGINT. */
  SIGINT: 130,
  /** 128 + 15: ended by SIGTERM. */
  SIGTERM: 143,
} as const;

/** One of the named exit codes. */
export type ExitCodeName = keyof typeof ExitCode;

/** What an exit leaves behind (REQ-C-001). */
export type SideEffects = "none" | "partial" | "complete";

/** One row of a command's `exit_codes` map; the code itself is the map key. */
export interface ExitCodeEntry {
  /** The named constant, e.g. `"NOT_FOUND"`; required for command-specific codes 79–125. */
  name: string;
  /** When this code is emitted, in the present tense. */
  description: string;
  /** True only if re-running the identical call may succeed; then `side_effects` must be `"none"`. */
  retryable: boolean;
  /** What the exit leaves behind. */
  side_effects: SideEffects;
}

/** The declared exit codes of one command, keyed by the code as a string. */
export type ExitCodeTable = Record<string, ExitCodeEntry>;

/** Command-specific codes live in 79–125 (REQ-F-001); 15–78 and 126+ are reserved. */
export const COMMAND_SPECIFIC_CODES = { min: 79, max: 125 } as const;

const NAME_BY_CODE = new Map<number, string>(Object.entries(ExitCode).map(([name, code]) => [code, name]));

/**
 * The constant name of a standard exit code, or `undefined` for a command-specific one.
 *
 * @example
 * ```ts
 * exitCodeName(5); // "NOT_FOUND"
 * ```
 */
export function exitCodeName(code: number): string | undefined {
  return NAME_BY_CODE.get(code);
}

/**
 * Whether a number may be declared in a command's exit-code table: a standard code, a signal code, or a
 * command-specific code in 79–125.
 *
 * @example
 * ```ts
 * isDeclarableExitCode(80); // true
 * isDeclarableExitCode(42); // false
 * ```
 */
export function isDeclarableExitCode(code: number): boolean {
  if (NAME_BY_CODE.has(code)) return true;
  return Number.isInteger(code) && code >= COMMAND_SPECIFIC_CODES.min && code <= COMMAND_SPECIFIC_CODES.max;
}
