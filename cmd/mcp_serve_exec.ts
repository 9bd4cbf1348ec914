/**
 * `toolwire mcp serve`: the built-in server of toolwire's own commands, plus `--exec "<cli …>"`, which serves
 * the commands of any CLI that prints a manifest — in any language — with the same mapping, argument checks
 * and confirmation as a toolwire tool's own server (SPEC §7).
 */
import { type McpServeDefinition, type McpServeFlags, mcpServeLimits } from "../lib/command/builtin_mcp_serve.ts";
import { CommandError } from "../lib/command/command_error.ts";
import { quoteCommandLine, splitCommandLine } from "../lib/command/command_line.ts";
import type { ProtocolCommandDefinition } from "../lib/command/contract.ts";
import { ExitCode } from "../lib/exit_code.ts";
import { execCatalog, type ExecTarget } from "../lib/command/mcp/exec_catalog.ts";
import { loadExecIdentity } from "../lib/command/mcp/exec_identity.ts";
import { envAllowList, execEnvironment } from "../lib/command/mcp/exec_environment.ts";
import { STDOUT_BYTES } from "../lib/command/child_run.ts";
import { limitMs } from "../lib/command/time_limit.ts";
import { loadExecManifest } from "../lib/command/mcp/exec_manifest.ts";
import { serveMcp } from "../lib/protocol/mcp/mod.ts";
import { FRAMEWORK_VERSION } from "../lib/version.ts";

/** Seconds a bridged call may run when `--call-timeout` is not given. */
const DEFAULT_CALL_TIMEOUT_SECONDS = 60;

const EXEC_FLAGS = {
  exec: {
    type: "string",
    description: "Serve this CLI's commands instead of toolwire's: a command line, split like a shell would but never run by one",
  },
  cwd: { type: "string", description: "Working directory of the --exec CLI, for its manifest and every call" },
  "call-timeout": {
    type: "number",
    description: `Seconds a bridged call may run before its process group is stopped with TIMEOUT; 0 = no limit (default ${DEFAULT_CALL_TIMEOUT_SECONDS})`,
  },
  "env-allow": {
    type: "array",
    description: "Pass the --exec CLI only these environment variables (repeat, or a comma list; '' for none) plus PATH, HOME and the other basics; without it the CLI inherits the server's whole environment",
  },
  "max-output-bytes": {
    type: "integer",
    description: `Most stdout bytes of a bridged call kept, the last ones; beyond it the first are dropped (default ${STDOUT_BYTES})`,
  },
} as const;

/**
 * The `mcp serve` of the toolwire binary: the built-in, extended with `--exec`, `--cwd` and `--call-timeout`.
 * Its danger level is destructive — a bridged CLI can delete — and it declares the phase-1 failures of
 * `--exec`: 4 when the CLI prints no valid manifest, 5 when it cannot be started.
 *
 * @example
 * ```ts
 * registerMcpServe(tool, withExec);
 * ```
 */
export function withExec(builtin: McpServeDefinition): ProtocolCommandDefinition<McpServeFlags & typeof EXEC_FLAGS> {
  return {
    ...builtin,
    description: "Serve MCP tools over stdio until stdin closes: toolwire's own commands, or with --exec those of any CLI that prints a manifest",
    danger_level: "destructive",
    flags: { ...builtin.flags, ...EXEC_FLAGS },
    exit_codes: {
      ...builtin.exit_codes,
      "4": {
        name: "PRECONDITION",
        description: "The --exec CLI printed no valid manifest (`<cli> --format json manifest`); the server did not start",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description: "The --exec program or the --cwd directory does not exist or cannot be run; the server did not start",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      ...builtin.examples ?? [],
      { description: "Serve a Python CLI's commands", command: `toolwire mcp serve --exec "python3 tools/cli.py"` },
      { description: "Serve only its safe commands, from a project directory", command: `toolwire mcp serve --exec "mytool --profile dev" --read-only --cwd ./project` },
    ],
    serve: async (ctx) => {
      const exec = ctx.flags.exec;
      const callTimeout = ctx.flags["call-timeout"];
      const envAllow = ctx.flags["env-allow"];
      const maxOutputBytes = ctx.flags["max-output-bytes"];
      if (exec === undefined) {
        const given = [["cwd", ctx.flags.cwd], ["call-timeout", callTimeout], ["env-allow", envAllow.length === 0 ? undefined : envAllow], ["max-output-bytes", maxOutputBytes]] as const;
        for (const [flag, value] of given) {
          if (value !== undefined) throw new CommandError(ExitCode.ARG_ERROR, `--${flag} applies only with --exec`);
        }
        return builtin.serve(ctx);
      }
      const limits = mcpServeLimits(ctx.flags);
      if (callTimeout !== undefined && !(callTimeout >= 0)) {
        throw new CommandError(ExitCode.ARG_ERROR, `--call-timeout expects seconds >= 0 (0 = no limit), got ${callTimeout}`);
      }
      if (maxOutputBytes !== undefined && maxOutputBytes < 1024) {
        throw new CommandError(ExitCode.ARG_ERROR, `--max-output-bytes expects at least 1024, got ${maxOutputBytes}`);
      }
      const env = execEnvironment(envAllow.length === 0 ? undefined : envAllowList(envAllow));
      const target: ExecTarget = {
        argv: execArgv(exec),
        ...(ctx.flags.cwd === undefined ? {} : { cwd: ctx.flags.cwd }),
        callTimeoutMs: limitMs(callTimeout ?? DEFAULT_CALL_TIMEOUT_SECONDS),
        ...(env === undefined ? {} : { env }),
        ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }),
      };
      const manifest = await loadExecManifest(target, ctx.signal);
      const identity = await loadExecIdentity(target, ctx.signal);
      const catalog = await execCatalog(target, manifest, { readOnly: ctx.flags["read-only"] });
      const shown = quoteCommandLine(target.argv);
      return (io) =>
        serveMcp(io, {
          serverInfo: { name: identity?.name ?? "toolwire", version: identity?.version ?? FRAMEWORK_VERSION },
          instructions: `${identity?.description ?? `The commands of '${shown}'`}. Each tool runs '${shown} <command>' ` +
            "as a child process; results are its JSON envelope.",
          catalog,
          ...limits,
        });
    },
  };
}

function execArgv(exec: string): string[] {
  const split = splitCommandLine(exec);
  if ("error" in split) {
    throw new CommandError(ExitCode.ARG_ERROR, `--exec: ${split.error}`, {
      suggestion: "quote the command line as a shell would: --exec \"python3 'my tool.py' --profile dev\"",
    });
  }
  if (split.argv.length === 0) throw new CommandError(ExitCode.ARG_ERROR, "--exec is empty: name the CLI to serve");
  return split.argv;
}
