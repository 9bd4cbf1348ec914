/**
 * `toolwire mcp install`: the built-in, which registers toolwire's own server, plus `--exec "<cli …>"`,
 * which registers `toolwire mcp serve --exec "<cli …>"` — any manifest-printing CLI as an MCP server.
 */
import {
  type CommandDefinition,
  CommandError,
  ExitCode,
  installMcpServer,
  type McpInstallDefinition,
  type McpInstallFlags,
} from "../mod.ts";
import { absolutePath, loadExecIdentity, loadExecManifest } from "../lib/bridge/mod.ts";
import { EXEC_FLAGS, execServeArgs, execTarget, refuseWithoutExec } from "./exec_flags.ts";

/**
 * What `toolwire mcp serve` needs on Deno: starting the CLI, reading its working directory, and its
 * environment to hand on. The CLI itself runs outside Deno's permissions.
 *
 * @example
 * ```ts
 * TOOLWIRE_DENO_PERMISSIONS.includes("--allow-run"); // true
 * ```
 */
export const TOOLWIRE_DENO_PERMISSIONS: readonly string[] = ["--allow-run", "--allow-read", "--allow-env"];

const EXEC_INSTALL_FLAGS = {
  ...EXEC_FLAGS,
  exec: {
    type: "string",
    description:
      "Register `toolwire mcp serve --exec` for this CLI instead of toolwire's own server; its manifest is checked first",
  },
  cwd: {
    type: "string",
    description:
      "Working directory of the --exec CLI, registered as an absolute path (default: this directory)",
  },
} as const;

/**
 * The `mcp install` of the toolwire binary: the built-in, extended with `--exec`, `--cwd` and
 * `--call-timeout`. With `--exec` the CLI's manifest is loaded and checked as `mcp serve --exec` would —
 * 4 when it prints no valid manifest, 5 when it cannot be started — and the server is named after the tool
 * the manifest describes unless `--name` is given.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "bridge", version: "1.0.0", description: "Bridges CLIs", extendMcpInstall: withExecInstall });
 * ```
 */
export function withExecInstall(
  builtin: McpInstallDefinition,
): CommandDefinition<McpInstallFlags & typeof EXEC_INSTALL_FLAGS> {
  return {
    ...builtin,
    description:
      "Register an MCP server with an MCP client: toolwire's own, or with --exec `toolwire mcp serve --exec` for any CLI that prints a manifest",
    flags: { ...builtin.flags, ...EXEC_INSTALL_FLAGS },
    exit_codes: {
      ...builtin.exit_codes,
      "4": {
        name: "PRECONDITION",
        description:
          "The --exec CLI printed no valid manifest, or the configuration is not a JSON object; nothing was changed",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description:
          "The --exec program or the --cwd directory does not exist or cannot be run; nothing was changed",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      ...builtin.examples ?? [],
      {
        description: "Register a Python CLI's commands with Claude Desktop",
        command: `toolwire mcp install --client claude-desktop --exec "python3 tools/cli.py" --cwd ./project`,
      },
    ],
    run: async (ctx) => {
      const exec = ctx.flags.exec;
      if (exec === undefined) {
        refuseWithoutExec(ctx.flags);
        return builtin.run(ctx);
      }
      // The client starts the server from a directory of its own choosing: a relative path in --exec works
      // only from a fixed, absolute working directory.
      const cwd = absolutePath(ctx.flags.cwd ?? ".");
      const target = execTarget(exec, ctx.flags, cwd);
      await loadExecManifest(
        target,
        ctx.signal,
        (message) => ctx.warn({ code: "MANIFEST_UNKNOWN_MEMBER", message }),
      );
      const defaultName = ctx.flags.name ?? (await loadExecIdentity(target, ctx.signal))?.name;
      if (defaultName === undefined) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          "the CLI's --version names no tool: give the server a --name",
        );
      }
      return installMcpServer(ctx, {
        serveArgs: ["mcp", "serve", ...execServeArgs(exec, ctx.flags, cwd)],
        defaultName,
        denoPermissions: TOOLWIRE_DENO_PERMISSIONS,
      });
    },
  };
}
