// The closing lines of `npm test` name each skipped test and why (scripts/test_report.mjs): the real runners
// run a fixture that skips, node --test with the reporter and deno test with its JUnit report, and the list
// read from each names the file, the test under its suites, and the reason.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import process from "node:process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { DENO_PATH, finished, type Loose, ROOT, run, RUNTIME, tempDir } from "../helpers/run.ts";

const FIXTURE = join("tests", "fixtures", "skips.ts");
const MODULE = pathToFileURL(join(ROOT, "scripts", "test_report.mjs")).href;
/** scripts/test_report.mjs, which has no types of its own. */
const report: Loose = await import(MODULE);
const NODE = RUNTIME === "node" ? process.execPath : "node";
const DENO = DENO_PATH ?? join(ROOT, "node_modules", "deno", "deno");

const ON_NODE = [
  { file: FIXTURE, name: "a suite skipped", reason: "the suite's reason" },
  { file: FIXTURE, name: "a suite > a test skipped", reason: "the test's reason" },
  { file: FIXTURE, name: "a todo", reason: "todo: not written yet" },
];

async function nodeReport(): Promise<string> {
  const dir = tempDir();
  try {
    const destination = join(dir.path, "report");
    const args = [
      "--import",
      "tsx",
      "--test",
      `--test-reporter=${MODULE}`,
      `--test-reporter-destination=${destination}`,
    ];
    // Under node --test, a child's own runner reports to its parent instead, unless it has none.
    const { NODE_TEST_CONTEXT: _parent, ...env } = process.env;
    const child = spawn(NODE, [...args, FIXTURE], { cwd: ROOT, env });
    const result = await finished(child);
    assert.equal(result.code, 0, result.stderr);
    return readFileSync(destination, "utf8");
  } finally {
    dir.cleanup();
  }
}

async function denoJunit(): Promise<string> {
  const dir = tempDir();
  try {
    const destination = join(dir.path, "report.xml");
    const result = await run([DENO, "test", "-A", "--no-check", `--junit-path=${destination}`, FIXTURE]);
    assert.equal(result.code, 0, result.stderr);
    return readFileSync(destination, "utf8");
  } finally {
    dir.cleanup();
  }
}

describe("the test run's list of skipped tests", () => {
  it("node --test: each skipped suite, test and todo, with its reason, and the run's counts", async () => {
    const text = await nodeReport();
    assert.deepEqual(report.nodeSkips(text, ROOT), ON_NODE);
    assert.match(text, /^# pass 1$/m);
  });

  it("deno test: each ignored one, with Node's reason for the tests Node skipped too, else none", async () => {
    const xml = await denoJunit();
    const withNode = report.denoSkips(xml, ON_NODE);
    assert.deepEqual(
      withNode.map((skip: Loose) => [skip.file, skip.name, skip.reason]).sort(),
      ON_NODE.map((skip) => [skip.file, skip.name, `${skip.reason} (the reason Node gave)`]).sort(),
    );
    const alone = report.denoSkips(xml, []);
    assert.deepEqual(alone.map((skip: Loose) => skip.reason), ON_NODE.map(() => "deno test gives no reason"));
  });

  it("the closing lines: each half under its title, nothing when nothing was skipped", () => {
    assert.deepEqual(report.skipReport([{ title: "deno 2", skips: [] }]), []);
    assert.deepEqual(report.skipReport([{ title: "node v20", skips: ON_NODE.slice(1, 2) }]), [
      "skipped, and why:",
      "  node v20:",
      `    ${FIXTURE}: a suite > a test skipped — the test's reason`,
    ]);
  });
});
