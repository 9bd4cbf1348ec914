#!/usr/bin/env node
// The whole test suite, on both runtimes: type-check (tsc and deno check), build, then the same test files
// under Node (tsx) and under `deno test`. Node 20 does not expand test globs, so the files are listed here.
//
//   node scripts/test.mjs            everything
//   node scripts/test.mjs node       only the Node half (after the checks and the build)
//   node scripts/test.mjs deno       only the Deno half
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
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

function step(title, command, args, env = {}) {
  console.log(`\n=== ${title}\n$ ${[command, ...args].join(" ")}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  console.log(`=== ${title}: ${result.status === 0 ? "ok" : `FAILED (exit ${result.status ?? result.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result.status === 0;
}

const deno = denoBin();
const files = testFiles(join(root, "tests")).filter((file) => !filter || file.includes(filter));
const concurrency = "4";
const results = [];

results.push(step("tsc (library, examples, tests)", process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.check.json"]));
results.push(step("deno check", deno, ["check", "--quiet", "mod.ts", "cmd/", "examples/", "tests/"]));
results.push(step("build", process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]));
results.push(step("bundle", process.execPath, [join(root, "scripts/bundle.mjs")]));
if (only !== "deno") {
  results.push(step(`node --test (${files.length} files)`, process.execPath, [
    "--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...files,
  ]));
}
if (only !== "node") {
  results.push(step(`deno test (${files.length} files)`, deno, ["test", "-A", "--quiet", "--parallel", "--no-check", ...files], { DENO_JOBS: concurrency }));
}

const failed = results.filter((ok) => !ok).length;
console.log(failed === 0 ? "\nall green" : `\n${failed} step(s) failed`);
process.exit(failed === 0 ? 0 : 1);
