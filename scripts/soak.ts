/**
 * `npm run soak`: several `notes mcp serve` processes and `notes add` runs on one notes directory, with
 * SIGKILL at random, a burst then EOF, one idempotency key from several processes at once and a planted
 * stale lock; then a table of what was acknowledged, lost, executed twice, stalled or left running. Exits 1
 * when anything was lost, doubled, left unreadable or left running.
 *
 *   npm run soak                          60 s, a fresh seed (printed)
 *   npm run soak -- --seconds 20 --seed 42
 *   npm run soak -- --fleet --seconds 120 three `notes mcp listen` instances behind haproxy, one Redis
 *                                         (scripts/soak/fleet_run.ts; needs redis-server and haproxy)
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runSoak, soakFailed, soakTable } from "./soak/soak_run.ts";
import { fleetSoakFailed, fleetSoakTable, runFleetSoak } from "./soak/fleet_run.ts";
import { ensurePrograms } from "./soak/fleet_parts.ts";

const USAGE = "usage: soak [--fleet] [--seconds N] [--seed S]";

function parse(argv: string[]): { seconds: number; seed: number; fleet: boolean } | string {
  let seconds = 60;
  let seed = (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) >>> 0;
  let fleet = false;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === "--fleet") {
      fleet = true;
      continue;
    }
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
  return { seconds, seed, fleet };
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
if (parsed.fleet) {
  const parts = ensurePrograms(["redis-server", "haproxy"], (line) => console.log(line));
  if (!parts.ok) {
    console.error(`soak --fleet: ${parts.reason}`);
    process.exit(1);
  }
  console.log(
    `soak --fleet: seed ${parsed.seed}, ${parsed.seconds} s, three instances behind haproxy, one Redis (replay the plan with --seed ${parsed.seed})`,
  );
  const report = await runFleetSoak({
    ...parsed,
    notes,
    log: (line) => console.log(line),
    signal: stop.signal,
  });
  console.log(fleetSoakTable(report));
  process.exitCode = stop.signal.aborted ? 130 : fleetSoakFailed(report) ? 1 : 0;
} else {
  console.log(
    `soak: seed ${parsed.seed}, ${parsed.seconds} s, one notes directory (replay the plan with --seed ${parsed.seed})`,
  );
  const report = await runSoak({ ...parsed, notes, log: (line) => console.log(line), signal: stop.signal });
  console.log(soakTable(report));
  process.exitCode = stop.signal.aborted ? 130 : soakFailed(report) ? 1 : 0;
}
