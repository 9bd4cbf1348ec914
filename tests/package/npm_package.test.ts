// The npm package as a user gets it: `npm pack`, install the tarball into an empty project, then import the
// library, run a tool built on it, and run the `toolwire` bin — proving `files`, `exports`, `bin` and the
// bundles are right, not just the sources.
import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { onlyEnvelope, ROOT, run, tempDir } from "../helpers/run.ts";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
// npm packages are for Node: the installed package runs on Node whichever runtime runs this test.
const NODE = "node";

describe("the npm package", () => {
  it("installs from its tarball and works: import, a tool, mcp serve, the toolwire bin", { timeout: 120_000 }, async () => {
    const dir = tempDir("toolwire-pack-");
    try {
      execFileSync(NPM, ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir.path, ROOT], { stdio: "pipe" });
      const tarball = readdirSync(dir.path).find((name) => name.endsWith(".tgz"))!;
      const project = join(dir.path, "project");
      execFileSync("mkdir", [project]);
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", version: "1.0.0", type: "module" }));
      execFileSync(NPM, ["install", "--silent", "--no-audit", "--no-fund", "--offline", join(dir.path, tarball)], { cwd: project, stdio: "pipe" });
      writeFileSync(join(project, "hello.js"), [
        'import { createTool } from "toolwire";',
        'const tool = createTool({ name: "hello", version: "1.0.0", description: "Greets" });',
        'tool.command("greet", { description: "Greet someone", danger_level: "safe", required_scopes: [],',
        '  flags: { name: { type: "string", required: true, description: "Who" } },',
        '  exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },',
        "  run: (ctx) => ({ greeting: `hello ${ctx.flags.name}` }) });",
        "await tool.main();",
      ].join("\n"));
      const greet = await run([NODE, join(project, "hello.js"), "greet", "--name", "ada"], { cwd: project });
      assert.equal(greet.code, 0, greet.stderr);
      assert.equal(onlyEnvelope(greet.stdout).data.greeting, "hello ada");

      const init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';
      const serve = await run([NODE, join(project, "hello.js"), "mcp", "serve"], { cwd: project, stdin: init });
      assert.equal(serve.code, 0, serve.stderr);
      assert.equal(JSON.parse(serve.stdout.split("\n")[0]!).result.serverInfo.name, "hello");

      const bin = await run([join(project, "node_modules", ".bin", "toolwire"), "--version"], { cwd: project });
      assert.equal(bin.code, 0, bin.stderr);
      assert.equal(onlyEnvelope(bin.stdout).data.name, "toolwire");
    } finally {
      dir.cleanup();
    }
  });
});
