/**
 * The bench's echo tool counted in CPU instructions (valgrind's cachegrind), which repeat to ~0.1 % from run
 * to run whatever else the machine does: the figure for a question of a few per cent, where the bench's
 * timings wander by more (docs/performance.md, "Counting instructions"). Linux with valgrind only.
 *
 *   npm run instructions                              this build, every measure (~10 minutes on 2 cores)
 *   npm run instructions -- --toolwire-dir=../other   this build and another built checkout, side by side
 *   npm run instructions -- --only=start              only the measures whose name holds one of the words
 *
 * Each measure spawns `node <flags> dist/scripts/bench/echo_toolwire.js mcp serve` under cachegrind and counts
 * the whole process, spawn to exit. A start is one such run. A call is the difference of two runs that differ
 * only by the calls counted, divided by their number: so what every run does — the start, the warm-up, the
 * exit — cancels out. Node runs with `--single-threaded` (its compilers and collector on the main thread, so
 * that their work is counted and repeats) and `--random-seed=1`, with a young generation of 64 MiB, so that
 * whether a collection falls inside the counted calls does not decide the figure.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { callLine, discoverLine, INITIALIZED_LINE, initializeLine } from "./bench/messages.ts";
import { OUT_DIR, ROOT, SERVER_ENV } from "./bench/settings.ts";

const argv = process.argv.slice(2);
const OTHER = argv.find((arg) => arg.startsWith("--toolwire-dir="))?.slice("--toolwire-dir=".length);
const ONLY = argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length).split(",");

const NODE_FLAGS = [
  "--single-threaded",
  "--random-seed=1",
  "--min-semi-space-size=64",
  "--max-semi-space-size=64",
];
/** Pipelined calls of the bench's warm-up, then sequential ones: then the JIT has compiled the call path. */
const WARM_PIPELINED = 20_000;

/** What one run sends: batches of lines, each batch's answers awaited before the next is written. */
type Steps = () => Iterable<string[]>;

/** A measure: one run (a start), or two runs whose difference is divided by `calls`. */
interface Measure {
  name: string;
  what: string;
  runs: [Steps] | [Steps, Steps, number];
}

let nextId = 1;
const calls = (count: number, era: "modern" | "legacy" = "modern"): string[] =>
  Array.from({ length: count }, () => callLine(era, nextId++, "hello"));

/** The bench's warm-up in the modern era, 20,000 calls at once, then `sequential` one by one; then `then`. */
const warm = (sequential: number, then: (() => Iterable<string[]>) | undefined): Steps =>
  function* () {
    yield [discoverLine(nextId++)];
    yield calls(WARM_PIPELINED);
    for (let i = 0; i < sequential; i++) yield calls(1);
    if (then !== undefined) yield* then();
  };
/** `count` calls one by one after a `server/discover`, from a fresh start. */
const warmFresh = (count: number): Steps =>
  function* () {
    yield [discoverLine(nextId++)];
    for (let i = 0; i < count; i++) yield calls(1);
  };
const oneByOne = (count: number) =>
  function* () {
    for (let i = 0; i < count; i++) yield calls(1);
  };
const atOnce = (count: number) =>
  function* () {
    yield calls(count);
  };

const MEASURES: Measure[] = [
  {
    name: "start, legacy",
    what: "spawn, initialize, exit",
    runs: [() => [[initializeLine(nextId++), INITIALIZED_LINE]]],
  },
  { name: "start, modern", what: "spawn, a first tools/call, exit", runs: [() => [calls(1)]] },
  {
    name: "fresh call, sequential",
    what: "2,000 calls one by one after 500, from a start: what a short-lived server pays, the JIT at work",
    runs: [warmFresh(500), warmFresh(2_500), 2_000],
  },
  {
    name: "warming call, sequential",
    what: "the bench's sequential window: 2,000 calls one by one after 20,000 at once and 1,000 one by one",
    runs: [warm(1_000, undefined), warm(1_000, oneByOne(2_000)), 2_000],
  },
  {
    name: "steady call, sequential",
    what: "10,000 calls one by one once the JIT is done, after 20,000 at once and 26,000 one by one",
    runs: [warm(26_000, oneByOne(1_000)), warm(26_000, oneByOne(11_000)), 10_000],
  },
  {
    name: "steady call, pipelined",
    what: "10,000 calls at once, after the same warm-up",
    runs: [warm(26_000, atOnce(3_000)), warm(26_000, atOnce(13_000)), 10_000],
  },
];

/** The instructions of one run of the echo tool of `root`, spawn to exit. */
async function count(root: string, steps: Steps): Promise<number> {
  const tool = join(root, "dist", "scripts", "bench", "echo_toolwire.js");
  const valgrind = ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"];
  const child = spawn("valgrind", [...valgrind, process.execPath, ...NODE_FLAGS, tool, "mcp", "serve"], {
    cwd: root,
    env: SERVER_ENV,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => (stderr += text).length > 1e5 && (stderr = stderr.slice(-5e4)));
  const exited = new Promise<number | null>((done) => child.on("close", done));
  let answered = 0;
  let failure: string | undefined;
  let pending = "";
  let wake: (() => void) | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    pending += text;
    for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (!line.includes('"result"')) failure ??= line.slice(0, 300);
      answered++;
    }
    wake?.();
  });
  let owed = 0;
  for (const lines of steps()) {
    owed += lines.filter((line) => line.includes('"id"')).length;
    child.stdin.write(lines.join(""));
    while (answered < owed && failure === undefined) await new Promise<void>((woken) => (wake = woken));
  }
  child.stdin.end();
  const code = await exited;
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (failure !== undefined) throw new Error(`${root}: an answer is not a result: ${failure}`);
  if (code !== 0 || refs === null) throw new Error(`${root}: exited ${code}: ${stderr.slice(-2_000)}`);
  return Number(refs[1]!.replaceAll(",", ""));
}

/** A measure of one build: its instructions, per call where it counts calls. */
async function measure(root: string, { runs }: Measure): Promise<number> {
  if (runs.length === 1) return await count(root, runs[0]);
  const [fewer, more] = await Promise.all([count(root, runs[0]), count(root, runs[1])]);
  return (more - fewer) / runs[2];
}

const builds: Array<[string, string]> = [
  ["this build", ROOT],
  ...(OTHER === undefined ? [] : [[
    "--toolwire-dir",
    resolve(OTHER),
  ] as [string, string]]),
];
const chosen = MEASURES.filter((m) => ONLY === undefined || ONLY.some((word) => m.name.includes(word)));
console.log(`Node ${process.version}, valgrind cachegrind, node ${NODE_FLAGS.join(" ")}`);
const results: Array<{ name: string; what: string; counts: number[] }> = [];
for (const m of chosen) {
  const counts: number[] = [];
  for (const [, root] of builds) counts.push(await measure(root, m));
  results.push({ name: m.name, what: m.what, counts });
  const shown = counts.map((n) => (n > 1e6 ? `${(n / 1e6).toFixed(1)} M` : `${(n / 1e3).toFixed(1)} k`));
  const ratio = counts.length === 2 ? `  ${(counts[0]! / counts[1]!).toFixed(3)}` : "";
  console.log(`${m.name.padEnd(26)} ${shown.map((s) => s.padStart(9)).join(" ")}${ratio}   (${m.what})`);
}
if (builds.length === 2) console.log(`columns: ${builds.map(([name]) => name).join(", ")}, then their ratio`);
mkdirSync(OUT_DIR, { recursive: true });
writeFileSync(
  join(OUT_DIR, "instructions.json"),
  `${JSON.stringify({ node: process.version, builds, results }, null, 2)}\n`,
);
