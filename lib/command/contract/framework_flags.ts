import { type CommandContract, type FlagSpec, FORMATS } from "./command_definition.ts";
import { ExitCode, type ExitCodeTable, type SideEffects } from "../../exit_code.ts";
import { commandWords } from "./command_words.ts";

/** The flags every invocation accepts, before or after the command words (docs/contract.md#global-flags). */
export const GLOBAL_FLAGS: Readonly<Record<string, FlagSpec>> = {
  format: {
    type: "enum",
    enum_values: FORMATS,
    description: "Output format; json when stdout is not a terminal, plain on a terminal",
  },
  timeout: {
    type: "number",
    description: "Seconds before the command is stopped with TIMEOUT; 0 = no limit",
  },
  help: { type: "boolean", short: "h", description: "Print help and exit" },
  schema: { type: "boolean", description: "Print the command's manifest entry and exit" },
  version: { type: "boolean", description: "Print the version and exit" },
};

/** The framework flags a command takes because of what it declares (REQ-C-007, REQ-C-004, REQ-O-021). */
export const COMMAND_FRAMEWORK_FLAGS: Readonly<Record<string, FlagSpec>> = {
  "idempotency-key": {
    type: "string",
    description:
      "Caller-chosen key; a repeated call with the same key returns the first result without running again",
  },
  "dry-run": { type: "boolean", description: "Show what would change and change nothing" },
  "confirm-destructive": {
    type: "boolean",
    description: "Confirm the destructive action; without it nothing is changed",
  },
  output: { type: "string", description: "Write the result's data to this file instead of stdout" },
};

/** Names a command may not give its own flags: the framework owns them. */
export const RESERVED_FLAG_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(GLOBAL_FLAGS),
  ...Object.keys(COMMAND_FRAMEWORK_FLAGS),
]);

/**
 * The framework flags one command accepts, from its declaration: mutating and destructive commands take
 * `--idempotency-key`, destructive ones `--dry-run` and `--confirm-destructive`, mutating ones with
 * `supports_dry_run` `--dry-run`, `output_file` ones `--output`. Protocol commands take none of them
 * (REQ-C-032).
 *
 * @example
 * ```ts
 * Object.keys(frameworkFlagsFor({ danger_level: "destructive" })); // ["idempotency-key", "dry-run", "confirm-destructive"]
 * ```
 */
export function frameworkFlagsFor(
  contract: Pick<CommandContract, "danger_level" | "stdout" | "output_file" | "supports_dry_run">,
): Record<string, FlagSpec> {
  if (contract.stdout === "protocol") return {};
  const flags: Record<string, FlagSpec> = {};
  const pick = (name: string) => (flags[name] = COMMAND_FRAMEWORK_FLAGS[name]!);
  if (contract.danger_level !== "safe") pick("idempotency-key");
  if (contract.danger_level === "mutating" && contract.supports_dry_run === true) pick("dry-run");
  if (contract.danger_level === "destructive") {
    pick("dry-run");
    pick("confirm-destructive");
  }
  if (contract.output_file) pick("output");
  return flags;
}

/**
 * Why a protocol command refuses a framework flag, or `undefined` when it is not one of them.
 *
 * @example
 * ```ts
 * protocolRefusal("mcp.serve", "dry-run"); // "mcp serve does not accept --dry-run: ..."
 * ```
 */
export function protocolRefusal(path: string, flag: string): string | undefined {
  if (!Object.hasOwn(COMMAND_FRAMEWORK_FLAGS, flag)) return undefined;
  return `${commandWords(path)} does not accept --${flag}: it is a protocol server, and each request ` +
    `it answers is confirmed or previewed inside the protocol`;
}

/**
 * The exit codes the framework itself can raise for a command, so the manifest is exhaustive
 * (docs/contract.md#exit-codes). The command's own declarations win where both name a code.
 *
 * @example
 * ```ts
 * Object.keys(frameworkExitCodes({ danger_level: "safe" })); // ["1", "2", "10", "129", "130", "143"]
 * ```
 */
export function frameworkExitCodes(
  contract: Pick<CommandContract, "danger_level" | "stdout">,
): ExitCodeTable {
  const changes: SideEffects = contract.danger_level === "safe" ? "none" : "partial";
  const protocol = contract.stdout === "protocol";
  const table: ExitCodeTable = {
    [ExitCode.GENERAL_ERROR]: {
      name: "GENERAL_ERROR",
      description: protocol
        ? "An unexpected error ended the server"
        : "An unexpected error ended the command",
      retryable: false,
      side_effects: changes,
    },
    [ExitCode.ARG_ERROR]: {
      name: "ARG_ERROR",
      description: protocol
        ? "A flag is invalid; the server did not start"
        : "A flag or argument is invalid, or a destructive action was not confirmed; nothing was done",
      retryable: false,
      side_effects: "none",
    },
    [ExitCode.TIMEOUT]: {
      name: "TIMEOUT",
      description: protocol
        ? "Preparing to serve took longer than the time limit; the server did not start"
        : "The command took longer than its time limit and was stopped",
      retryable: protocol || changes === "none",
      side_effects: protocol ? "none" : changes,
    },
  };
  if (!protocol && contract.danger_level !== "safe") {
    // What --idempotency-key can answer without running the handler (docs/idempotency.md).
    table[ExitCode.PRECONDITION] = {
      name: "PRECONDITION",
      description: "The idempotency store cannot be read or written; nothing was done",
      retryable: false,
      side_effects: "none",
    };
    table[ExitCode.CONFLICT] = {
      name: "CONFLICT",
      description:
        "The idempotency key was used with other arguments, or by a call whose outcome is unknown; nothing was done",
      retryable: false,
      side_effects: "none",
    };
    table[ExitCode.UNAVAILABLE] = {
      name: "UNAVAILABLE",
      description:
        "A call with the same idempotency key is still running, or the shared state store is down; nothing was done",
      retryable: true,
      side_effects: "none",
    };
  }
  for (
    const [signal, code] of [["SIGHUP", ExitCode.SIGHUP], ["SIGINT", ExitCode.SIGINT], [
      "SIGTERM",
      ExitCode.SIGTERM,
    ]] as const
  ) {
    table[code] = {
      name: signal,
      description: `${signal} ended the ${protocol ? "session" : "command"} before it finished`,
      retryable: false,
      side_effects: changes,
    };
  }
  return table;
}
