/**
 * A toolwire CLI whose commands change under a bridge: for the live tool lists of `toolwire mcp serve
 * --exec` and `toolwire mcp listen --exec`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { ROOT, RUNTIME } from "./run.ts";

const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;

/**
 * A toolwire CLI whose commands are read from `commands.json` beside it at every start: `{"names": [...]}`;
 * each command waits `--ms` and answers its name. A name that is not a valid command path fails registration,
 * so the CLI then prints no manifest. Each start appends its arguments to `starts.log`; while a file
 * `hang-etag` is there, a start asked `manifest --etag` never answers.
 */
export function changingCli(
  dir: string,
  names: string[],
): { argv: string[]; set(names: string[]): void; rewrite(): void; starts(): string[] } {
  const library = RUNTIME === "deno" ? join(ROOT, "mod.ts") : join(ROOT, "dist", "mod.js");
  const script = join(dir, RUNTIME === "deno" ? "cli.ts" : "cli.mjs");
  const source = (stamp: number) =>
    [
      `// version ${stamp}`,
      `import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";`,
      `import { createTool } from ${JSON.stringify(library)};`,
      `const argv = typeof Deno === "object" ? Deno.args : process.argv.slice(2);`,
      `appendFileSync(new URL("./starts.log", import.meta.url), JSON.stringify(argv) + "\\n");`,
      `if (argv.includes("--etag") && existsSync(new URL("./hang-etag", import.meta.url))) await new Promise(() => setInterval(() => {}, 60_000));`,
      `const { names } = JSON.parse(readFileSync(new URL("./commands.json", import.meta.url), "utf8"));`,
      `const tool = createTool({ name: "changing", version: "1.0.0", description: "A CLI that changes" });`,
      `for (const name of names) tool.command(name, { description: "Answers " + name, danger_level: "safe", required_scopes: [],`,
      `  flags: { ms: { type: "integer", default: 0, description: "Wait first" }, started: { type: "string", description: "A file to create once running" } },`,
      `  exit_codes: { "0": { name: "SUCCESS", description: "Answered", retryable: false, side_effects: "none" } },`,
      `  run: async (ctx) => { if (ctx.flags.started) writeFileSync(ctx.flags.started, "");`,
      `    await new Promise((r) => setTimeout(r, ctx.flags.ms)); return { name: ${"`${name}`"} }; } });`,
      `await tool.main();`,
    ].join("\n");
  let stamp = 0;
  writeFileSync(script, source(stamp));
  const set = (next: string[]) => writeFileSync(join(dir, "commands.json"), JSON.stringify({ names: next }));
  set(names);
  const argv = RUNTIME === "deno"
    ? [denoGlobal!.execPath(), "run", "-A", "--quiet", script]
    : [process.execPath, script];
  const starts = () => {
    const log = join(dir, "starts.log");
    return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => line !== "") : [];
  };
  return { argv, set, rewrite: () => writeFileSync(script, source(++stamp)), starts };
}
