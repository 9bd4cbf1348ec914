// The README read cold, its lines run as a newcomer runs them: the 20-line program with the first mistake a
// tool author makes (no "0" exit code), whose error must be short and say what is wrong first.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ROOT, run, RUNTIME, tempDir } from "../helpers/run.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;
/** The Deno that runs the test, else the project's own. */
const DENO = denoGlobal?.execPath() ?? join(ROOT, "node_modules", "deno", "deno");

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
    } finally {
      dir.cleanup();
    }
  });
});
