/**
 * `npm run soak`: several `notes mcp serve` processes and `notes add` runs on one notes directory, with
 * SIGKILL at random, a burst then EOF, one idempotency key from several processes at once and a planted
 * stale lock; then a table of what was acknowledged, lost, executed twice, stalled or left running. Exits 1
 * when anything was lost, doubled, left unreadable or left running.
 *
 *   npm run soak                          60 s, a fresh seed (printed)
 *   npm run soak -- --seconds 20 --seed 42
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runSoak, soakFailed, soakTable } from "./soak/soak_run.ts";

const USAGE = "usage: soak [--seconds N] [--seed S]";

function parse(argv: string[]): { seconds: number; seed: number } | string {
  let seconds = 60;
  let seed = (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) >>> 0;
  for (let index = 0; index < argv.length; index++) {
    const [name, inline] = argv[index]!.split("=", 2) as [string, string | undefined];
    if (name !== "--seconds" && name !== "--seed") return `unknown argument ${argv[index]}; ${USAGE}`;
    const value = inline ?? argv[++index];
    const number = Number(value);
    if (value === undefined || value.trim() === "" || !Number.isSafeInteger(number) || number < 0) {
      return `${name} expects a whole number >= 0, got ${value ?? "nothing"}; ${USAGE}`;
    }
    if (name === "--seconds") seconds = number;
    else seed = number >>> 0;
  }
  if (seconds < 1 || seconds > 86_400) return `--seconds expects 1 to 86400, got ${seconds}`;
  return { seconds, seed };
}

const parsed = parse(process.argv.slice(2));
if (typeof parsed === "string") {
  console.error(parsed);
  process.exit(2);
}
// The built `notes` next to this script: dist/scripts/soak.js runs dist/examples/notes/main.js.
const notes = [process.execPath, fileURLToPath(new URL("../examples/notes/main.js", import.meta.url))];
const stop = new AbortController();
// The children run in process groups of their own, so Ctrl-C reaches only the soak: it ends them itself.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
console.log(
  `soak: seed ${parsed.seed}, ${parsed.seconds} s, one notes directory (replay the plan with --seed ${parsed.seed})`,
);
const report = await runSoak({ ...parsed, notes, log: (line) => console.log(line), signal: stop.signal });
console.log(soakTable(report));
process.exitCode = stop.signal.aborted ? 130 : soakFailed(report) ? 1 : 0;
