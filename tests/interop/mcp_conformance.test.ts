// The official MCP conformance suite (@modelcontextprotocol/conformance, its `server` command) against
// `notes mcp listen http://127.0.0.1:0/mcp`, spawned for real: every scenario of the suite once at the
// version it targets (`--suite all`), and every scenario 2025-11-25 requires again on that wire
// (`--requirements 2025-11-25`). Each scenario a tools-only server can pass must pass; each that cannot
// apply must fail only for the reason docs/mcp_http.md gives (a tool, method or extension notes does not
// serve). A scenario this table does not know fails the test: the table and the doc are then due an update.
//
// The suite's CLI needs Node >= 22. On an older Node, npm test (scripts/test.mjs) installs the pinned Node 24
// for it first; run alone with no Node >= 22 at hand, the test is skipped, saying why (tests/helpers/newer_node.ts).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { finished, type Loose, NOTES, ROOT, tempDir } from "../helpers/run.ts";
import { startHttpListener } from "../helpers/http_listener.ts";
import { newerNode } from "../helpers/newer_node.ts";

const CLI = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const NODE = newerNode(22);
if ("reason" in NODE) console.warn(`mcp_conformance.test.ts: skipped, ${NODE.reason}`);

/** What notes does not serve, as the suite reports it. */
const NO_TOOL = /Unknown tool: |not found\. Available tools:|does not list the diagnostic tool/;
const NO_METHOD = /Method not found: (prompts|resources|completion)\//;
const NO_MRTR_TOOL =
  /Unknown tool: test_|Method not found: prompts\/get|Expected InputRequiredResult|Prerequisite failed/;
const EXTENSION = /Unknown tool: |capabilities\.extensions|-32021|-32601|Not testable|fixture/;

/**
 * Each scenario: `"pass"`, or the pattern every failed check's message must match (why it cannot apply to a
 * tools-only server). docs/mcp_http.md has the same table, with the reasons in words.
 */
const EXPECTED: Record<string, "pass" | RegExp> = {
  "server-initialize": "pass",
  "server-session-lifecycle": "pass",
  "server-stateless": /test_missing_capability|test_streaming_elicitation|test_logging_tool/,
  "logging-set-level": "pass",
  ping: "pass",
  "completion-complete": NO_METHOD,
  "tools-list": "pass",
  "tools-call-simple-text": NO_TOOL,
  "tools-call-image": NO_TOOL,
  "tools-call-audio": NO_TOOL,
  "tools-call-embedded-resource": NO_TOOL,
  "tools-call-mixed-content": NO_TOOL,
  "tools-call-with-logging": NO_TOOL,
  "tools-call-error": NO_TOOL,
  "tools-call-with-progress": NO_TOOL,
  "tools-call-sampling": NO_TOOL,
  "tools-call-elicitation": NO_TOOL,
  "json-schema-2020-12": NO_TOOL,
  "elicitation-sep1034-defaults": NO_TOOL,
  "elicitation-sep1330-enums": NO_TOOL,
  "server-sse-polling": "pass",
  "server-sse-multiple-streams": "pass",
  "resources-list": NO_METHOD,
  "resources-read-text": NO_METHOD,
  "resources-read-binary": NO_METHOD,
  "resources-templates-read": NO_METHOD,
  "resources-subscribe": NO_METHOD,
  "resources-unsubscribe": NO_METHOD,
  "sep-2164-resource-not-found": "pass",
  "sep-2640-skills-directory": "pass",
  "sep-2640-skills-enumeration": "pass",
  "sep-2640-skills-manifest": "pass",
  "prompts-list": NO_METHOD,
  "prompts-get-simple": NO_METHOD,
  "prompts-get-with-args": NO_METHOD,
  "prompts-get-embedded-resource": NO_METHOD,
  "prompts-get-with-image": NO_METHOD,
  "dns-rebinding-protection": "pass",
  caching: NO_METHOD,
  "http-header-validation": "pass",
  "http-custom-header-server-validation": /no tool with x-mcp-header annotations/,
  "tasks-lifecycle": EXTENSION,
  "tasks-capability-negotiation": EXTENSION,
  "tasks-wire-fields": EXTENSION,
  "tasks-request-state-removal": EXTENSION,
  "tasks-mrtr-input": EXTENSION,
  "tasks-request-headers": EXTENSION,
  "tasks-dispatch-and-envelope": EXTENSION,
  "tasks-status-notifications": "pass",
  "tasks-required-task-error": EXTENSION,
  "tasks-mrtr-composition": EXTENSION,
  "input-required-result-basic-elicitation": NO_MRTR_TOOL,
  "input-required-result-basic-sampling": NO_MRTR_TOOL,
  "input-required-result-basic-list-roots": NO_MRTR_TOOL,
  "input-required-result-request-state": NO_MRTR_TOOL,
  "input-required-result-multiple-input-requests": NO_MRTR_TOOL,
  "input-required-result-multi-round": NO_MRTR_TOOL,
  "input-required-result-missing-input-response": "pass",
  "input-required-result-non-tool-request": NO_MRTR_TOOL,
  "input-required-result-result-type": NO_MRTR_TOOL,
  "input-required-result-unsupported-methods": "pass",
  "input-required-result-tampered-state": NO_MRTR_TOOL,
  "input-required-result-capability-check": NO_MRTR_TOOL,
  "input-required-result-ignore-extra-params": "pass",
  "input-required-result-validate-input": "pass",
};

/** Runs the suite's `server` command with `args`; returns each scenario's checks. */
async function runSuite(node: string, url: string, args: string[]): Promise<Map<string, Loose[]>> {
  const out = tempDir("toolwire-conformance-");
  try {
    const child = spawn(node, [CLI, "server", "--url", url, "-o", out.path, ...args], {
      cwd: out.path,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const result = await finished(child, 300_000);
    const scenarios = new Map<string, Loose[]>();
    for (const entry of readdirSync(out.path)) {
      const name = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
      if (name === undefined) continue;
      scenarios.set(name, JSON.parse(readFileSync(join(out.path, entry, "checks.json"), "utf8")));
    }
    assert.ok(
      scenarios.size > 0,
      `the suite ran no scenario (exit ${result.code}): ${result.stderr.slice(-2000)}`,
    );
    return scenarios;
  } finally {
    out.cleanup();
  }
}

/** Asserts each scenario against the table; returns the ones that passed. */
function judge(run: string, scenarios: Map<string, Loose[]>): string[] {
  const passed: string[] = [];
  for (const [name, checks] of scenarios) {
    const expected = EXPECTED[name];
    assert.ok(
      expected !== undefined,
      `${run}: a scenario the table does not know: ${name} (docs/mcp_http.md too)`,
    );
    const failed = checks.filter((check: Loose) => check.status === "FAILURE");
    const shown = JSON.stringify(failed.map((check: Loose) => `${check.id}: ${check.errorMessage}`));
    if (expected === "pass") {
      assert.deepEqual(failed, [], `${run}: ${name} must pass: ${shown}`);
      passed.push(name);
    } else {
      assert.ok(failed.length > 0, `${run}: ${name} passes now: mark it "pass" (docs/mcp_http.md too)`);
      for (const check of failed) {
        assert.match(
          String(check.errorMessage),
          expected,
          `${run}: ${name}: ${check.id} fails for another reason`,
        );
      }
    }
  }
  return passed;
}

describe("the official MCP conformance suite against notes mcp listen", () => {
  const skip = "reason" in NODE ? NODE.reason : false;
  it("every scenario a tools-only server can pass passes, at its own version and on the 2025-11-25 wire", {
    skip,
    timeout: 600_000,
  }, async () => {
    if ("reason" in NODE) return;
    const server = await startHttpListener((flags) => [...NOTES, "mcp", "listen", ...flags]);
    try {
      const all = judge("--suite all", await runSuite(NODE.binary, server.url, ["--suite", "all"]));
      for (
        const name of [
          "server-initialize",
          "ping",
          "tools-list",
          "dns-rebinding-protection",
          "logging-set-level",
        ]
      ) {
        assert.ok(all.includes(name), `${name} ran and passed`);
      }
      const legacy = judge(
        "--requirements 2025-11-25",
        await runSuite(NODE.binary, server.url, ["--requirements", "2025-11-25"]),
      );
      for (
        const name of [
          "server-initialize",
          "ping",
          "tools-list",
          "dns-rebinding-protection",
          "logging-set-level",
        ]
      ) {
        assert.ok(legacy.includes(name), `${name} passed on the 2025-11-25 wire`);
      }
    } finally {
      const result = await server.stop();
      assert.equal(result.code, 143, result.stderr);
      assert.doesNotMatch(result.stderr, /\n\s+at \S/, "no stack trace");
    }
  });
});
