/**
 * `toolwire mcp snapshot --exec "<cli …>"`: the tool list `toolwire mcp serve --exec` would serve, as
 * deterministic JSON — a `tools/list` result to commit, and to compare later with `toolwire mcp diff`.
 */
import type { Tool } from "../mod.ts";
import type { McpTool } from "../lib/protocol/mcp/mod.ts";
import {
  type ExecTarget,
  loadExecManifest,
  mcpTool,
  renderPlainData,
  servedCommands,
} from "../lib/bridge/mod.ts";
import { commandLineArgv } from "./exec_flags.ts";

/** The flags `mcp snapshot` and `mcp diff` share: which CLI, where, and which of its tools. */
export const EXEC_TOOLS_FLAGS = {
  exec: {
    type: "string",
    required: true,
    description:
      "The CLI whose manifest gives the tools: a command line, split like a shell would but never run by one",
  },
  cwd: { type: "string", description: "Working directory of the programs started" },
  "read-only": {
    type: "boolean",
    default: false,
    description: "Only the safe commands, as `toolwire mcp serve --exec … --read-only` serves them",
  },
} as const;

/** The exit codes of reading a CLI's manifest, as `mcp snapshot` and `mcp diff` declare them. */
const EXEC_MANIFEST_EXIT_CODES = {
  "4": {
    name: "PRECONDITION",
    description: "The --exec CLI printed no valid manifest (`<cli> --format json manifest`)",
    retryable: false,
    side_effects: "none",
  },
  "5": {
    name: "NOT_FOUND",
    description: "A program to start, or the --cwd directory, does not exist or cannot be run",
    retryable: false,
    side_effects: "none",
  },
} as const;

/**
 * The tools `toolwire mcp serve --exec` would serve for a CLI: its manifest read and checked exactly as the
 * server reads it, then mapped by the same code, sorted by command path.
 */
async function execTools(
  target: ExecTarget,
  readOnly: boolean,
  signal: AbortSignal,
  warn: (message: string) => void,
): Promise<McpTool[]> {
  const manifest = await loadExecManifest(target, signal, warn);
  return servedCommands(manifest.commands, { readOnly }).map(([path, entry]) => mcpTool(path, entry));
}

/**
 * Registers `toolwire mcp snapshot --exec "<cli …>" [--read-only] [--output <file>]`.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "toolwire", version: "0.1.0", description: "Bridge CLIs to MCP" });
 * registerMcpSnapshot(tool);
 * ```
 */
export function registerMcpSnapshot(tool: Tool): void {
  tool.command("mcp.snapshot", {
    description:
      "Print the tool list `mcp serve --exec` would serve for a CLI, as deterministic JSON (a tools/list result)",
    // It runs `<cli> manifest` and nothing else; the only file it writes is the --output the caller names.
    danger_level: "safe",
    required_scopes: [],
    // Over MCP, --exec would let a model start any program under a read-only hint: a command for people and CI.
    mcp: false,
    output_file: true,
    flags: EXEC_TOOLS_FLAGS,
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "The tool list, in data or written to --output",
        retryable: false,
        side_effects: "none",
      },
      ...EXEC_MANIFEST_EXIT_CODES,
    },
    examples: [
      {
        description: "Save the tools a CLI serves",
        command: `toolwire mcp snapshot --exec "python3 tools/cli.py" --output mcp-tools.json`,
      },
      {
        description: "Only the read-only tools",
        command: `toolwire mcp snapshot --exec notes --read-only --output mcp-tools.json`,
      },
    ],
    run: async (ctx) => {
      const target: ExecTarget = {
        argv: commandLineArgv("exec", ctx.flags.exec),
        ...(ctx.flags.cwd === undefined ? {} : { cwd: ctx.flags.cwd }),
        callTimeoutMs: 0,
      };
      const warn = (message: string) => ctx.warn({ code: "MANIFEST_UNKNOWN_MEMBER", message });
      return { tools: await execTools(target, ctx.flags["read-only"], ctx.signal, warn) };
    },
    // The list itself, as the --output file holds it; `{output, bytes}` once it went to a file.
    plain: (data) => {
      const record = data as Record<string, unknown> | null;
      return Array.isArray(record?.tools) ? JSON.stringify(record, null, 2) : renderPlainData(data);
    },
  });
}
