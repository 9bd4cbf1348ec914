/**
 * `toolwire mcp serve`: the built-in server of toolwire's own commands, plus `--exec "<cli …>"`, which serves
 * the commands of any CLI that prints a manifest — in any language — with the same mapping, argument checks
 * and confirmation as a toolwire tool's own server (docs/toolwire.md).
 */
import type { McpServeDefinition, McpServeFlags, ProtocolCommandDefinition } from "../mod.ts";
import { serveMcp } from "../lib/protocol/mcp/mod.ts";
import { mcpServeLimits } from "../lib/bridge/mod.ts";
import { EXEC_FLAGS, execTarget, prepareExec, refuseWithoutExec } from "./exec_flags.ts";

const SERVE_EXEC_FLAGS = {
  ...EXEC_FLAGS,
  exec: {
    ...EXEC_FLAGS.exec,
    description:
      "Serve this CLI's commands instead of toolwire's: a command line, split like a shell would but never run by one",
  },
} as const;

/**
 * The `mcp serve` of the toolwire binary: the built-in, extended with `--exec`, `--cwd` and `--call-timeout`.
 * Its danger level is destructive — a bridged CLI can delete — and it declares the phase-1 failures of
 * `--exec`: 4 when the CLI prints no valid manifest, 5 when it cannot be started.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "bridge", version: "1.0.0", description: "Bridges CLIs", extendMcpServe: withExec });
 * ```
 */
export function withExec(
  builtin: McpServeDefinition,
): ProtocolCommandDefinition<McpServeFlags & typeof SERVE_EXEC_FLAGS> {
  return {
    ...builtin,
    description:
      "Serve MCP tools over stdio until stdin closes: toolwire's own commands, or with --exec those of any CLI that prints a manifest",
    danger_level: "destructive",
    flags: { ...builtin.flags, ...SERVE_EXEC_FLAGS },
    exit_codes: {
      ...builtin.exit_codes,
      "4": {
        name: "PRECONDITION",
        description:
          "The --exec CLI printed no valid manifest (`<cli> --format json manifest`); the server did not start",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description:
          "The --exec program or the --cwd directory does not exist or cannot be run; the server did not start",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      ...builtin.examples ?? [],
      {
        description: "Serve a Python CLI's commands",
        command: `toolwire mcp serve --exec "python3 tools/cli.py"`,
      },
      {
        description: "Serve only its safe commands, from a project directory",
        command: `toolwire mcp serve --exec "mytool --profile dev" --read-only --cwd ./project`,
      },
    ],
    serve: async (ctx) => {
      const exec = ctx.flags.exec;
      if (exec === undefined) {
        refuseWithoutExec(ctx.flags);
        return builtin.serve(ctx);
      }
      const limits = mcpServeLimits(ctx.flags);
      const target = execTarget(exec, ctx.flags);
      const prepared = await prepareExec(target, ctx.flags, ctx.signal, ctx.log);
      return (io) => serveMcp(io, { ...prepared, ...limits });
    },
  };
}
