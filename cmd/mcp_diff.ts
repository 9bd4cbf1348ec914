/**
 * `toolwire mcp diff --exec "<cli …>" (--snapshot <file> | --server "<cmd …>")`: schema drift (REQ-O-035) —
 * the tools a CLI's manifest maps to against a saved tool list or a live MCP server's, reported as data and
 * as exit code 80 when they differ, so CI can stop on it.
 */
import { CommandError, ExitCode, type Tool } from "../mod.ts";
import {
  diffTools,
  type ExecTarget,
  hasDrift,
  type ListedTool,
  loadExecManifest,
  quoteCommandLine,
  readTextIfExists,
  readToolList,
  servedCommands,
  type ToolDifference,
  type ToolDrift,
} from "../lib/bridge/mod.ts";
import { listLiveTools } from "./mcp_live_tools.ts";
import { commandLineArgv } from "./exec_flags.ts";
import { EXEC_TOOLS_FLAGS } from "./mcp_snapshot.ts";

/** Exit code of a comparison that found drift. */
export const DRIFT = 80;

/** The report of `toolwire mcp diff`: its `data`, with drift or without. A type, so it is envelope data. */
export type DiffReport = {
  /** The `--exec` command line. */
  cli: string;
  /** What it was compared with: the snapshot file, or the server's command line. */
  mcp: { snapshot: string } | { server: string };
  read_only: boolean;
  /** How many tools each side has. */
  tools: { cli: number; mcp: number };
  drift: ToolDrift;
};

/**
 * Registers `toolwire mcp diff`.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "toolwire", version: "0.1.0", description: "Bridge CLIs to MCP" });
 * registerMcpDiff(tool);
 * ```
 */
export function registerMcpDiff(tool: Tool): void {
  tool.command("mcp.diff", {
    description:
      "Compare the MCP tools a CLI's manifest maps to with a saved tools/list or a live MCP server; exit 80 on drift",
    // It reads the CLI's manifest and lists a server's tools: no tool is called, nothing changes.
    danger_level: "safe",
    required_scopes: [],
    // Over MCP, --exec and --server would let a model start any program under a read-only hint.
    mcp: false,
    flags: {
      ...EXEC_TOOLS_FLAGS,
      snapshot: {
        type: "string",
        description:
          "A saved tool list: a JSON file with the tools array or a tools/list result (what mcp snapshot writes)",
      },
      server: {
        type: "string",
        description:
          "A live MCP stdio server's command line: started, asked initialize and every page of tools/list, ended",
      },
    },
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "No drift: both sides have the same tools with the same contents",
        retryable: false,
        side_effects: "none",
      },
      "4": {
        name: "PRECONDITION",
        description:
          "The --exec CLI printed no valid manifest, or the --server did not answer tools/list as an MCP server",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description: "The --snapshot file, a program to start, or the --cwd directory does not exist",
        retryable: false,
        side_effects: "none",
      },
      [String(DRIFT)]: {
        name: "DRIFT",
        description: "The tool lists differ; data.drift lists the added, removed and changed tools",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      {
        description: "Check a committed snapshot in CI",
        command: `toolwire mcp diff --exec "python3 tools/cli.py" --snapshot mcp-tools.json`,
      },
      {
        description: "Compare with a running server's list",
        command: `toolwire mcp diff --exec notes --server "notes mcp serve"`,
      },
    ],
    run: async (ctx) => {
      const { snapshot, server, cwd } = ctx.flags;
      if ((snapshot === undefined) === (server === undefined)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          snapshot === undefined
            ? "give --snapshot <file> or --server <command line>"
            : "give --snapshot or --server, not both",
          { suggestion: "toolwire mcp diff --exec <cli> --snapshot mcp-tools.json" },
        );
      }
      const cliArgv = commandLineArgv("exec", ctx.flags.exec);
      const serverArgv = server === undefined ? undefined : commandLineArgv("server", server);
      const target: ExecTarget = { argv: cliArgv, ...(cwd === undefined ? {} : { cwd }), callTimeoutMs: 0 };
      // The file first: a wrong path fails before any program starts.
      const saved = snapshot === undefined ? undefined : await readSnapshot(snapshot);
      const manifest = await loadExecManifest(
        target,
        ctx.signal,
        (message) => ctx.warn({ code: "MANIFEST_UNKNOWN_MEMBER", message }),
      );
      const listed = saved ??
        await listLiveTools(serverArgv!, { ...(cwd === undefined ? {} : { cwd }), signal: ctx.signal });
      const filter = { readOnly: ctx.flags["read-only"] };
      const report: DiffReport = {
        cli: quoteCommandLine(cliArgv),
        mcp: snapshot === undefined ? { server: quoteCommandLine(serverArgv!) } : { snapshot },
        read_only: filter.readOnly,
        tools: { cli: servedCommands(manifest.commands, filter).length, mcp: listed.length },
        drift: diffTools(manifest.commands, filter, listed),
      };
      if (!hasDrift(report.drift)) return report;
      const { added, removed, changed } = report.drift;
      throw new CommandError(
        DRIFT,
        `drift: ${added.length} added, ${removed.length} removed, ${changed.length} changed`,
        {
          code: "DRIFT",
          data: report,
          suggestion: snapshot === undefined
            ? "restart the MCP server on the CLI's current manifest"
            : `refresh the snapshot: toolwire mcp snapshot --exec ${quoteCommandLine([ctx.flags.exec])}${
              filter.readOnly ? " --read-only" : ""
            } --output ${quoteCommandLine([snapshot])}`,
        },
      );
    },
    plain: (data) => renderDiff(data as DiffReport),
  });
}

async function readSnapshot(path: string): Promise<ListedTool[]> {
  let text: string | undefined;
  try {
    text = await readTextIfExists(path);
  } catch (error) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--snapshot ${path} cannot be read (${(error as { code?: string }).code ?? String(error)})`,
      {
        suggestion: "--snapshot names a JSON file, e.g. one `toolwire mcp snapshot --output` wrote",
      },
    );
  }
  if (text === undefined) {
    throw new CommandError(ExitCode.NOT_FOUND, `--snapshot ${path} does not exist`, {
      suggestion: "write one with: toolwire mcp snapshot --exec <cli> --output <file>",
    });
  }
  let value: unknown;
  try {
    // A byte order mark is no JSON, but editors on some systems write one: it is not part of the list.
    value = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
  } catch (error) {
    throw new CommandError(ExitCode.ARG_ERROR, `--snapshot ${path} is not JSON: ${(error as Error).message}`);
  }
  const read = readToolList(value);
  if ("problem" in read) throw new CommandError(ExitCode.ARG_ERROR, `--snapshot ${path}: ${read.problem}`);
  return read.tools;
}

/** The report for a person: one line per tool that differs, each difference under its tool. */
function renderDiff(report: DiffReport): string {
  const against = "snapshot" in report.mcp
    ? `snapshot ${report.mcp.snapshot}`
    : `server ${report.mcp.server}`;
  const lines = [
    `toolwire mcp diff — ${report.cli} against ${against}${report.read_only ? " (read-only)" : ""}`,
  ];
  const { added, removed, changed } = report.drift;
  // A loop, not Math.max(...): a spread of a list of 300 000 tools is past the engine's argument limit.
  let width = 0;
  for (const entry of [...added, ...removed, ...changed]) width = Math.max(width, entry.tool.length);
  for (const entry of added) {
    lines.push(`+ ${entry.tool.padEnd(width)}  the CLI serves it (${entry.command}); the MCP list lacks it`);
  }
  for (const entry of removed) {
    lines.push(`- ${entry.tool.padEnd(width)}  the MCP list has it; ${entry.reason}`);
  }
  for (const entry of changed) {
    lines.push(`~ ${entry.tool.padEnd(width)}  ${entry.fields.join(", ")}`);
    for (const difference of entry.differences) {
      lines.push(
        `    ${difference.pointer}: cli ${shown(difference, "cli")}, mcp ${shown(difference, "mcp")}`,
      );
    }
  }
  lines.push(
    hasDrift(report.drift)
      ? `drift: ${added.length} added, ${removed.length} removed, ${changed.length} changed`
      : `no drift: the same ${report.tools.cli} tools on both sides`,
  );
  return lines.join("\n");
}

function shown(difference: ToolDifference, side: "cli" | "mcp"): string {
  if (!Object.hasOwn(difference, side)) return "(absent)";
  const text = JSON.stringify(difference[side]);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
