import { missingPermission } from "../../runtime/mod.ts";
import { denoTooOld } from "../../runtime/deno_version.ts";
import { ExitCode, exitCodeName, type ExitCodeTable } from "../../exit_code.ts";
import { CommandError } from "../contract/command_error.ts";
import type { ErrorDetail, Warning } from "../contract/envelope.ts";

/**
 * The message of anything thrown: an Error's `message`, else the value as text.
 *
 * @example
 * ```ts
 * errorMessage(new Error("disk full")); // "disk full"
 * errorMessage("gone"); // "gone"
 * ```
 */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/**
 * The envelope error for something a handler or the framework threw that is not a `CommandError`, and the
 * stack trace worth logging (none for a missing permission: the message says what to do). A permission the
 * runtime refused (Deno without `--allow-env`, `--allow-read`, …) gets `PERMISSION_REQUIRED` and names the
 * flag to add; anything else is `GENERAL_ERROR`, which on a Deno too old for toolwire says so in its
 * suggestion. Both exit 1, which every command declares.
 *
 * @example
 * ```ts
 * const { error, stack } = unexpectedError(new TypeError("boom"), "unexpected error");
 * // error.code === "GENERAL_ERROR", error.message === "unexpected error: boom"
 * ```
 */
export function unexpectedError(thrown: unknown, prefix: string): { error: ErrorDetail; stack?: string } {
  const missing = missingPermission(thrown);
  if (missing !== undefined) {
    const grant = missing.flag ?? "the permission it names";
    return {
      error: {
        code: "PERMISSION_REQUIRED",
        message: `the runtime refused a permission this command needs: ${missing.message}`,
        retryable: false,
        phase: "execution",
        suggestion: `start the tool with ${grant}`,
      },
    };
  }
  const message = errorMessage(thrown);
  const stack = thrown instanceof Error ? thrown.stack : undefined;
  const tooOld = denoTooOld();
  return {
    error: {
      code: "GENERAL_ERROR",
      message: `${prefix}: ${message}`,
      retryable: false,
      phase: "execution",
      ...(tooOld === undefined ? {} : { suggestion: tooOld }),
    },
    ...(stack === undefined ? {} : { stack }),
  };
}

/** What a value a handler threw becomes in the invocation's envelope. */
export interface Failure {
  /** The exit code: one the command declares. */
  exitCode: number;
  error: ErrorDetail;
  /** The envelope's `data`: a CommandError's `data`, else `null`. */
  data: unknown;
  /** `UNDECLARED_EXIT_CODE` when the thrown code was not one the command may exit with. */
  warnings: Warning[];
  /** A stack trace to log on stderr (an unexpected error), never put in the envelope. */
  stack?: string;
}

/** Where a thrown value was thrown, for {@linkcode failureOf}. */
export interface ThrownIn {
  /** The command's dotted path. */
  path: string;
  /** The command's full exit-code table (declared plus framework codes). */
  exitCodes: ExitCodeTable;
  /** How the message of anything but a CommandError starts, e.g. `"unexpected error"`. */
  unexpected: string;
  /**
   * The command may already have changed something (a protocol server that began serving): exit 2 promises
   * nothing was done, so a CommandError with it becomes GENERAL_ERROR.
   */
  mayHaveActed?: boolean;
}

/**
 * The one mapping from a thrown value to an envelope's exit code, `error`, `data` and warnings, shared by
 * ordinary commands and protocol servers. A {@linkcode CommandError} keeps its code when the command
 * declares it; an undeclared code (or 0, which is no failure) is reported as GENERAL_ERROR with an
 * `UNDECLARED_EXIT_CODE` warning, so the exit codes stay the exhaustive table the manifest promises.
 * `error.code` is the CommandError's own, else the standard name of the code it raised, else the name the
 * command declared for it. Anything else thrown is {@linkcode unexpectedError}.
 *
 * @example
 * ```ts
 * import { CommandError, type ExitCodeTable } from "@toolwire/toolwire";
 *
 * declare const exitCodes: ExitCodeTable; // the exit codes of "add"
 * const failure = failureOf(new CommandError(12, "busy"), {
 *   path: "add",
 *   exitCodes,
 *   unexpected: "unexpected error",
 * });
 * failure.exitCode; // 1 when "add" does not declare 12
 * failure.warnings[0]?.code; // "UNDECLARED_EXIT_CODE"
 * ```
 */
export function failureOf(thrown: unknown, where: ThrownIn): Failure {
  if (!(thrown instanceof CommandError)) {
    const { error, stack } = unexpectedError(thrown, where.unexpected);
    return {
      exitCode: ExitCode.GENERAL_ERROR,
      error,
      data: null,
      warnings: [],
      ...(stack === undefined ? {} : { stack }),
    };
  }
  const { exitCodes } = where;
  const warnings: Warning[] = [];
  const exitCode = failureExitCode(thrown.exitCode, where, warnings);
  const { code, suggestion, retryable, details, data } = thrown.options;
  return {
    exitCode,
    data: data ?? null,
    warnings,
    error: {
      ...details,
      code: code ?? exitCodeName(thrown.exitCode) ?? exitCodes[String(thrown.exitCode)]?.name ??
        "GENERAL_ERROR",
      message: thrown.message,
      retryable: retryable ?? exitCodes[String(exitCode)]?.retryable ?? false,
      phase: exitCode === ExitCode.ARG_ERROR ? "validation" : "execution",
      ...(suggestion === undefined ? {} : { suggestion }),
    },
  };
}

/**
 * The exit code a failure ends with: `code` when the command declares it and it is a failure; else
 * GENERAL_ERROR, pushing an `UNDECLARED_EXIT_CODE` warning onto `warnings`. With `mayHaveActed`, exit 2
 * (nothing was done) becomes GENERAL_ERROR too.
 *
 * @example
 * ```ts
 * import type { ExitCodeTable, Warning } from "@toolwire/toolwire";
 *
 * declare const exitCodes: ExitCodeTable; // the exit codes of "add"
 * const warnings: Warning[] = [];
 * failureExitCode(12, { path: "add", exitCodes }, warnings); // 1 when "add" does not declare 12
 * ```
 */
export function failureExitCode(
  code: number,
  where: Omit<ThrownIn, "unexpected">,
  warnings: Warning[],
): number {
  if (where.exitCodes[String(code)] === undefined || code === ExitCode.SUCCESS) {
    warnings.push({
      code: "UNDECLARED_EXIT_CODE",
      message: `${where.path} raised exit code ${code}, which it does not declare; reported as GENERAL_ERROR`,
      exit_code: code,
    });
    return ExitCode.GENERAL_ERROR;
  }
  return where.mayHaveActed && code === ExitCode.ARG_ERROR ? ExitCode.GENERAL_ERROR : code;
}
