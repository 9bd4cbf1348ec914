#!/usr/bin/env node
// The whole test suite, on both runtimes: type-check (tsc, deno check, and every documentation example),
// build, then the same test files under Node (tsx) and under `deno test`. Node 20 does not expand test globs,
// so the files are listed here.
//
//   node scripts/test.mjs            everything
//   node scripts/test.mjs node       only the Node half (after the checks and the build)
//   node scripts/test.mjs deno       only the Deno half
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { denoBin } from "./deno_bin.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv[2];
const filter = process.argv[3];

function testFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (name.endsWith(".test.ts")) found.push(relative(root, path));
  }
  return found.sort();
}

/** Runs one step; with `capture`, its stdout is also handed back (and still printed). */
function step(title, command, args, env = {}, capture = false) {
  console.log(`\n=== ${title}\n$ ${[command, ...args].join(" ")}`);
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: ["inherit", capture ? "pipe" : "inherit", "inherit"],
    env: { ...process.env, ...env },
    maxBuffer: 1 << 28,
  });
  if (capture) process.stdout.write(result.stdout);
  console.log(
    `=== ${title}: ${result.status === 0 ? "ok" : `FAILED (exit ${result.status ?? result.signal})`} in ${
      ((Date.now() - started) / 1000).toFixed(1)
    } s`,
  );
  return { ok: result.status === 0, stdout: capture ? result.stdout.toString() : "" };
}

/** Test counts, added up over both runtimes for the closing line. */
const counts = { passed: 0, failed: 0, skipped: 0 };
function count(passed, failed, skipped) {
  counts.passed += passed;
  counts.failed += failed;
  counts.skipped += skipped;
}

const deno = denoBin();
const files = testFiles(join(root, "tests")).filter((file) => !filter || file.includes(filter));
const concurrency = "4";
const results = [];

results.push(
  step("tsc (library, examples, tests)", process.execPath, [
    join(root, "node_modules/typescript/bin/tsc"),
    "-p",
    "tsconfig.check.json",
  ]).ok,
);
results.push(step("deno check", deno, ["check", "--quiet", "mod.ts", "cmd/", "examples/", "tests/"]).ok);
// Every documentation example compiles: each @example block of the sources, each TypeScript block of the
// docs (a directory argument finds no Markdown, so they are listed). The README's one program imports the
// npm name, which Deno cannot resolve; tests/package runs it verbatim under Node instead.
const docs = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).sort();
results.push(
  step("deno check --doc", deno, [
    "check",
    "--quiet",
    "--doc-only",
    "mod.ts",
    "lib/",
    "cmd/",
    "examples/",
    ...docs.map((name) => join("docs", name)),
  ]).ok,
);
results.push(
  step("build", process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]).ok,
);
results.push(step("bundle", process.execPath, [join(root, "scripts/bundle.mjs")]).ok);
// The Python MCP SDK for the interop test: made once in .venv-interop/, skipped (and so is the test) without python3.
if (files.some((file) => file.startsWith(join("tests", "interop")))) {
  results.push(
    step("python interop setup", process.execPath, [join(root, "scripts/python_interop_setup.mjs")]).ok,
  );
}
if (only !== "deno") {
  // Dots on the console, failures in full at the end; the TAP file gives the counts.
  const reports = mkdtempSync(join(tmpdir(), "toolwire-tap-"));
  const tap = join(reports, "node.tap");
  const ran = step(`node --test (${files.length} files)`, process.execPath, [
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-reporter=dot",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ]);
  const summary = readFileSync(tap, "utf8");
  const total = (name) => Number(summary.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
  count(total("pass"), total("fail") + total("cancelled"), total("skipped") + total("todo"));
  rmSync(reports, { recursive: true, force: true });
  results.push(ran.ok);
}
if (only !== "node") {
  const ran = step(`deno test (${files.length} files)`, deno, [
    "test",
    "-A",
    "--quiet",
    "--parallel",
    "--no-check",
    "--reporter=dot",
    ...files,
  ], {
    DENO_JOBS: concurrency,
    NO_COLOR: "1",
  }, true);
  // "ok | 27 passed (529 steps) | 0 failed | 1 ignored (4 steps)": describe blocks are tests, their cases steps.
  const summary = ran.stdout.match(
    /(\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?(?: \| (\d+) ignored(?: \((\d+) steps?\))?)?/,
  );
  if (summary === null) console.log("deno test printed no summary line");
  const [passed, passedSteps, failedTests, failedSteps, ignored, ignoredSteps] = (summary ?? []).slice(1).map(
    (n) => n === undefined ? undefined : Number(n),
  );
  count(
    passedSteps ?? passed ?? 0,
    failedSteps ?? failedTests ?? (ran.ok ? 0 : 1),
    (ignored ?? 0) + (ignoredSteps ?? 0),
  );
  results.push(ran.ok);
}

const failed = results.filter((ok) => !ok).length;
console.log(failed === 0 ? "\nall green" : `\n${failed} step(s) failed`);
// The closing line: tests over both runtimes (a failed step with no failed test still counts as one).
const failures = counts.failed > 0 || failed === 0 ? counts.failed : failed;
console.log(`tests: ${counts.passed} passed, ${failures} failed, ${counts.skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
