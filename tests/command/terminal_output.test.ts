// What a person at a terminal sees, from the real binaries: colour in plain output and help only (never JSON
// mode, never a protocol's stdout) under NO_COLOR / FORCE_COLOR; nested results as indented blocks and tables;
// a handler's log lines before the result they led to; help in plain words that says why `mcp serve` is
// destructive.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { modern, WireSession } from "../helpers/mcp_wire.ts";
import { NOTES, onlyEnvelope, programArgv, ROOT, run, type RunResult, tempDir } from "../helpers/run.ts";

const TERM = programArgv("tests/fixtures/terminal.ts");
const ESC = "\u001b[";
const FORCED = { FORCE_COLOR: "1", NO_COLOR: "" };

/** One word for sh, quoted. */
const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** notes with one note in a fresh NOTES_HOME, for the length of `body`. */
async function withNotes(body: (env: Record<string, string>) => Promise<void>): Promise<void> {
  const home = tempDir();
  try {
    const env = { NOTES_HOME: home.path };
    assert.equal((await run([...NOTES, "add", "--title", "Buy milk", "--tag", "home"], { env })).code, 0);
    await body(env);
  } finally {
    home.cleanup();
  }
}

function assertNoColour(result: RunResult, label: string): void {
  assert.ok(!result.stdout.includes(ESC), `${label}: stdout has no colour: ${JSON.stringify(result.stdout)}`);
  assert.ok(!result.stderr.includes(ESC), `${label}: stderr has no colour: ${JSON.stringify(result.stderr)}`);
}

describe("colour", () => {
  it("colours plain output with FORCE_COLOR=1 even into a pipe: bold table heading, red error, yellow warning", async () => {
    await withNotes(async (env) => {
      const list = await run([...NOTES, "list", "--format", "plain"], { env: { ...env, ...FORCED } });
      assert.equal(list.code, 0, list.stderr);
      assert.equal(list.stdout, `${ESC}1mid  title     tags${ESC}22m\n1   Buy milk  home\n`);
      const missing = await run([...NOTES, "show", "99", "--format", "plain"], {
        env: { ...env, ...FORCED },
      });
      assert.equal(missing.code, 5);
      assert.ok(
        missing.stderr.startsWith(`notes: ${ESC}31merror:${ESC}39m note 99 does not exist`),
        missing.stderr,
      );
    });
    const chatty = await run([...TERM, "chatty", "--format", "plain"], { env: FORCED });
    assert.ok(chatty.stderr.includes(`${ESC}33mwarning:${ESC}39m this command talks a lot`), chatty.stderr);
    const bad = await run([...TERM, "chatty", "--lines", "x", "--format", "plain"], { env: FORCED });
    assert.equal(bad.code, 2);
    assert.ok(bad.stderr.startsWith(`term: ${ESC}31merror:${ESC}39m`), bad.stderr);
  });

  it("NO_COLOR (any non-empty value) wins over FORCE_COLOR; FORCE_COLOR=0 and false turn colour off, empty is unset", async () => {
    const settings = [
      { NO_COLOR: "1", FORCE_COLOR: "1" },
      { NO_COLOR: "0", FORCE_COLOR: "1" },
      { NO_COLOR: "", FORCE_COLOR: "0" },
      { NO_COLOR: "", FORCE_COLOR: "false" },
      { NO_COLOR: "", FORCE_COLOR: "" },
    ];
    await withNotes(async (env) => {
      for (const colour of settings) {
        const label = JSON.stringify(colour);
        assertNoColour(
          await run([...NOTES, "list", "--format", "plain"], { env: { ...env, ...colour } }),
          label,
        );
        assertNoColour(
          await run([...NOTES, "show", "99", "--format", "plain"], { env: { ...env, ...colour } }),
          label,
        );
        assertNoColour(
          await run([...NOTES, "--help", "--format", "plain"], { env: { ...env, ...colour } }),
          label,
        );
      }
    });
  });

  it("never colours JSON mode, whatever FORCE_COLOR says", async () => {
    await withNotes(async (env) => {
      for (const argv of [["list"], ["show", "99"], ["remove", "1"], ["list", "--limit", "x"], ["--help"]]) {
        const result = await run([...NOTES, ...argv, "--format", "json"], { env: { ...env, ...FORCED } });
        assertNoColour(result, argv.join(" "));
        if (argv[0] !== "--help") onlyEnvelope(result.stdout);
      }
      const chatty = await run([...TERM, "chatty", "--format", "json"], { env: FORCED });
      assertNoColour(chatty, "chatty");
    });
  });

  it("colours help headings in plain mode only", async () => {
    const plain = await run([...NOTES, "add", "--help", "--format", "plain"], { env: FORCED });
    assert.ok(plain.stdout.includes(`${ESC}1mUsage:${ESC}22m notes add`), plain.stdout);
    assert.ok(plain.stdout.includes(`${ESC}1mExit codes:${ESC}22m`), plain.stdout);
    const json = await run([...NOTES, "add", "--help", "--format", "json"], { env: FORCED });
    assertNoColour(json, "help in JSON mode");
    assert.ok(json.stdout.includes("Usage: notes add"));
  });

  it("never colours the protocol on mcp serve's stdout, even in plain mode with FORCE_COLOR", async () => {
    const home = tempDir();
    try {
      const session = new WireSession([...NOTES, "--format", "plain", "mcp", "serve"], {
        env: { NOTES_HOME: home.path, ...FORCED },
      });
      await session.request(modern(1, "tools/list"));
      await session.request(modern(2, "tools/call", { name: "show", arguments: { id: 99 } }));
      const result = await session.close();
      assert.equal(result.code, 0, result.stderr);
      assert.ok(!session.stdoutText.includes("\u001b"), session.stdoutText);
    } finally {
      home.cleanup();
    }
  });

  const script = spawnSync("script", ["--version"], { encoding: "utf8" });
  it("on a terminal: plain output by default, coloured; NO_COLOR=1 turns colour off", {
    skip: script.status !== 0 && "no script(1)",
  }, async () => {
    const inTerminal = (env: Record<string, string>) =>
      run(["script", "-qec", [...TERM, "chatty", "--lines", "1"].map(shellQuote).join(" "), "/dev/null"], {
        env: { TERM: "xterm", FORCE_COLOR: "", ...env },
      });
    const coloured = await inTerminal({ NO_COLOR: "" });
    assert.equal(coloured.code, 0, coloured.stderr);
    const lines = coloured.stdout.replaceAll("\r", "").split("\n").filter((line) => line !== "");
    assert.deepEqual(lines, [
      "log line 1",
      `${ESC}33mwarning:${ESC}39m this command talks a lot`,
      "result: the answer",
    ]);
    const plain = await inTerminal({ NO_COLOR: "1" });
    assert.deepEqual(plain.stdout.replaceAll("\r", "").split("\n").filter((line) => line !== ""), [
      "log line 1",
      "warning: this command talks a lot",
      "result: the answer",
    ]);
  });
});

describe("Deno at a terminal with least privilege", () => {
  const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;
  const deno = denoGlobal?.execPath() ?? join(ROOT, "node_modules", "deno", "deno");
  const script = spawnSync("script", ["--version"], { encoding: "utf8" });
  const skip = !existsSync(deno) ? "no Deno binary" : script.status !== 0 ? "no script(1)" : false;

  it("never stops to prompt for NO_COLOR, FORCE_COLOR, TERM or NOTES_FORMAT: unread, they count as unset", {
    skip,
  }, async () => {
    const home = tempDir();
    try {
      const scoped = ["--allow-env=NOTES_HOME", `--allow-read=${home.path}`, `--allow-write=${home.path}`];
      const notes = [deno, "run", "--quiet", ...scoped, join(ROOT, "examples", "notes", "main.ts"), "list"];
      // In a terminal Deno prompts for an ungranted read; the prompt would wait on a stdin nobody answers.
      const result = await run(["script", "-qec", notes.map(shellQuote).join(" "), "/dev/null"], {
        env: { NOTES_HOME: home.path, TERM: "xterm", ...FORCED },
        timeoutMs: 15_000,
      });
      assert.equal(result.code, 0, result.stdout);
      assert.equal(
        result.stdout.replaceAll("\r", ""),
        "(none)\n",
        "plain output, uncoloured: FORCE_COLOR was not read",
      );
    } finally {
      home.cleanup();
    }
  });
});

describe("plain output of nested results", () => {
  it("shows nested objects as indented key: value blocks, lists of flat objects as tables, control characters escaped", async () => {
    const result = await run([...TERM, "nested", "--format", "plain"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      [
        "effect:  created",
        "note:",
        "  id:    7",
        "  title: Buy milk",
        "  body:  two",
        "         lines",
        "  tags:  home, shop",
        "rows:",
        "  id  name  extra",
        "  1   a",
        "  2   b     true",
        "tree:",
        "  branch:",
        "    leaf: green",
        "  empty:",
        "  none:",
        "mixed:",
        "  - id:   1",
        "    meta:",
        "      deep: true",
        "  - plain",
        "hostile: \\u001b[31mred\\u001b[0m\\u0009tab",
        "",
      ].join("\n"),
    );
  });

  it("prints a table of 300 000 rows, and data too deep for JSON fails as in JSON mode, without a stack trace", async () => {
    const lab = programArgv("tests/fixtures/lab.ts");
    const long = await run([...lab, "export", "--rows", "300000", "--format", "plain"]);
    assert.equal(long.code, 0, long.stderr.slice(0, 500));
    const lines = long.stdout.split("\n");
    assert.deepEqual([lines[0], lines[1], lines[2], lines[300001], lines.length], [
      "rows:",
      "  n",
      "  0",
      "  299999",
      300003,
    ]);
    // Whether the runtime's JSON.stringify manages 100 000 levels differs (Node: no; Deno: yes); plain output
    // must end as JSON output does either way, and never in a stack trace.
    const json = await run([...lab, "nest", "--depth", "100000", "--format", "json"]);
    const plain = await run([...lab, "nest", "--depth", "100000", "--format", "plain"]);
    assert.equal(plain.code, json.code, plain.stderr.slice(0, 500));
    if (json.code !== 0) {
      assert.match(onlyEnvelope(json.stdout).error.message, /could not be serialised as JSON/);
      assert.match(plain.stderr, /^lab: error: the result could not be serialised as JSON/);
    }
    for (const result of [json, plain]) assert.doesNotMatch(result.stderr, /^\s+at /m, "no stack trace");
  });

  it("shows what a destructive command would change as a readable block, and what to do next in words", async () => {
    await withNotes(async (env) => {
      const result = await run([...NOTES, "remove", "1", "--format", "plain"], { env });
      assert.equal(result.code, 2);
      assert.ok(
        result.stderr.includes(
          [
            "  would change:",
            "    effect:       would_delete",
            "    would_affect:",
            "      notes:",
            "        id  title     tags",
            "        1   Buy milk  home",
            "      count: 1",
            "  next: if that is what you want, run the same command again with --confirm-destructive",
          ].join("\n"),
        ),
        result.stderr,
      );
      assert.doesNotMatch(result.stderr, /error\.preview/, "a person is not told about a JSON field");
    });
  });
});

describe("log lines and the result", () => {
  // Both streams into one pipe, as a terminal shows them: the order they reach it is the order people read.
  const merged = (argv: string[]) => run(["sh", "-c", `exec "$@" 2>&1`, "sh", ...argv]);

  it("prints a handler's log lines and warnings before the result, in plain and JSON mode", async () => {
    const logs = Array.from({ length: 20 }, (_, i) => `log line ${i + 1}`);
    const plain = await merged([...TERM, "chatty", "--lines", "20", "--format", "plain"]);
    assert.equal(plain.code, 0);
    assert.deepEqual(plain.stdout.split("\n").filter((line) => line !== ""), [
      ...logs,
      "warning: this command talks a lot",
      "result: the answer",
    ]);
    const json = await merged([...TERM, "chatty", "--lines", "20", "--format", "json"]);
    const lines = json.stdout.split("\n").filter((line) => line !== "");
    assert.deepEqual(lines.slice(0, -1), logs);
    assert.equal(JSON.parse(lines[lines.length - 1]!).data.result, "the answer");
  });
});

describe("help text", () => {
  it("says why `notes mcp serve` is destructive, naming the destructive commands it serves", async () => {
    const help = await run([...NOTES, "mcp", "serve", "--help", "--format", "plain"]);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout.split("\n")[0]!,
      /^notes mcp serve — Serve the tool's commands as MCP tools over stdio until stdin closes; destructive because it serves remove$/,
    );
    assert.match(help.stdout, /Danger level: destructive\./);
    const list = await run([...NOTES, "--help", "--format", "plain"]);
    assert.match(list.stdout, /mcp serve +.*destructive because it serves remove \[destructive\]/);
  });

  it("lists commands in the same order under every locale", async () => {
    // Czech collation puts "ch" after "h": a locale-aware sort would list chatty after completions.
    const help = await run([...TERM, "--help"], { env: { LC_ALL: "cs_CZ.UTF-8", LANG: "cs_CZ.UTF-8" } });
    assert.equal(help.code, 0, help.stderr);
    const commands = help.stdout.split("\n").filter((line) => /^ {2}[a-z]/.test(line)).map((line) =>
      line.slice(2).split("  ")[0]!.trim()
    );
    assert.deepEqual(commands, [
      "chatty",
      "completions",
      "manifest",
      "mcp install",
      "mcp listen",
      "mcp serve",
      "nested",
    ]);
  });

  it("speaks plain words: no requirement ids in any notes help", async () => {
    const pages = [[], ["add"], ["list"], ["show"], ["remove"], ["init"], ["lsp"], ["manifest"], [
      "mcp",
      "serve",
    ], ["mcp"]];
    for (const words of pages) {
      const help = await run([...NOTES, ...words, "--help", "--format", "plain"]);
      assert.equal(help.code, 0, words.join(" "));
      assert.doesNotMatch(help.stdout, /REQ-|§/, words.join(" "));
    }
  });
});
