import { CommandError, ExitCode, type Tool } from "../../mod.ts";
import { compileOnMainThread, limitMs } from "../../lib/bridge/mod.ts";
import { parsePrepareFailure } from "./prepare_failure.ts";
import { renderReport } from "./report.ts";
import { runChecks } from "./run_checks.ts";

/** Exit code of a check that ran and found at least one criterion broken. */
export const CHECK_FAILED = 80;

/** Seconds the whole check may take when `--time-limit` is not given. */
export const DEFAULT_TIME_LIMIT_SECONDS = 600;

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
      "time-limit": {
        type: "number",
        default: DEFAULT_TIME_LIMIT_SECONDS,
        description:
          "Seconds the whole check may take; then the report shows what was settled, the rest skipped (exit 14); 0 = no limit",
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
    // Each probe has its own limit, and the whole run --time-limit: past it a partial report beats none.
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
      "14": {
        name: "INCOMPLETE",
        description: "The time limit ended the check first; none failed; data is the partial report",
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
      // Probes' outputs churn the heap, which makes Node's exit deadlock with a background compile job likely.
      compileOnMainThread();
      const probeTimeout = ctx.flags["probe-timeout"];
      if (!(probeTimeout > 0)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          `--probe-timeout expects seconds > 0, got ${probeTimeout}`,
        );
      }
      const timeLimit = ctx.flags["time-limit"];
      if (!(timeLimit >= 0)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          `--time-limit expects seconds >= 0 (0 = no limit), got ${timeLimit}`,
        );
      }
      const prepareFailure = parsePrepareFailure(
        ctx.flags["prepare-failure"],
        ctx.flags["prepare-failure-env"],
      );
      const report = await runChecks(ctx.args.cli, {
        probeTimeoutMs: limitMs(probeTimeout),
        timeLimitMs: limitMs(timeLimit),
        signal: ctx.signal,
        ...(prepareFailure.triggers.length === 0 ? {} : { prepareFailure }),
      });
      if (report.summary.failed === 0 && report.complete) return report;
      if (report.summary.failed === 0) {
        throw new CommandError(
          ExitCode.INCOMPLETE,
          `the time limit of ${timeLimit} s ended the check first: ${report.summary.skipped} of ${report.criteria.length} criteria skipped, none failed`,
          {
            code: "INCOMPLETE",
            data: report,
            suggestion: "check again with a longer --time-limit (0 = no limit)",
          },
        );
      }
      const failed = report.criteria.filter((result) => result.status === "fail").map((result) => result.id);
      throw new CommandError(
        CHECK_FAILED,
        `${failed.length} of ${report.criteria.length} criteria failed: ${failed.join(", ")}${
          report.complete ? "" : ` (the time limit of ${timeLimit} s ended the check first)`
        }`,
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
