// A tool started on Deno with fewer permissions than it needs: every run still ends in one envelope with a
// declared exit code and a message naming the flag to add, never a stack trace; settings the framework can do
// without (`<TOOL>_FORMAT`) fall back to their defaults. Deno runs the tool whichever runtime runs the test.
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
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

  // `mcp install` asks for what its file needs and nothing more, and never hands the install's grants to the
  // server it registers: the entry carries what the tool declares (createTool's denoPermissions).
  const DECLARED = [
    "--allow-env=NOTES_HOME,NOTES_FORMAT,XDG_DATA_HOME",
    "--allow-read",
    "--allow-write",
    "--allow-sys=homedir",
  ];
  const install = (permissions: string[], args: string[], env: Record<string, string>) =>
    run([
      DENO,
      "run",
      "--quiet",
      "--no-prompt",
      ...permissions,
      NOTES_TS,
      "--format",
      "json",
      "mcp",
      "install",
      ...args,
    ], {
      env: { XDG_CONFIG_HOME: "", CLAUDE_CONFIG_DIR: "", ...env },
    });

  it("mcp install --print takes no permission; --config takes read and write on its directory only", async () => {
    const home = tempDir();
    try {
      const print = await install([], ["--client", "cursor", "--print"], {});
      assert.equal(print.code, 0, print.stdout);
      const config = join(home.path, "mcp.json");
      const scoped = [`--allow-read=${home.path}`, `--allow-write=${home.path}`];
      const result = await install(scoped, ["--client", "cursor", "--config", config], {});
      assert.equal(result.code, 0, result.stdout);
      assert.ok(existsSync(config));
    } finally {
      home.cleanup();
    }
  });

  const locations: Array<[string, string[], string[], string]> = [
    ["cursor, user", ["--client", "cursor"], ["HOME"], ".cursor/mcp.json"],
    ["claude-code, user", ["--client", "claude-code"], ["HOME", "CLAUDE_CONFIG_DIR"], ".claude.json"],
    [
      "claude-desktop on Linux",
      ["--client", "claude-desktop"],
      ["HOME", "XDG_CONFIG_HOME"],
      ".config/Claude/claude_desktop_config.json",
    ],
    [
      "vscode, user, on Linux",
      ["--client", "vscode", "--scope", "user"],
      ["HOME", "XDG_CONFIG_HOME"],
      ".config/Code/User/mcp.json",
    ],
    ["claude-code, project", ["--client", "claude-code", "--scope", "project"], [], ".mcp.json"],
  ];
  for (const [where, args, variables, file] of locations) {
    it(
      `mcp install (${where}) runs with --allow-env${
        variables.length === 0 ? "" : `=${variables.join(",")}`
      } and read and write on the configuration's directory`,
      {
        skip: process.platform === "linux" ? false : "the Linux locations",
      },
      async () => {
        const home = tempDir();
        try {
          const permissions = [
            ...(variables.length === 0 ? [] : [`--allow-env=${variables.join(",")}`]),
            `--allow-read=${home.path}`,
            `--allow-write=${home.path}`,
          ];
          const result = await run(
            [
              DENO,
              "run",
              "--quiet",
              "--no-prompt",
              ...permissions,
              NOTES_TS,
              "--format",
              "json",
              "mcp",
              "install",
              ...args,
            ],
            { env: { HOME: home.path, XDG_CONFIG_HOME: "", CLAUDE_CONFIG_DIR: "" }, cwd: home.path },
          );
          assert.equal(result.code, 0, result.stdout);
          assert.ok(existsSync(join(home.path, file)), file);
        } finally {
          home.cleanup();
        }
      },
    );
  }

  it("the registered entry carries the tool's declared permissions, not the install's; another grant is a noop", async () => {
    const home = tempDir();
    try {
      const config = join(home.path, "mcp.json");
      const narrow = [`--allow-read=${home.path}`, `--allow-write=${home.path}`];
      const first = await install(narrow, ["--client", "cursor", "--config", config], {});
      assert.equal(first.code, 0, first.stdout);
      const entry = onlyEnvelope(first.stdout).data.server;
      assert.deepEqual(entry.args, ["run", ...DECLARED, NOTES_TS, "mcp", "serve"]);
      const again = await install(["-A"], ["--client", "cursor", "--config", config], {});
      assert.equal(again.code, 0, again.stdout);
      assert.equal(onlyEnvelope(again.stdout).data.effect, "noop", "the entry does not depend on the grants");
      assert.deepEqual(onlyEnvelope(again.stdout).warnings, []);
    } finally {
      home.cleanup();
    }
  });

  it("a tool that declares no permissions is registered with none, and the install says so", async () => {
    const home = tempDir();
    try {
      const config = join(home.path, "mcp.json");
      const many = join(ROOT, "tests", "fixtures", "many.ts");
      const result = await run([
        DENO,
        "run",
        "--quiet",
        "--no-prompt",
        "-A",
        many,
        "--format",
        "json",
        "mcp",
        "install",
        "--client",
        "cursor",
        "--config",
        config,
      ]);
      assert.equal(result.code, 0, result.stdout);
      const envelope = onlyEnvelope(result.stdout);
      assert.deepEqual(envelope.data.server.args, ["run", many, "mcp", "serve"], "not the install's -A");
      assert.deepEqual(envelope.warnings.map((warning: { code: string }) => warning.code), ["LAUNCH_CAVEAT"]);
      assert.match(envelope.warnings[0].message, /declares no Deno permissions/);
    } finally {
      home.cleanup();
    }
  });
});
