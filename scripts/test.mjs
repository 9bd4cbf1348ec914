#!/usr/bin/env node
// The whole test suite: type-check (tsc, deno check, and every documentation example), build, then the same
// test files under Node (tsx) — on this machine's node and on each pinned Node that scripts/node_versions.mjs
// has installed — and under `deno test`. Node 20 does not expand test globs, so the files are listed here.
//
//   node scripts/test.mjs                    everything: every Node half that is installed, then Deno
//   node scripts/test.mjs node [filter]      only the Node half on this node (after the checks and the build)
//   node scripts/test.mjs node24 [filter]    only the Node half on the pinned Node 24 (installed when missing)
//   node scripts/test.mjs deno [filter]      only the Deno half
//   node scripts/test.mjs all [filter]       every half, only the files whose path contains the filter
//
// Halves combine with commas (`node,node26`), and a path to a node binary is a half too
// (`/opt/node22/bin/node`). A Node half runs with its binary's directory first on PATH, so that `node`,
// and every `#!/usr/bin/env node` a test starts, is that Node.
//
// The closing lines name every skipped test with its reason (scripts/test_report.mjs), then the counts.
import { spawn, spawnSync } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { denoBin } from "./deno_bin.mjs";
import { installedMajors, installNode, packageName, PINNED } from "./node_versions.mjs";
import { denoSkips, nodeSkips, skipReport } from "./test_report.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const selection = process.argv[2] ?? "all";
const filter = process.argv[3];
/** Test files at once within one half (node --test-concurrency, DENO_JOBS). */
const FILES_AT_ONCE = "4";
/**
 * Halves at once. One half's four files already keep two cores busy, and the suite's files start real
 * processes and wait on time limits: measured on two cores, the four halves one after the other took 1179 s
 * and passed, two at once 1303 s with two tests past their time limits (docs/testing.md).
 */
const HALVES_AT_ONCE = Number(process.env.TOOLWIRE_TEST_HALVES ?? 1);
/** The official MCP conformance suite's test, and the oldest Node its CLI runs on. */
const CONFORMANCE = {
  file: join("tests", "interop", "mcp_conformance.test.ts"),
  leastMajor: 22,
  pinned: "24",
};

function testFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (name.endsWith(".test.ts")) found.push(relative(root, path));
  }
  return found.sort();
}

function elapsed(started) {
  return `${((Date.now() - started) / 1000).toFixed(1)} s`;
}

/** Runs one step in the foreground; with `capture`, its stdout is also handed back (and still printed). */
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
  console.log(`=== ${title}: ${outcome(result.status, result.signal)} in ${elapsed(started)}`);
  return { ok: result.status === 0, stdout: capture ? result.stdout.toString() : "" };
}

function outcome(status, signal) {
  return status === 0 ? "ok" : `FAILED (exit ${status ?? signal})`;
}

/** What a half runs, named for the runtime it runs on. */
function nodeHalf(binary) {
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout?.trim();
  if (!version) throw new Error(`${binary} is not a node binary`);
  return { title: `node ${version}`, kind: "node", version, binary };
}

/** The halves `selection` names, in the order they run; a Node version named twice runs once. */
function halves() {
  const names = selection === "all"
    ? ["node", ...installedMajors().map((major) => `node${major}`), "deno"]
    : selection.split(",");
  const chosen = [];
  for (const name of names) {
    if (name === "deno") {
      const version = spawnSync(denoBin(), ["--version"], { encoding: "utf8" }).stdout?.split(" ")[1];
      chosen.push({ title: `deno ${version ?? "(not found)"}`, kind: "deno" });
      continue;
    }
    const major = name.match(/^node(\d+)$/)?.[1];
    const binary = name === "node"
      ? process.execPath
      : major !== undefined
      ? installNode(major)
      : name.includes("/")
      ? name
      : undefined;
    if (binary === undefined) {
      throw new Error(
        `unknown half '${name}': node, ${Object.keys(PINNED).map((m) => `node${m}`).join(", ")}, ` +
          "a path to a node binary, deno, or all",
      );
    }
    const half = nodeHalf(binary);
    if (!chosen.some((other) => other.version === half.version)) chosen.push(half);
  }
  return chosen;
}

/** Test counts, added up over every half for the closing line. */
const counts = { passed: 0, failed: 0, skipped: 0 };

/**
 * Starts a half in the background, its output in a log file, and resolves when it ends. Dots on the console,
 * failures in full at the end. The Node half's report (scripts/test_report.mjs) and the Deno half's summary
 * line give the counts; `half.report`, that report or Deno's JUnit file, the skipped tests.
 */
function runHalf(half, files, reports, live) {
  const log = join(reports, `${half.title.replaceAll(" ", "-")}.log`);
  half.report = join(
    reports,
    `${half.title.replaceAll(" ", "-")}.${half.kind === "node" ? "report" : "xml"}`,
  );
  const [command, args, env] = half.kind === "node"
    ? [half.binary, [
      "--import",
      "tsx",
      "--test",
      `--test-concurrency=${FILES_AT_ONCE}`,
      "--test-reporter=dot",
      "--test-reporter-destination=stdout",
      `--test-reporter=${pathToFileURL(join(root, "scripts", "test_report.mjs")).href}`,
      `--test-reporter-destination=${half.report}`,
      ...files,
    ], { PATH: `${dirname(half.binary)}${delimiter}${process.env.PATH ?? ""}` }]
    : [denoBin(), [
      "test",
      "-A",
      "--quiet",
      "--parallel",
      "--no-check",
      "--reporter=dot",
      `--junit-path=${half.report}`,
      ...files,
    ], {
      DENO_JOBS: FILES_AT_ONCE,
      NO_COLOR: "1",
    }];
  console.log(`\n=== ${half.title} (${files.length} files) started\n$ ${[command, ...args].join(" ")}`);
  const started = Date.now();
  const out = createWriteStream(log);
  const child = spawn(command, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(out, { end: false });
    if (live) stream.pipe(stream === child.stdout ? process.stdout : process.stderr, { end: false });
  }
  return new Promise((resolve) => {
    child.on("close", (status, signal) => {
      out.end(() => {
        const text = readFileSync(log, "utf8");
        // A half that ran alone was shown as it went; one of several is shown whole once it ends.
        const shown = live ? "" : `\n${text.trimEnd()}`;
        console.log(`\n=== ${half.title}: ${outcome(status, signal)} in ${elapsed(started)}${shown}`);
        if (half.kind === "node") countNode(half);
        else countDeno(text, status === 0);
        resolve(status === 0);
      });
    });
  });
}

/** A half's report file, or nothing when the half ended before writing one. */
function readReport(half) {
  return existsSync(half.report) ? readFileSync(half.report, "utf8") : "";
}

/**
 * Adds a Node half's counts, and gives it its `skips`. The skipped count is the list's length: Node's own
 * count leaves out a skipped suite, which the list names (and Deno counts) as one.
 */
function countNode(half) {
  const report = readReport(half);
  const total = (name) => Number(report.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
  counts.passed += total("pass");
  counts.failed += total("fail") + total("cancelled");
  half.skips = nodeSkips(report, root);
  counts.skipped += half.skips.length;
}

function countDeno(output, ok) {
  // "ok | 27 passed (529 steps) | 0 failed | 1 ignored (4 steps)": describe blocks are tests, their cases steps.
  const summary = output.match(
    /(\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?(?: \| (\d+) ignored(?: \((\d+) steps?\))?)?/,
  );
  if (summary === null) console.log("deno test printed no summary line");
  const [passed, passedSteps, failedTests, failedSteps, ignored, ignoredSteps] = (summary ?? []).slice(1).map(
    (n) => n === undefined ? undefined : Number(n),
  );
  counts.passed += passedSteps ?? passed ?? 0;
  counts.failed += failedSteps ?? failedTests ?? (ok ? 0 : 1);
  counts.skipped += (ignored ?? 0) + (ignoredSteps ?? 0);
}

/**
 * Runs the halves, at most HALVES_AT_ONCE at a time, in their order; resolves to each one's success. A Deno
 * half gets its `skips` once every half has ended: a test Node skipped too takes Node's reason.
 */
async function runHalves(list, files) {
  const reports = mkdtempSync(join(tmpdir(), "toolwire-test-"));
  try {
    const results = [];
    const atOnce = Math.max(1, Math.min(HALVES_AT_ONCE, list.length));
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const half = list[next++];
        results.push(await runHalf(half, files, reports, atOnce === 1));
      }
    };
    await Promise.all(Array.from({ length: atOnce }, worker));
    const known = list.filter((half) => half.kind === "node").flatMap((half) => half.skips);
    for (const half of list.filter((half) => half.kind === "deno")) {
      half.skips = denoSkips(readReport(half), known);
    }
    return results;
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

let plan;
try {
  plan = halves();
} catch (error) {
  console.error(`test: ${error.message}`);
  process.exit(2);
}
/**
 * On Windows, the files that test what only POSIX has (process groups, /proc, signals sent from outside,
 * Unix sockets, file modes, POSIX shells) are skipped, each by name with its reason (tests/posix_only.json).
 */
const posixOnly = process.platform === "win32"
  ? JSON.parse(readFileSync(join(root, "tests", "posix_only.json"), "utf8"))
  : {};
const files = testFiles(join(root, "tests")).filter((file) => {
  if (filter && !file.includes(filter)) return false;
  const reason = posixOnly[file.split("\\").join("/")];
  if (reason !== undefined) console.log(`skipped on Windows: ${file}: ${reason}`);
  return reason === undefined;
});
const deno = denoBin();
const results = [];
console.log(`halves: ${plan.map((half) => half.title).join(", ")}`);
const missing = Object.entries(PINNED).filter(([major]) => !installedMajors().includes(major));
if (selection === "all" && missing.length > 0) {
  console.log(
    `not installed, so not run: node ${missing.map(([, version]) => version).join(", ")} ` +
      "(node scripts/node_versions.mjs install)",
  );
}

results.push(
  step("tsc (library, examples, tests)", process.execPath, [
    join(root, "node_modules/typescript/bin/tsc"),
    "-p",
    "tsconfig.check.json",
  ]).ok,
);
// Built first: the package's entry points (the name `@toolwire/toolwire` in the doc examples) are the build.
results.push(
  step("build", process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]).ok,
);
results.push(step("bundle", process.execPath, [join(root, "scripts/bundle.mjs")]).ok);
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
// The Python MCP SDK for the interop test: made once in .venv-interop/, skipped (and so is the test) without python3.
if (files.some((file) => file.startsWith(join("tests", "interop")))) {
  results.push(
    step("python interop setup", process.execPath, [join(root, "scripts/python_interop_setup.mjs")]).ok,
  );
}
// The conformance suite's CLI needs a newer Node than this one may be: its test then runs it under the pinned
// Node 24, installed here on first use into .node/ (as the Python set-up makes its virtual environment).
if (
  files.includes(CONFORMANCE.file) && Number(process.versions.node.split(".")[0]) < CONFORMANCE.leastMajor
) {
  if (packageName() === undefined) {
    console.log(
      `\nconformance suite: no pinned Node for ${process.platform}-${process.arch}, so its test runs only ` +
        `with a Node >= ${CONFORMANCE.leastMajor} on PATH`,
    );
  } else {
    results.push(
      step(`pinned Node ${CONFORMANCE.pinned} for the conformance suite`, process.execPath, [
        join(root, "scripts", "node_versions.mjs"),
        "path",
        CONFORMANCE.pinned,
      ]).ok,
    );
  }
}
results.push(...await runHalves(plan, files));

const failed = results.filter((ok) => !ok).length;
console.log("");
for (const line of skipReport(plan)) console.log(line);
console.log(failed === 0 ? "all green" : `${failed} step(s) failed`);
// The closing line: tests over every half (a failed step with no failed test still counts as one).
const failures = counts.failed > 0 || failed === 0 ? counts.failed : failed;
console.log(
  `tests: ${counts.passed} passed, ${failures} failed, ${counts.skipped} skipped (${plan.length} halves)`,
);
process.exit(failed === 0 ? 0 : 1);
