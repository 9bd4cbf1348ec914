import type { CheckReport } from "./run_checks.ts";

const MARK = { pass: "PASS", fail: "FAIL", skip: "skip" } as const;

/**
 * The check report for a person: one block per criterion — verdict, id, what is checked, what was seen —
 * failures easy to spot, and the totals last.
 *
 * @example
 * ```ts
 * import { runChecks } from "./run_checks.ts";
 *
 * const signal = AbortSignal.timeout(300_000);
 * const report = await runChecks(["notes"], { probeTimeoutMs: 10_000, signal });
 * console.log(renderReport(report));
 * ```
 */
export function renderReport(data: unknown): string {
  const report = data as CheckReport;
  const width = Math.max(...report.criteria.map((result) => result.id.length));
  const lines = [`toolwire check — ${report.cli}`, ""];
  for (const result of report.criteria) {
    lines.push(`${MARK[result.status]}  ${result.id.padEnd(width)}  ${result.criterion}`);
    lines.push(`${" ".repeat(width + 8)}${result.evidence}`);
  }
  const { passed, failed, skipped } = report.summary;
  lines.push(
    "",
    `${report.criteria.length} criteria: ${passed} passed, ${failed} failed, ${skipped} skipped${
      report.complete ? "" : " (the time limit ended the check first)"
    }`,
  );
  return lines.join("\n");
}
