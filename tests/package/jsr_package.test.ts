// The JSR package as Deno users get it: the same compiled build as the npm package (one file for Deno to load
// where the sources are ~100 modules), typed by the TypeScript sources it was built from; the `toolwire` binary
// an entry point of its own (`./cli`); every file an entry loads published; and `deno install` with the
// documented permissions gives a working command.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { entryPoints } from "../helpers/entry_points.ts";
import { NOTES, onlyEnvelope, ROOT, run, tempDir } from "../helpers/run.ts";

const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;
const DENO = denoGlobal?.execPath() ?? join(ROOT, "node_modules", "deno", "deno");
/** The permissions the README documents for the binary. */
const BINARY_PERMISSIONS = ["--allow-run", "--allow-read", "--allow-env"];
const ENTRIES = new Map(entryPoints().map((entry) => [entry.name, entry.built]));

/** The source a built entry names in its leading `@ts-self-types` comment, relative to the root. */
function typesOf(entry: string): string | undefined {
  const path = join(ROOT, entry);
  const match = /^(?:#![^\n]*\n)?\/\* @ts-self-types="([^"]+)" \*\/\n/.exec(readFileSync(path, "utf8"));
  return match === null ? undefined : relative(ROOT, resolve(dirname(path), match[1]!));
}

describe("the JSR package", { skip: existsSync(DENO) ? false : "no Deno binary", timeout: 300_000 }, () => {
  it("publishes the build as its entry points, each typed by its source, with every file they load", () => {
    const sources: Record<string, string> = {
      ".": "mod.ts",
      "./mcp": "lib/protocol/mcp/mod.ts",
      "./lsp": "lib/protocol/lsp/mod.ts",
      "./dap": "lib/protocol/dap/mod.ts",
      "./framing": "lib/framing/mod.ts",
      "./cli": "cmd/toolwire.ts",
    };
    assert.deepEqual([...ENTRIES.keys()].sort(), Object.keys(sources).sort());
    const listing = spawnSync(DENO, ["publish", "--dry-run", "--allow-dirty"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
    assert.equal(listing.status, 0, listing.stderr.toString());
    const published = new Set(
      [...`${listing.stdout}${listing.stderr}`.matchAll(
        /file:\/\/\S*?\/((?:cmd|lib|dist)\/\S+|mod\.ts|schema\/\S+\.json)/g,
      )]
        .map((match) => match[1]!),
    );
    for (const [name, source] of Object.entries(sources)) {
      const entry = ENTRIES.get(name)!;
      assert.equal(entry, join("dist", source.replace(/\.ts$/, ".js")), `${name} is the build of ${source}`);
      assert.equal(typesOf(entry), source, `${name} is typed by ${source}`);
      const graph = JSON.parse(
        execFileSync(DENO, ["info", "--json", join(ROOT, entry)], { cwd: ROOT, stdio: "pipe" }).toString(),
      ) as { modules: Array<{ specifier: string }> };
      // The repository's own modules, code and types: not the type packages under node_modules (which may
      // be a link to elsewhere, so they are told apart by their real path).
      const local = graph.modules.map((module) => module.specifier)
        .filter((specifier) => specifier.startsWith("file://"))
        .map((specifier) => relative(ROOT, fileURLToPath(specifier)))
        .filter((path) => !path.startsWith("..") && !path.startsWith("node_modules"));
      assert.ok(local.includes(source) && local.includes(entry), `${name}: ${local.join(", ")}`);
      for (const module of local) {
        assert.ok(published.has(module), `${module} is loaded by ${name} but not published`);
      }
    }
  });

  it("a Deno tool that imports it by name type-checks against the sources and runs the build with no permission", async () => {
    const project = tempDir("toolwire-jsr-");
    try {
      // The package's own config resolves its name to its exports, as JSR does for a dependent.
      const deno = (command: "check" | "run", file: string, ...args: string[]) => [
        DENO,
        command,
        "--quiet",
        "--config",
        join(ROOT, "deno.json"),
        join(project.path, file),
        ...args,
      ];
      const tool = (extra: string) =>
        [
          // A type only the sources have: the build's JavaScript exports no types.
          'import { createTool, ExitCode, type ToolOptions } from "@toolwire/toolwire";',
          'const options: ToolOptions = { name: "dtool", version: "1.0.0", description: "Greets on Deno" };',
          "const tool = createTool(options);",
          'tool.command("greet", { description: "Greet someone", danger_level: "safe", required_scopes: [],',
          '  flags: { name: { type: "string", required: true, description: "Who" } },',
          '  exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },',
          "  run: (ctx) => ({ greeting: `hello ${ctx.flags.name}`, code: ExitCode.SUCCESS }) });",
          extra,
          "await tool.main();",
        ].join("\n");
      writeFileSync(join(project.path, "tool.ts"), tool(""));
      writeFileSync(join(project.path, "wrong.ts"), tool("const code: string = ExitCode.SUCCESS;"));
      // Type-checking the whole source tree takes seconds idle and far more on a loaded machine.
      const checked = await run(deno("check", "tool.ts"), { timeoutMs: 90_000 });
      assert.equal(checked.code, 0, checked.stderr);
      // Types that reach the tool: a mistake is an error, not `any`.
      const wrong = await run(deno("check", "wrong.ts"), { timeoutMs: 90_000 });
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /TS2322/);

      const greet = await run(deno("run", "tool.ts", "greet", "--name", "ada"));
      assert.equal(greet.code, 0, greet.stderr);
      assert.deepEqual(onlyEnvelope(greet.stdout).data, { greeting: "hello ada", code: 0 });
      assert.equal(greet.stderr, "");
      const init =
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';
      const call =
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"bo"}}}\n';
      const served = await run(deno("run", "tool.ts", "mcp", "serve"), { stdin: init + call });
      assert.equal(served.code, 0, served.stderr);
      const answers = served.stdout.trim().split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(answers.map((answer) => answer.id), [1, 2]);
      assert.equal(answers[1].result.structuredContent.data.greeting, "hello bo");
      const completions = await run(deno("run", "tool.ts", "completions", "bash"));
      assert.equal(completions.code, 0, completions.stderr);
      assert.match(completions.stdout, /^# bash completion for dtool/);
    } finally {
      project.cleanup();
    }
  });

  it("deno install with the documented permissions gives a working toolwire, bridge included", async () => {
    const root = tempDir("toolwire-install-");
    try {
      execFileSync(DENO, [
        "install",
        "--global",
        "--quiet",
        "--root",
        root.path,
        "--name",
        "toolwire",
        ...BINARY_PERMISSIONS,
        join(ROOT, ENTRIES.get("./cli")!),
      ], {
        stdio: "pipe",
      });
      const bin = join(root.path, "bin", "toolwire");
      // The installed shim runs `deno` from PATH, as on a user's machine.
      const env = { PATH: `${dirname(DENO)}:${process.env.PATH ?? ""}` };
      const version = await run([bin, "--version"], { env });
      assert.equal(version.code, 0, version.stderr);
      assert.equal(onlyEnvelope(version.stdout).data.name, "toolwire");
      const init =
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';
      const list = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n';
      const exec = NOTES.map((word) => `'${word}'`).join(" ");
      const served = await run([bin, "mcp", "serve", "--exec", exec], { stdin: init + list, env });
      assert.equal(served.code, 0, served.stderr);
      const tools = JSON.parse(served.stdout.trim().split("\n")[1]!).result.tools as Array<{ name: string }>;
      assert.ok(tools.some((tool) => tool.name === "add"));
    } finally {
      root.cleanup();
    }
  });
});
