// `toolwire mcp serve --exec "<cli>"`, end to end: the real v2 MCP client (auto negotiation) against the
// bridge, serving a Python CLI (language independence) and the `notes` example; and the failures of phase 1.
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { mcpTool, servedCommands } from "../../lib/command/mcp/tool_mapping.ts";
import type { Manifest } from "../../lib/command/contract/manifest.ts";
import { lastLine, type Loose, NOTES, onlyEnvelope, run, tempDir } from "../helpers/run.ts";
import { connect, execLine, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";
import { initialize, WireSession } from "../helpers/mcp_wire.ts";
import { foreignCli, foreignManifest } from "../helpers/foreign_cli.ts";

function bridge(cli: readonly string[], ...flags: string[]): string[] {
  return [...TOOLWIRE, "mcp", "serve", "--exec", execLine(cli), ...flags];
}

/** Runs `body` with a client of the bridge over `cli`, closing it afterwards. */
async function withBridge(
  cli: readonly string[],
  flags: string[],
  body: (client: Client) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const client = await connect(bridge(cli, ...flags), { env });
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

async function manifestOf(cli: readonly string[], env: Record<string, string> = {}): Promise<Manifest> {
  const result = await run([...cli, "--format", "json", "manifest"], { env });
  assert.equal(result.code, 0, result.stderr);
  return onlyEnvelope(result.stdout).data;
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

const PYFIX = pyfix();

describe("toolwire mcp serve --exec: a Python CLI", () => {
  it("negotiates the modern era and lists the served commands, mapped exactly as a tool's own mcp serve maps them", async () => {
    const manifest = await manifestOf(PYFIX);
    const expected = servedCommands(manifest.commands, { readOnly: false }).map(([path, entry]) =>
      mcpTool(path, entry)
    );
    await withBridge(PYFIX, [], async (client) => {
      assert.equal(client.getProtocolEra(), "modern");
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), [
        "crash",
        "echo",
        "manifest",
        "slow",
        "store_put",
        "store_wipe",
      ]);
      assert.deepEqual(tools, expected);
      const echo = tools.find((tool) => tool.name === "echo")!;
      assert.deepEqual(echo.inputSchema.properties!.words, {
        type: "array",
        items: { type: "string" },
        description: "Words to echo",
      });
    });
  });

  it("--read-only keeps only safe commands", async () => {
    await withBridge(PYFIX, ["--read-only"], async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["crash", "echo", "manifest", "slow"]);
    });
  });

  it("a call succeeds with the CLI's envelope; a CLI that answers without one is a GENERAL_ERROR with the exit code and output tails", async () => {
    await withBridge(PYFIX, [], async (client) => {
      const ok = await client.callTool({
        name: "echo",
        arguments: { text: "hi", upper: true, tag: ["a", "b"], times: 2, mood: "loud" },
      });
      assert.equal(ok.isError, false);
      const data = (ok.structuredContent as Loose).data;
      assert.deepEqual([data.text, data.tag, data.times, data.mood], ["HI", ["a", "b"], 2, "loud"]);
      assert.deepEqual(JSON.parse((ok.content as Loose)[0].text), ok.structuredContent);
      const crash = await client.callTool({ name: "crash", arguments: {} });
      assert.equal(crash.isError, true);
      const { error, meta } = crash.structuredContent as Loose;
      assert.equal(error.code, "GENERAL_ERROR");
      assert.equal(meta.exit_code, 1);
      assert.equal(error.exit_code, 3);
      assert.equal(error.stdout_tail, "this is not an envelope\n");
      assert.match(error.stderr_tail, /RuntimeError: crashed on purpose/);
    });
  });

  it("bad arguments are an isError ARG_ERROR and nothing is spawned", async () => {
    const dir = tempDir();
    try {
      await withBridge(PYFIX, ["--cwd", dir.path], async (client) => {
        const bad = await client.callTool({
          name: "store_put",
          arguments: { key: 5, value: "v", nope: true },
        });
        assert.equal(bad.isError, true);
        const { error } = bad.structuredContent as Loose;
        assert.equal(error.code, "ARG_ERROR");
        assert.deepEqual(error.issues.map((issue: { message: string }) => issue.message), [
          "key expects a string, got 5",
          "unknown argument 'nope'",
          "key is required",
        ]);
        const nul = await client.callTool({ name: "store_put", arguments: { key: "a\u0000b", value: "v" } });
        assert.equal(
          (nul.structuredContent as Loose).error.message,
          "key contains a NUL character, which a command line cannot carry",
        );
      });
      assert.equal(existsSync(join(dir.path, "pyfix-store.json")), false);
    } finally {
      dir.cleanup();
    }
  });

  it("a command marked mcp: false is not listed, and a call naming it is a protocol error", async () => {
    await withBridge(PYFIX, [], async (client) => {
      await assert.rejects(client.callTool({ name: "approve", arguments: { id: 1 } }), (error: Loose) => {
        assert.equal(error.code, -32602);
        assert.match(error.message, /Unknown tool: approve/);
        return true;
      });
    });
  });

  it("arguments with shell metacharacters arrive verbatim: no shell, no injection", async () => {
    const dir = tempDir();
    const pwned = join(dir.path, "pwned");
    const text =
      `; rm -rf x && touch ${pwned} $(touch ${pwned}) \`touch ${pwned}\` 'single' "double" \\ | > ${pwned}`;
    const words = ["-rf", "$HOME", "a b", "--", "'; echo", "*"];
    try {
      await withBridge(PYFIX, ["--cwd", dir.path], async (client) => {
        const result = await client.callTool({
          name: "echo",
          arguments: { text, tag: ["$(id)", "-x"], words },
        });
        assert.equal(result.isError, false);
        const data = (result.structuredContent as Loose).data;
        assert.equal(data.text, text);
        assert.deepEqual(data.tag, ["$(id)", "-x"]);
        assert.deepEqual(data.words, words);
        assert.deepEqual(data.argv, [
          "--format",
          "json",
          "echo",
          `--text=${text}`,
          "--tag=$(id)",
          "--tag=-x",
          "--",
          ...words,
        ]);
      });
      assert.equal(existsSync(pwned), false);
    } finally {
      dir.cleanup();
    }
  });

  it("a destructive call previews without confirmation and runs with confirm_destructive; --cwd is every call's directory", async () => {
    const dir = tempDir();
    const store = join(dir.path, "pyfix-store.json");
    try {
      await withBridge(PYFIX, ["--cwd", dir.path], async (client) => {
        const put = await client.callTool({
          name: "store_put",
          arguments: { key: "k", value: "v", idempotency_key: "put-1" },
        });
        assert.equal((put.structuredContent as Loose).data.cwd, realpathSync(dir.path));
        const preview = await client.callTool({ name: "store_wipe", arguments: {} });
        assert.equal(preview.isError, true);
        const { error, meta } = preview.structuredContent as Loose;
        assert.equal(error.code, "CONFIRMATION_REQUIRED");
        assert.equal(meta.exit_code, 2);
        assert.deepEqual(error.preview, { effect: "would_delete", would_affect: { keys: ["k"], count: 1 } });
        assert.equal(existsSync(store), true, "nothing is deleted without confirmation");
        const dry = await client.callTool({ name: "store_wipe", arguments: { dry_run: true } });
        assert.equal((dry.structuredContent as Loose).data.effect, "would_delete");
        const confirmed = await client.callTool({
          name: "store_wipe",
          arguments: { confirm_destructive: true },
        });
        assert.equal(confirmed.isError, false);
        assert.deepEqual((confirmed.structuredContent as Loose).data, { effect: "deleted", count: 1 });
        assert.equal(existsSync(store), false);
      });
    } finally {
      dir.cleanup();
    }
  });

  it("a client that declared elicitation is asked first, and the accepted call runs", async () => {
    const dir = tempDir();
    const store = join(dir.path, "pyfix-store.json");
    writeFileSync(store, JSON.stringify({ a: "1", b: "2" }));
    const client = await connect(bridge(PYFIX, "--cwd", dir.path), { capabilities: { elicitation: {} } });
    try {
      const asked: string[] = [];
      client.setRequestHandler("elicitation/create", (request: Loose) => {
        asked.push(request.params.message);
        return Promise.resolve({ action: "accept", content: { confirm: true } });
      });
      const result = await client.callTool({ name: "store_wipe", arguments: {} });
      assert.equal(result.isError, false);
      assert.deepEqual((result.structuredContent as Loose).data, { effect: "deleted", count: 2 });
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /store wipe is destructive\. Proceed\? Preview: .*"count":2/);
      assert.equal(existsSync(store), false);
    } finally {
      await client.close();
      dir.cleanup();
    }
  });

  it("a cancelled call ends its child process", async () => {
    const dir = tempDir();
    const pidFile = join(dir.path, "pid");
    try {
      await withBridge(PYFIX, [], async (client) => {
        const controller = new AbortController();
        const call = client.callTool({ name: "slow", arguments: { seconds: 60, pid_file: pidFile } }, {
          signal: controller.signal,
        });
        call.catch(() => {});
        assert.ok(
          await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8") !== ""),
          "the slow command started",
        );
        const pid = Number(readFileSync(pidFile, "utf8"));
        assert.equal(gone(pid), false);
        controller.abort("the test cancels");
        await assert.rejects(call);
        assert.ok(await waitFor(() => gone(pid)), `process ${pid} is still running after the cancel`);
        const after = await client.callTool({ name: "echo", arguments: { text: "still serving" } });
        assert.equal((after.structuredContent as Loose).data.text, "still serving");
      });
    } finally {
      dir.cleanup();
    }
  });

  it("a call over --call-timeout is an isError TIMEOUT and its process group is gone", async () => {
    const dir = tempDir();
    const pidFile = join(dir.path, "pid");
    try {
      await withBridge(PYFIX, ["--call-timeout", "1"], async (client) => {
        const result = await client.callTool({ name: "slow", arguments: { seconds: 60, pid_file: pidFile } });
        assert.equal(result.isError, true);
        const { error, meta } = result.structuredContent as Loose;
        assert.deepEqual([error.code, meta.exit_code], ["TIMEOUT", 10]);
        assert.ok(await waitFor(() => gone(Number(readFileSync(pidFile, "utf8")))));
      });
    } finally {
      dir.cleanup();
    }
  });
});

describe("toolwire mcp serve --exec: notes, a toolwire tool", () => {
  it("offers exactly the tools notes' own mcp serve offers, and runs them", async () => {
    const home = tempDir();
    const env = { NOTES_HOME: home.path };
    try {
      const own = await connect([...NOTES, "mcp", "serve"], { env });
      const direct = (await own.listTools()).tools;
      await own.close();
      await withBridge(NOTES, [], async (client) => {
        assert.equal(client.getProtocolEra(), "modern");
        const { tools } = await client.listTools();
        assert.deepEqual(tools, direct);
        assert.deepEqual(tools.map((tool) => tool.name), ["add", "list", "manifest", "remove", "show"]);
        const added = await client.callTool({
          name: "add",
          arguments: { title: "it's $(here)", tag: ["a; b"] },
        });
        assert.equal(added.isError, false);
        assert.equal((added.structuredContent as Loose).data.note.title, "it's $(here)");
        const shown = await client.callTool({ name: "show", arguments: { id: 1 } });
        assert.deepEqual((shown.structuredContent as Loose).data.tags, ["a; b"]);
        const missing = await client.callTool({ name: "show", arguments: { id: 99 } });
        assert.equal(missing.isError, true);
        assert.equal((missing.structuredContent as Loose).error.code, "NOT_FOUND");
        await assert.rejects(client.callTool({ name: "init", arguments: {} }), /Unknown tool: init/);
        const preview = await client.callTool({ name: "remove", arguments: { id: 1 } });
        assert.equal((preview.structuredContent as Loose).error.code, "CONFIRMATION_REQUIRED");
        assert.equal((preview.structuredContent as Loose).error.preview.effect, "would_delete");
        const removed = await client.callTool({
          name: "remove",
          arguments: { id: 1, confirm_destructive: true },
        });
        assert.equal((removed.structuredContent as Loose).data.effect, "deleted");
      }, env);
    } finally {
      home.cleanup();
    }
  });
});

describe("toolwire mcp serve: phase-1 failures exit with a declared code, stdout empty, the envelope last on stderr", () => {
  async function failure(args: string[], code: number, errorCode: string): Promise<Loose> {
    const result = await run([...TOOLWIRE, "--format", "json", "mcp", "serve", ...args]);
    assert.equal(result.code, code, result.stderr);
    assert.equal(result.stdout, "");
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.ok, false);
    assert.equal(envelope.error.code, errorCode);
    assert.equal(envelope.meta.exit_code, code);
    return envelope;
  }

  it("a program that does not exist: 5 NOT_FOUND", async () => {
    const envelope = await failure(["--exec", "definitely-not-a-program-7f3a --flag"], 5, "NOT_FOUND");
    assert.match(envelope.error.message, /cannot start 'definitely-not-a-program-7f3a' \(ENOENT\)/);
  });

  it("a CLI whose manifest is invalid: 4 PRECONDITION naming the command and the field", async () => {
    const envelope = await failure(["--exec", execLine(pyfix("broken_mcp_true"))], 4, "PRECONDITION");
    assert.match(
      envelope.error.message,
      /printed an invalid manifest: command 'approve': mcp: may only be false/,
    );
    assert.deepEqual(envelope.error.issues.map((issue: Loose) => [issue.command, issue.field]), [[
      "approve",
      "mcp",
    ]]);
  });

  it("a program that prints no manifest: 4 PRECONDITION with what it wrote", async () => {
    const envelope = await failure(
      ["--exec", execLine(["python3", "-c", "print('hello'); import sys; sys.exit(3)"])],
      4,
      "PRECONDITION",
    );
    assert.match(envelope.error.message, /exited 3 without an envelope on its last stdout line/);
    assert.equal(envelope.error.stdout_tail, "hello\n");
  });

  it("unbalanced quotes, an empty --exec, and --cwd without --exec: 2 ARG_ERROR", async () => {
    assert.match(
      (await failure(["--exec", `python3 "tool.py`], 2, "ARG_ERROR")).error.message,
      /--exec: unbalanced " opened at character 9/,
    );
    assert.match((await failure(["--exec", "  "], 2, "ARG_ERROR")).error.message, /--exec is empty/);
    assert.match(
      (await failure(["--cwd", "/"], 2, "ARG_ERROR")).error.message,
      /--cwd applies only with --exec/,
    );
  });

  it("a --cwd that is not a directory: 5 NOT_FOUND", async () => {
    const dir = tempDir();
    try {
      const envelope = await failure(
        ["--exec", execLine(PYFIX), "--cwd", join(dir.path, "missing")],
        5,
        "NOT_FOUND",
      );
      assert.match(envelope.error.message, /is not a directory/);
    } finally {
      dir.cleanup();
    }
  });

  it("in plain mode the failure is plain text on stderr, without an envelope", async () => {
    const result = await run([
      ...TOOLWIRE,
      "--format",
      "plain",
      "mcp",
      "serve",
      "--exec",
      "definitely-not-a-program-7f3a",
    ]);
    assert.equal(result.code, 5);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^toolwire: error: cannot start 'definitely-not-a-program-7f3a'/);
    assert.doesNotMatch(result.stderr, /"ok":false/);
  });
});

describe("toolwire mcp serve without --exec", () => {
  it("serves toolwire's own commands, the variadic positional of check as an array", async () => {
    const client = await connect([...TOOLWIRE, "mcp", "serve"]);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["check", "manifest"]);
      const check = tools.find((tool) => tool.name === "check")!;
      assert.deepEqual(check.inputSchema.properties!.cli, {
        type: "array",
        items: { type: "string" },
        minItems: 1,
        description: "The CLI to check: its program and leading arguments, after --",
      });
      assert.deepEqual(check.inputSchema.required, ["cli"]);
    } finally {
      await client.close();
    }
  });
});

describe("toolwire mcp serve --exec: a manifest typing a framework flag its own way", () => {
  it("confirm-destructive typed as a string: confirm_destructive is still a boolean, and a preview never passes --confirm-destructive", async () => {
    const manifest = foreignManifest({
      wipe: {
        description: "Wipe everything",
        danger_level: "destructive",
        flags: {
          "dry-run": { type: "boolean", required: false, description: "Preview" },
          "confirm-destructive": { type: "string", required: false, description: "Type yes to confirm" },
        },
        requires_confirmation: true,
      },
    });
    const cli = foreignCli(manifest);
    try {
      await withBridge(cli.argv, [], async (client) => {
        const { tools } = await client.listTools();
        const wipe = tools.find((tool) => tool.name === "wipe")!;
        assert.equal((wipe.inputSchema.properties as Loose).confirm_destructive.type, "boolean");
        const unconfirmed = await client.callTool({ name: "wipe", arguments: {} });
        assert.equal((unconfirmed.structuredContent as Loose).error.code, "CONFIRMATION_REQUIRED");
        assert.deepEqual(cli.calls("wipe"), [["--format", "json", "wipe", "--dry-run"]]);
        // A string is no confirmation, and no preview either: refused before anything runs.
        for (const given of ["no", "yes", ""]) {
          const refused = await client.callTool({ name: "wipe", arguments: { confirm_destructive: given } });
          const { error } = refused.structuredContent as Loose;
          assert.equal(error.code, "ARG_ERROR", JSON.stringify(error));
          assert.match(error.message, /confirm_destructive expects a boolean/);
        }
        assert.equal(cli.calls("wipe").length, 1, "nothing more was run");
        const confirmed = await client.callTool({ name: "wipe", arguments: { confirm_destructive: true } });
        assert.equal((confirmed.structuredContent as Loose).ok, true);
        assert.deepEqual(cli.calls("wipe").at(-1), ["--format", "json", "wipe", "--confirm-destructive"]);
      }, cli.env);
    } finally {
      cli.cleanup();
    }
  });
});

describe("toolwire mcp serve --exec: the manifest forms it reads", () => {
  it("an earlier toolwire's members (supports_dry_run, default_format) and the current ones (x-default-format, any x- extension) are served alike", async () => {
    const sync = {
      description: "Sync the widgets",
      danger_level: "mutating",
      flags: {
        "idempotency-key": { type: "string", required: false, description: "A key" },
        "dry-run": { type: "boolean", required: false, description: "Preview" },
      },
    };
    for (
      const extra of [
        { supports_dry_run: true, default_format: "plain" },
        { "x-default-format": "plain", "x-acme-rollout": { stage: "beta" } },
      ]
    ) {
      const cli = foreignCli(foreignManifest({ sync: { ...sync, ...extra } }));
      try {
        await withBridge(cli.argv, [], async (client) => {
          const { tools } = await client.listTools();
          const tool = tools.find((candidate) => candidate.name === "sync")!;
          assert.ok((tool.inputSchema.properties as Loose).dry_run, JSON.stringify(extra));
          const previewed = await client.callTool({ name: "sync", arguments: { dry_run: true } });
          assert.equal((previewed.structuredContent as Loose).ok, true);
          assert.deepEqual(cli.calls("sync"), [["--format", "json", "sync", "--dry-run"]]);
        }, cli.env);
      } finally {
        cli.cleanup();
      }
    }
  });

  it("a top-level member beyond the four (a framework's tool object): the commands are served, and stderr names the member", async () => {
    const manifest = {
      ...foreignManifest({ echo: { description: "Echo", danger_level: "safe" } }),
      tool: { name: "foreign", version: "2.3.1" },
    };
    const cli = foreignCli(manifest);
    try {
      const s = new WireSession(bridge(cli.argv), { env: cli.env });
      await s.request(initialize(0));
      const listed = await s.request({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      assert.deepEqual(listed.result.tools.map((tool: Loose) => tool.name), ["echo"]);
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stderr,
        /warning: '.*foreign\.py --format json manifest' printed a manifest with the top-level member 'tool', which the manifest format does not define; it is ignored and the commands are served/,
      );
      // mcp snapshot reads it the same way, the warning in its envelope.
      const snapshot = await run([
        ...TOOLWIRE,
        "--format",
        "json",
        "mcp",
        "snapshot",
        "--exec",
        execLine(cli.argv),
      ], {
        env: cli.env,
      });
      assert.equal(snapshot.code, 0, snapshot.stderr);
      const envelope = onlyEnvelope(snapshot.stdout);
      assert.deepEqual(envelope.data.tools.map((tool: Loose) => tool.name), ["echo"]);
      assert.deepEqual(envelope.warnings.map((warning: Loose) => warning.code), ["MANIFEST_UNKNOWN_MEMBER"]);
      assert.match(envelope.warnings[0].message, /top-level member 'tool'/);
    } finally {
      cli.cleanup();
    }
  });
});
