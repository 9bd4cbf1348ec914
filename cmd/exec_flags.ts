/**
 * The flags that name a CLI to bridge and say how to run it — `--exec`, `--cwd`, `--call-timeout`,
 * `--env-allow`, `--max-output-bytes` — and what they become: one place for `mcp serve`, `mcp listen` and
 * `mcp install`, so the three read them alike.
 */
import { CommandError, ExitCode, type FlagValues, type SharedState } from "../mod.ts";
import {
  type BridgedServer,
  envAllowList,
  execEnvironment,
  type ExecTarget,
  limitMs,
  prepareBridgedServer,
  splitCommandLine,
  STDOUT_BYTES,
} from "../lib/bridge/mod.ts";

/** Seconds a bridged call may run when `--call-timeout` is not given. */
export const DEFAULT_CALL_TIMEOUT_SECONDS = 60;

/** Seconds between looks at the bridged CLI for a new manifest when `--watch-interval` is not given. */
export const DEFAULT_WATCH_SECONDS = 2;

/** The flags of a bridged CLI. */
export const EXEC_FLAGS = {
  exec: {
    type: "string",
    description:
      "The CLI whose commands are served: a command line, split like a shell would but never run by one",
  },
  cwd: {
    type: "string",
    description: "Working directory of the --exec CLI, for its manifest and every call",
  },
  "call-timeout": {
    type: "number",
    description:
      `Seconds a bridged call may run before its process group is stopped with TIMEOUT; 0 = no limit (default ${DEFAULT_CALL_TIMEOUT_SECONDS})`,
  },
  "env-allow": {
    type: "array",
    description:
      "Pass the --exec CLI only these environment variables (repeat, or a comma list; '' for none) plus PATH, HOME and the other basics; without it the CLI inherits the server's whole environment",
  },
  "max-output-bytes": {
    type: "integer",
    description:
      `Most stdout bytes of a bridged call kept, the last ones; beyond it the first are dropped (default ${STDOUT_BYTES})`,
  },
  "watch-interval": {
    type: "number",
    description:
      `Seconds between looks at the CLI for a new manifest, served and announced (list_changed) when it changes; 0 = never (default ${DEFAULT_WATCH_SECONDS})`,
  },
} as const;

/** The values of {@linkcode EXEC_FLAGS}. */
export type ExecFlagValues = FlagValues<typeof EXEC_FLAGS>;

/**
 * The argv of a command-line flag's value, split as a POSIX shell splits words but never run by one; an
 * empty or unbalanced one is an ARG_ERROR naming the flag.
 *
 * @example
 * ```ts
 * commandLineArgv("server", "notes mcp serve"); // ["notes", "mcp", "serve"]
 * ```
 */
export function commandLineArgv(flag: string, line: string): string[] {
  const split = splitCommandLine(line);
  if ("error" in split) {
    throw new CommandError(ExitCode.ARG_ERROR, `--${flag}: ${split.error}`, {
      suggestion: `quote the command line as a shell would: --${flag} "python3 'my tool.py' --profile dev"`,
    });
  }
  if (split.argv.length === 0) {
    throw new CommandError(ExitCode.ARG_ERROR, `--${flag} is empty: name a program`);
  }
  return split.argv;
}

/**
 * Refuses the flags that only mean something with `--exec` when it is absent.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<typeof EXEC_FLAGS>;
 * if (ctx.flags.exec === undefined) refuseWithoutExec(ctx.flags);
 * ```
 */
export function refuseWithoutExec(flags: ExecFlagValues): void {
  const given = [
    ["cwd", flags.cwd],
    ["call-timeout", flags["call-timeout"]],
    ["env-allow", flags["env-allow"].length === 0 ? undefined : flags["env-allow"]],
    ["max-output-bytes", flags["max-output-bytes"]],
    ["watch-interval", flags["watch-interval"]],
  ] as const;
  for (const [flag, value] of given) {
    if (value !== undefined) throw new CommandError(ExitCode.ARG_ERROR, `--${flag} applies only with --exec`);
  }
}

/**
 * How to run the bridged CLI, from its flags, checked: ARG_ERROR for a bad command line, time limit, output
 * cap or variable name. `cwd` overrides `--cwd` (an install fixes it as an absolute path).
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<typeof EXEC_FLAGS>;
 * const target = execTarget(ctx.flags.exec ?? "python3 cli.py", ctx.flags);
 * ```
 */
export function execTarget(
  exec: string,
  flags: ExecFlagValues,
  cwd: string | undefined = flags.cwd,
): ExecTarget {
  const callTimeout = flags["call-timeout"];
  const maxOutputBytes = flags["max-output-bytes"];
  if (callTimeout !== undefined && !(callTimeout >= 0)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--call-timeout expects seconds >= 0 (0 = no limit), got ${callTimeout}`,
    );
  }
  if (maxOutputBytes !== undefined && maxOutputBytes < 1024) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--max-output-bytes expects at least 1024, got ${maxOutputBytes}`,
    );
  }
  const allowed = flags["env-allow"];
  const env = execEnvironment(allowed.length === 0 ? undefined : envAllowList(allowed));
  return {
    argv: commandLineArgv("exec", exec),
    ...(cwd === undefined ? {} : { cwd }),
    callTimeoutMs: limitMs(callTimeout ?? DEFAULT_CALL_TIMEOUT_SECONDS),
    ...(env === undefined ? {} : { env }),
    ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
  };
}

/**
 * The flags that make `toolwire mcp serve` run the same CLI the same way: what an install registers.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<typeof EXEC_FLAGS>; // no other flag given
 * execServeArgs("python3 cli.py", ctx.flags, "/srv/project"); // ["--exec", "python3 cli.py", "--cwd", "/srv/project"]
 * ```
 */
export function execServeArgs(exec: string, flags: ExecFlagValues, cwd: string): string[] {
  const args = ["--exec", exec, "--cwd", cwd];
  if (flags["call-timeout"] !== undefined) args.push("--call-timeout", String(flags["call-timeout"]));
  for (const name of flags["env-allow"]) args.push("--env-allow", name);
  if (flags["max-output-bytes"] !== undefined) {
    args.push("--max-output-bytes", String(flags["max-output-bytes"]));
  }
  if (flags["watch-interval"] !== undefined) args.push("--watch-interval", String(flags["watch-interval"]));
  return args;
}

/**
 * The bridged CLI of `--exec`, ready to serve (see `prepareBridgedServer`), with `--watch-interval` and
 * `--read-only` checked and applied; `fleet` is what a listener shares with the other instances.
 *
 * @example
 * ```ts
 * import type { CommandContext, McpServeFlags } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<McpServeFlags & typeof EXEC_FLAGS>;
 * const target = execTarget(ctx.flags.exec ?? "python3 cli.py", ctx.flags);
 * const { catalog, serverInfo, instructions } = await prepareExec(target, ctx.flags, ctx.signal, ctx.log);
 * ```
 */
export function prepareExec(
  target: ExecTarget,
  flags: { "read-only": boolean; "watch-interval"?: number | undefined },
  signal: AbortSignal,
  log: (message: string) => void,
  fleet: { shared?: SharedState; stateDir?: string } = {},
): Promise<BridgedServer> {
  const watch = flags["watch-interval"] ?? DEFAULT_WATCH_SECONDS;
  if (!(watch >= 0)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--watch-interval expects seconds >= 0 (0 = never), got ${watch}`,
    );
  }
  return prepareBridgedServer(
    target,
    { readOnly: flags["read-only"], watchIntervalMs: limitMs(watch), ...fleet },
    signal,
    log,
  );
}
