/**
 * `toolwire mcp listen`: the built-in listener of toolwire's own commands, plus `--exec "<cli …>"`, which
 * serves the commands of any CLI that prints a manifest — on an HTTP endpoint, a Unix socket or a TCP port,
 * with the same mapping, argument checks and confirmation as `toolwire mcp serve --exec` (docs/toolwire.md).
 */
import {
  type CommandDefinition,
  listenForClients,
  type McpListenDefinition,
  type McpListenFlags,
  withSharedState,
} from "../mod.ts";
import { EXEC_FLAGS, execTarget, prepareExec, refuseWithoutExec } from "./exec_flags.ts";

const LISTEN_EXEC_FLAGS = {
  ...EXEC_FLAGS,
  exec: {
    ...EXEC_FLAGS.exec,
    description:
      "Serve this CLI's commands instead of toolwire's: a command line, split like a shell would but never run by one",
  },
} as const;

/**
 * The `mcp listen` of the toolwire binary: the built-in, extended with `--exec`, `--cwd` and the other flags
 * of a bridged CLI. It declares the start-up failures of `--exec`: 4 when the CLI prints no valid manifest,
 * 5 when it cannot be started. `stateDir` is where the processes of one host redeem confirmations when they
 * share a `--confirmation-secret-file` but no `--state-store`.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "bridge", version: "1.0.0", description: "Bridges CLIs", extendMcpListen: withExecListen });
 * ```
 */
export function withExecListen(
  builtin: McpListenDefinition,
  stateDir?: () => string,
): CommandDefinition<McpListenFlags & typeof LISTEN_EXEC_FLAGS> {
  return {
    ...builtin,
    description:
      "Serve MCP tools on an HTTP endpoint, a Unix socket or a loopback TCP port, to many clients at once, until SIGTERM: toolwire's own commands, or with --exec those of any CLI that prints a manifest (its clients can then run whatever that CLI serves, destructive commands included)",
    flags: { ...builtin.flags, ...LISTEN_EXEC_FLAGS },
    exit_codes: {
      ...builtin.exit_codes,
      "4": {
        name: "PRECONDITION",
        description:
          "The --exec CLI printed no valid manifest, or the redis package (--state-store) is missing; the server did not start",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description:
          "The --exec program, the --cwd directory or the socket's directory does not exist; the server did not start",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      ...builtin.examples ?? [],
      {
        description: "Serve a Python CLI over HTTP",
        command: `toolwire mcp listen --exec "python3 tools/cli.py" http://127.0.0.1:7010/mcp`,
      },
      {
        description: "Serve its safe commands on a Unix socket",
        command: `toolwire mcp listen --exec notes --read-only unix:/tmp/notes.sock`,
      },
    ],
    run: async (ctx) => {
      const exec = ctx.flags.exec;
      if (exec === undefined) {
        refuseWithoutExec(ctx.flags);
        return builtin.run(ctx);
      }
      const target = execTarget(exec, ctx.flags);
      return await withSharedState(ctx, "toolwire", async (shared) =>
        listenForClients(
          ctx,
          await prepareExec(target, ctx.flags, ctx.signal, ctx.log, {
            shared,
            ...(stateDir === undefined ? {} : { stateDir: stateDir() }),
          }),
        ));
    },
  };
}
