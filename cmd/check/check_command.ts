import { CommandError, ExitCode, type Tool } from "../../mod.ts";
import { limitMs } from "../../lib/bridge/mod.ts";
import { parsePrepareFailure } from "./prepare_failure.ts";
import { renderReport } from "./report.ts";
import { runChecks } from "./run_checks.ts";

/** Exit code of a check that ran and found at least one criterion broken. */
export const CHECK_FAILED = 80;

/**
 * Registers `toolwire check -- <cli …>`: the REQ-C-032 conformance check of any CLI, from outside.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "toolwire", version: "0.1.0", description: "Bridge CLIs to MCP" });
 * registerCheck(tool);
 * ```
 */
export function registerCheck(tool: Tool): void {
  tool.command("check", {
    description:
      "Check any CLI from outside against the contract of protocol server commands and the envelope and exit-code basics",
    // Probes only ask for help, pass flags that must be refused, and start and stop servers: nothing changes.
    danger_level: "safe",
    required_scopes: [],
    flags: {
      "probe-timeout": {
        type: "number",
        default: 10,
        description: "Seconds each probe may take before its process group is killed",
      },
      "prepare-failure": {
        type: "array",
        description:
          'A protocol command and the arguments that make its preparation fail, as one command line ("lsp --config missing.toml"); checks that a failure while preparing to serve ends cleanly. Repeat for several',
      },
      "prepare-failure-env": {
        type: "array",
        description: "NAME=VALUE added to the environment of every --prepare-failure run; repeat for several",
      },
    },
    positionals: [{
      name: "cli",
      variadic: true,
      description: "The CLI to check: its program and leading arguments, after --",
    }],
    // Each probe has its own limit; the whole run has none (a CLI with many commands takes a while).
    timeout_seconds: 0,
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "Every criterion passed or was skipped",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description: "The CLI could not be started: the program does not exist or cannot run",
        retryable: false,
        side_effects: "none",
      },
      [String(CHECK_FAILED)]: {
        name: "CHECK_FAILED",
        description: "At least one criterion failed; data is the report, each failure with its evidence",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      { description: "Check a Python CLI", command: "toolwire check -- python3 tools/cli.py" },
      { description: "Check a toolwire tool, as JSON", command: "toolwire --format json check -- notes" },
      {
        description: "Also check how a server fails while preparing",
        command: 'toolwire check --prepare-failure "lsp --config missing.toml" -- ./mytool',
      },
    ],
    run: async (ctx) => {
      const probeTimeout = ctx.flags["probe-timeout"];
      if (!(probeTimeout > 0)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          `--probe-timeout expects seconds > 0, got ${probeTimeout}`,
        );
      }
      const prepareFailure = parsePrepareFailure(
        ctx.flags["prepare-failure"],
        ctx.flags["prepare-failure-env"],
      );
      const report = await runChecks(ctx.args.cli, {
        probeTimeoutMs: limitMs(probeTimeout),
        signal: ctx.signal,
        ...(prepareFailure.triggers.length === 0 ? {} : { prepareFailure }),
      });
      if (report.summary.failed === 0) return report;
      const failed = report.criteria.filter((result) => result.status === "fail").map((result) => result.id);
      throw new CommandError(
        CHECK_FAILED,
        `${failed.length} of ${report.criteria.length} criteria failed: ${failed.join(", ")}`,
        {
          code: "CHECK_FAILED",
          data: report,
          suggestion: "each failed criterion in data.criteria names what broke and where",
        },
      );
    },
    plain: renderReport,
  });
}
