// The README read cold, its lines run as a newcomer runs them: the two that make `notes` a command (on Node
// and on Deno) and the one that uses it, the Deno example with its permissions, and the 20-line program with
// the first mistake a tool author makes (no "0" exit code), whose error must be short and say what is wrong
// first. Each shell line runs in a fresh bash with an empty home directory and no NOTES_HOME.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { finished, onlyEnvelope, ROOT, run, RUNTIME, tempDir } from "../helpers/run.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;
/** The Deno that runs the test, else the project's own. */
const DENO = denoGlobal?.execPath() ?? join(ROOT, "node_modules", "deno", "deno");

/** The first ```sh block after `marker`, as its lines. */
function shellBlock(marker: string): string[] {
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `the README has ${JSON.stringify(marker)}`);
  return README.slice(at).match(/```sh\n([\s\S]*?)```/)![1]!.trimEnd().split("\n");
}

/** A line without its trailing comment (the README's comments start after two spaces). */
function command(line: string): string {
  return line.replace(/\s{2,}#.*$/, "");
}

/** The README's line that puts the Deno `npm ci` installed on the PATH, which a newcomer runs first. */
const DENO_ON_PATH = command(shellBlock("put it there for this shell first")[0]!);

/**
 * Runs shell lines in one fresh bash (aliases on, as at a prompt) with `home` as its home directory and none
 * of the variables that would move the notes elsewhere. As on a fresh machine, no `deno` is on the PATH
 * until the README's own line puts one there, which runs first.
 */
function bash(lines: string[], home: string) {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(NOTES_|XDG_)/.test(name)) env[name] ??= value;
  }
  env.HOME = home;
  env.PATH = (env.PATH ?? "").split(delimiter).filter((dir) => !existsSync(join(dir, "deno"))).join(
    delimiter,
  );
  const script = [DENO_ON_PATH, ...lines].join("\n");
  const child = spawn("bash", ["--norc", "--noprofile", "-O", "expand_aliases", "-c", script], {
    cwd: ROOT,
    env,
  });
  child.stdin.end();
  return finished(child, 60_000);
}

describe("the README's notes lines", () => {
  const [onNode, onDeno, use] = shellBlock("Either of the first two lines below").map(command);

  for (const [runtime, line] of [["Node", onNode!], ["Deno", onDeno!]] as const) {
    it(`make \`notes\` a command on ${runtime}, and the line that uses it works, NOTES_HOME unset`, async () => {
      // The suite has built dist/ already; building again here would race the other tests that run it.
      const alias = runtime === "Node" ? line.replace(/^npm run build && /, "") : line;
      assert.match(alias, /^alias notes="/);
      const home = tempDir();
      try {
        const result = await bash([alias, use!], home.path);
        assert.equal(result.code, 0, result.stderr);
        const [added, ...listed] = result.stdout.trimEnd().split("\n");
        assert.equal(onlyEnvelope(added!).data.note.title, "Buy milk");
        assert.match(listed.join("\n"), /^id +title +tags\n1 +Buy milk +home$/);
        const stored = JSON.parse(readFileSync(join(home.path, ".local/share/notes/notes.json"), "utf8"));
        assert.equal(stored.notes[0].title, "Buy milk", "stored where the README says");
      } finally {
        home.cleanup();
      }
    });
  }
});

describe("the README's Deno permissions example", () => {
  it("runs as written when NOTES_HOME is unset, with its store in the default directory", async () => {
    const lines = shellBlock("The example, with its store scoped to one directory").map(command);
    const home = tempDir();
    try {
      const result = await bash(lines, home.path);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(onlyEnvelope(result.stdout).data, []);
      // And the same permissions let it write there.
      const add = await bash([lines[0]!, lines[1]!.replace(/ list$/, ' add --title "Buy milk"')], home.path);
      assert.equal(add.code, 0, add.stderr);
      assert.equal(onlyEnvelope(add.stdout).data.effect, "created");
    } finally {
      home.cleanup();
    }
  });
});

describe("the README's 20-line program, its first mistake", () => {
  it('without its "0" exit code, it stops at once: the message first, the whole report under 2 KB', async () => {
    const section = README.slice(README.indexOf("## A tool in 20 lines"));
    const code = section.match(/```js\n([\s\S]*?)```/)![1]!;
    const withoutSuccess = code.replace(/^ +"0": \{[^\n]*\n/m, "");
    assert.notEqual(withoutSuccess, code, 'the program declares a "0" exit code to drop');
    const dir = tempDir();
    try {
      // The library as its users load it, run as the README runs it: the npm build with `node greet.mjs`,
      // the TypeScript source with `deno run greet.ts` (no permission needed).
      const onNode = RUNTIME === "node";
      const library = onNode ? join(ROOT, "dist", "mod.js") : join(ROOT, "mod.ts");
      const file = join(dir.path, onNode ? "greet.mjs" : "greet.ts");
      writeFileSync(file, withoutSuccess.replace(/from "toolwire"/, `from "${pathToFileURL(library)}"`));
      const argv = onNode ? [process.execPath, file] : [DENO, "run", file];
      const result = await run([...argv, "hello", "--name", "ada"], { cwd: dir.path });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "");
      const message = `RegistrationError: command 'hello': exit_codes: must contain "0" (SUCCESS)`;
      const lines = result.stderr.split("\n");
      const at = lines.findIndex((line) => line.includes(message));
      assert.ok(at >= 0 && at < 5, `the message is among the first lines:\n${result.stderr}`);
      assert.ok(lines.slice(0, at).every((line) => !/^\s+at /.test(line)), "before the stack");
      assert.ok(
        result.stderr.length < 2048,
        `${result.stderr.length} bytes:\n${result.stderr.slice(0, 2048)}`,
      );
      if (!onNode) return;
      // The bundle's source map leads each frame back to the line of lib/ it runs, also for the functions
      // the build moved to the top of the chunk to compile them with it (scripts/eager_start.mjs).
      const mapped = await run([process.execPath, "--enable-source-maps", file, "hello"], { cwd: dir.path });
      const rules = "lib/command/contract/registration_rules.ts";
      const lineOf = (text: string) =>
        readFileSync(join(ROOT, rules), "utf8").split("\n").findIndex((line) => line.includes(text)) + 1;
      const frames = mapped.stderr.split("\n").filter((line) => /^\s+at /.test(line)).slice(0, 2);
      assert.deepEqual(frames.map((frame) => frame.match(/\(([^()]+):(\d+):\d+\)$/)?.slice(1)), [
        [join(ROOT, rules), String(lineOf("throw new RegistrationError(path, field, problem);"))],
        [join(ROOT, rules), String(lineOf('fail("exit_codes", \'must contain "0" (SUCCESS)\')'))],
      ], mapped.stderr);
    } finally {
      dir.cleanup();
    }
  });
});
