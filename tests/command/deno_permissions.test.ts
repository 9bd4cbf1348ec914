// A tool started on Deno with fewer permissions than it needs: every run still ends in one envelope with a
// declared exit code and a message naming the flag to add, never a stack trace; settings the framework can do
// without (`<TOOL>_FORMAT`) fall back to their defaults. Deno runs the tool whichever runtime runs the test.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { onlyEnvelope, ROOT, run, tempDir } from "../helpers/run.ts";

const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;
const DENO = denoGlobal?.execPath() ?? join(ROOT, "node_modules", "deno", "deno");
const NOTES_TS = join(ROOT, "examples", "notes", "main.ts");
const INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';

function notes(permissions: string[], args: string[], stdin?: string) {
  return run([DENO, "run", "--quiet", "--no-prompt", ...permissions, NOTES_TS, ...args], {
    ...(stdin === undefined ? {} : { stdin }),
  });
}

describe("Deno with least privilege", { skip: existsSync(DENO) ? false : "no Deno binary" }, () => {
  it("--help, --version and manifest need no permission at all", async () => {
    for (const args of [["--help"], ["--version"], ["manifest"]]) {
      const result = await notes([], args);
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    }
  });

  it("a command that needs env access ends in one PERMISSION_REQUIRED envelope naming --allow-env", async () => {
    const result = await notes(["--allow-read"], ["list"]);
    assert.equal(result.code, 1, result.stderr);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "PERMISSION_REQUIRED");
    assert.match(envelope.error.message, /--allow-env/);
    assert.match(envelope.error.suggestion, /--allow-env/);
    assert.doesNotMatch(result.stderr, /^\s+at /m, "no stack trace");
  });

  it("mcp serve starts without env access and answers a call it cannot make with a tool error", async () => {
    const call = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list","arguments":{}}}\n';
    const result = await notes(["--allow-read"], ["mcp", "serve"], INIT + call);
    assert.equal(result.code, 0, result.stderr);
    const [init, answer] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(init.result.serverInfo.name, "notes");
    assert.equal(answer.result.isError, true);
    assert.equal(answer.result.structuredContent.error.code, "PERMISSION_REQUIRED");
    assert.doesNotMatch(result.stderr, /NotCapable[\s\S]*NotCapable/, "the error is not printed twice");
  });

  it("the documented set runs the example: env, read and write scoped to its home", async () => {
    const home = tempDir();
    try {
      const scoped = [
        `--allow-env=NOTES_HOME,NOTES_FORMAT`,
        `--allow-read=${home.path}`,
        `--allow-write=${home.path}`,
      ];
      const result = await run([
        DENO,
        "run",
        "--quiet",
        "--no-prompt",
        ...scoped,
        NOTES_TS,
        "add",
        "--title",
        "least",
      ], {
        env: { NOTES_HOME: home.path },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(onlyEnvelope(result.stdout).data.note.title, "least");
    } finally {
      home.cleanup();
    }
  });
});
