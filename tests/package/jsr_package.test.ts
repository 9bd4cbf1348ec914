// The JSR package as Deno users get it: the `toolwire` binary is an entry point of its own (`./cli`), every
// module it loads (the manifest schema's JSON too) is published, and `deno install` with the documented permissions gives a working command.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NOTES, onlyEnvelope, ROOT, run, tempDir } from "../helpers/run.ts";

const denoGlobal = (globalThis as { Deno?: { execPath(): string } }).Deno;
const DENO = denoGlobal?.execPath() ?? join(ROOT, "node_modules", "deno", "deno");
/** The permissions the README documents for the binary. */
const BINARY_PERMISSIONS = ["--allow-run", "--allow-read", "--allow-env"];

describe("the JSR package", { skip: existsSync(DENO) ? false : "no Deno binary", timeout: 120_000 }, () => {
  it("publishes the binary as ./cli with every module it loads, and the protocol subpaths", () => {
    const config = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as {
      exports: Record<string, string>;
    };
    assert.equal(config.exports["./cli"], "./cmd/toolwire.ts");
    const listing = spawnSync(DENO, ["publish", "--dry-run", "--allow-dirty"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
    assert.equal(listing.status, 0, listing.stderr.toString());
    const published = new Set(
      [
        ...`${listing.stdout}${listing.stderr}`.matchAll(
          /file:\/\/\S*?\/((?:cmd|lib)\/\S+\.ts|mod\.ts|schema\/\S+\.json)/g,
        ),
      ]
        .map((match) => match[1]!),
    );
    const graph = JSON.parse(
      execFileSync(DENO, ["info", "--json", join(ROOT, "cmd", "toolwire.ts")], { cwd: ROOT, stdio: "pipe" })
        .toString(),
    ) as {
      modules: Array<{ specifier: string }>;
    };
    // The repository's own modules: not the type packages under node_modules (which may be a link to
    // elsewhere, so they are told apart by their real path).
    const local = graph.modules.map((module) => module.specifier)
      .filter((specifier) => specifier.startsWith("file://"))
      .map((specifier) => relative(ROOT, fileURLToPath(specifier)))
      .filter((path) => !path.startsWith("..") && !path.startsWith("node_modules"));
    assert.ok(local.length > 10);
    for (const module of local) {
      assert.ok(published.has(module), `${module} is loaded by the binary but not published`);
    }
    // The subpaths for protocol authors are entry points of their own, and published.
    for (const name of ["mcp", "lsp", "dap", "framing"]) {
      const path = config.exports[`./${name}`];
      assert.ok(path !== undefined && published.has(path.replace(/^\.\//, "")), `./${name} is exported`);
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
        join(ROOT, "cmd", "toolwire.ts"),
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
