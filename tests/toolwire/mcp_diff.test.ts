// `toolwire mcp snapshot` and `toolwire mcp diff` (REQ-O-035), end to end: the binary spawned on the test's
// runtime against the notes example — saved tool lists with drift of each kind, live servers (notes; the
// 150-command fixture, whose list comes in pages), and every way the input can be wrong.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Loose, NOTES, onlyEnvelope, programArgv, run, tempDir } from "../helpers/run.ts";
import { execLine, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

const MANY = programArgv("tests/fixtures/many.ts");
const LAB = programArgv("tests/fixtures/lab.ts");
const NOTES_LINE = execLine(NOTES);

/** A temporary directory that is also NOTES_HOME, for the duration of `body`. */
async function inTemp(body: (dir: string, env: Record<string, string>) => Promise<void>): Promise<void> {
  const dir = tempDir();
  try {
    await body(dir.path, { NOTES_HOME: dir.path });
  } finally {
    dir.cleanup();
  }
}

function toolwire(args: string[], env: Record<string, string> = {}) {
  return run([...TOOLWIRE, "--format", "json", ...args], { env, timeoutMs: 60_000 });
}

/** The tools notes would serve, as `mcp snapshot` prints them (stdout, no --output). */
async function notesTools(env: Record<string, string>): Promise<Loose[]> {
  const result = await toolwire(["mcp", "snapshot", "--exec", NOTES_LINE], env);
  assert.equal(result.code, 0, result.stderr);
  return onlyEnvelope(result.stdout).data.tools;
}

describe("toolwire mcp snapshot", () => {
  it("prints the tools mcp serve --exec would serve; --output writes the same list as deterministic JSON", async () => {
    await inTemp(async (dir, env) => {
      const tools = await notesTools(env);
      assert.deepEqual(tools.map((tool) => tool.name), ["add", "list", "manifest", "remove", "show"]);
      const file = join(dir, "tools.json");
      const written = await toolwire(["mcp", "snapshot", "--exec", NOTES_LINE, "--output", file], env);
      assert.equal(written.code, 0, written.stderr);
      assert.equal(onlyEnvelope(written.stdout).data.output, file);
      const first = readFileSync(file, "utf8");
      assert.deepEqual(JSON.parse(first), { tools });
      assert.equal(
        (await toolwire(["mcp", "snapshot", "--exec", NOTES_LINE, "--output", file], env)).code,
        0,
      );
      assert.equal(readFileSync(file, "utf8"), first, "a second snapshot is byte for byte the first");
    });
  });

  it("--read-only keeps the safe tools", async () => {
    await inTemp(async (_, env) => {
      const result = await toolwire(["mcp", "snapshot", "--exec", NOTES_LINE, "--read-only"], env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(onlyEnvelope(result.stdout).data.tools.map((tool: Loose) => tool.name), [
        "list",
        "manifest",
        "show",
      ]);
    });
  });

  it("refuses a CLI that cannot start (5) or prints no manifest (4), and a missing --exec (2)", async () => {
    const missing = await toolwire(["mcp", "snapshot", "--exec", "definitely-not-a-program-7f3a"]);
    assert.equal(missing.code, 5, missing.stderr);
    assert.equal(onlyEnvelope(missing.stdout).error.code, "NOT_FOUND");
    const notCli = await toolwire(["mcp", "snapshot", "--exec", execLine([...LAB, "echo"])]);
    assert.equal(notCli.code, 4, notCli.stderr);
    assert.equal(onlyEnvelope(notCli.stdout).error.code, "PRECONDITION");
    const noExec = await toolwire(["mcp", "snapshot"]);
    assert.equal(noExec.code, 2);
    assert.match(onlyEnvelope(noExec.stdout).error.message, /--exec is required/);
  });
});

describe("toolwire mcp diff: a saved tool list", () => {
  it("a snapshot round trip has no drift: exit 0, every list empty", async () => {
    await inTemp(async (dir, env) => {
      const file = join(dir, "tools.json");
      assert.equal(
        (await toolwire(["mcp", "snapshot", "--exec", NOTES_LINE, "--output", file], env)).code,
        0,
      );
      const result = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      const { data } = onlyEnvelope(result.stdout);
      assert.deepEqual(data.drift, { added: [], removed: [], changed: [], missing_from_mcp: [] });
      assert.deepEqual(data.tools, { cli: 5, mcp: 5 });
      assert.deepEqual(data.mcp, { snapshot: file });
    });
  });

  it("an extra tool is removed, a missing one added and missing_from_mcp, changed inputSchema and annotations named: exit 80", async () => {
    await inTemp(async (dir, env) => {
      const tools = (await notesTools(env)).filter((tool) => tool.name !== "add");
      tools.push({
        name: "export_all",
        description: "Gone from the CLI",
        inputSchema: { type: "object", properties: {} },
      });
      tools.find((tool) => tool.name === "list").inputSchema.properties.limit.type = "string";
      tools.find((tool) => tool.name === "show").annotations.readOnlyHint = false;
      const file = join(dir, "tools.json");
      writeFileSync(file, JSON.stringify({ tools }));
      const result = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
      assert.equal(result.code, 80, result.stdout + result.stderr);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.ok, false);
      assert.equal(envelope.error.code, "DRIFT");
      assert.equal(envelope.error.message, "drift: 1 added, 1 removed, 2 changed");
      const { drift } = envelope.data;
      assert.deepEqual(drift.added, [{ tool: "add", command: "add" }]);
      assert.deepEqual(drift.missing_from_mcp, ["add"]);
      assert.deepEqual(drift.removed, [{ tool: "export_all", reason: "no command of the CLI maps to it" }]);
      assert.deepEqual(drift.changed.map((entry: Loose) => [entry.tool, entry.fields]), [["list", [
        "inputSchema",
      ]], ["show", ["annotations"]]]);
      assert.deepEqual(drift.changed[0].differences, [{
        pointer: "/inputSchema/properties/limit/type",
        cli: "integer",
        mcp: "string",
      }]);
      assert.deepEqual(drift.changed[1].differences, [{
        pointer: "/annotations/readOnlyHint",
        cli: true,
        mcp: false,
      }]);
    });
  });

  it("a command marked mcp: false (notes init) or a protocol command is never missing; listed, it is removed with the reason", async () => {
    await inTemp(async (dir, env) => {
      const tools = await notesTools(env);
      const file = join(dir, "tools.json");
      writeFileSync(file, JSON.stringify(tools));
      const clean = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
      assert.equal(clean.code, 0, clean.stdout);
      tools.push({ name: "init", inputSchema: { type: "object" } });
      writeFileSync(file, JSON.stringify(tools));
      const listed = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
      assert.equal(listed.code, 80);
      const { drift } = onlyEnvelope(listed.stdout).data;
      assert.deepEqual(drift.removed, [{
        tool: "init",
        command: "init",
        reason: "the command is marked mcp: false",
      }]);
      assert.deepEqual([drift.added, drift.missing_from_mcp], [[], []]);
    });
  });

  it("--format plain shows each drift on a line of its own, the failure on stderr", async () => {
    await inTemp(async (dir, env) => {
      const tools = (await notesTools(env)).filter((tool) => tool.name !== "remove");
      const file = join(dir, "tools.json");
      writeFileSync(file, JSON.stringify({ tools }));
      const result = await run([
        ...TOOLWIRE,
        "--format",
        "plain",
        "mcp",
        "diff",
        "--exec",
        NOTES_LINE,
        "--snapshot",
        file,
      ], { env });
      assert.equal(result.code, 80);
      assert.match(result.stdout, /^\+ remove {2}the CLI serves it \(remove\); the MCP list lacks it$/m);
      assert.match(result.stdout, /^drift: 1 added, 0 removed, 0 changed$/m);
      assert.match(result.stderr, /toolwire: error: drift: 1 added/);
    });
  });
});

describe("toolwire mcp diff: a live server", () => {
  it("notes mcp serve against notes: no drift, exit 0", async () => {
    await inTemp(async (_, env) => {
      const result = await toolwire([
        "mcp",
        "diff",
        "--exec",
        NOTES_LINE,
        "--server",
        execLine([...NOTES, "mcp", "serve"]),
      ], env);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      const { data } = onlyEnvelope(result.stdout);
      assert.deepEqual(data.tools, { cli: 5, mcp: 5 });
      assert.deepEqual(data.drift, { added: [], removed: [], changed: [], missing_from_mcp: [] });
    });
  });

  it("a list of several pages is read to its end: 151 tools, no drift", async () => {
    const result = await toolwire([
      "mcp",
      "diff",
      "--exec",
      execLine(MANY),
      "--server",
      execLine([...MANY, "mcp", "serve"]),
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(onlyEnvelope(result.stdout).data.tools, { cli: 151, mcp: 151 });
  });

  it("a read-only comparison with a full server: the unsafe tools are removed, exit 80", async () => {
    await inTemp(async (_, env) => {
      const server = execLine([...NOTES, "mcp", "serve"]);
      const result = await toolwire(
        ["mcp", "diff", "--exec", NOTES_LINE, "--read-only", "--server", server],
        env,
      );
      assert.equal(result.code, 80, result.stdout + result.stderr);
      assert.deepEqual(onlyEnvelope(result.stdout).data.drift.removed.map((entry: Loose) => entry.tool), [
        "add",
        "remove",
      ]);
    });
  });

  it("a server that is not an MCP server (4), one that cannot start (5)", async () => {
    await inTemp(async (_, env) => {
      const notMcp = await toolwire([
        "mcp",
        "diff",
        "--exec",
        NOTES_LINE,
        "--server",
        execLine([...NOTES, "list"]),
      ], env);
      assert.equal(notMcp.code, 4, notMcp.stdout);
      assert.match(onlyEnvelope(notMcp.stdout).error.message, /is not a JSON-RPC message/);
      const missing = await toolwire([
        "mcp",
        "diff",
        "--exec",
        NOTES_LINE,
        "--server",
        "definitely-not-a-program-7f3a",
      ], env);
      assert.equal(missing.code, 5, missing.stdout);
      assert.match(
        onlyEnvelope(missing.stdout).error.message,
        /cannot start 'definitely-not-a-program-7f3a'/,
      );
    });
  });

  it("a server that never answers meets --timeout (10) and its process group ends with toolwire", async () => {
    await inTemp(async (dir, env) => {
      const pidFile = join(dir, "server.pid");
      const server = execLine(["sh", "-c", `echo $$ > '${pidFile}'; exec sleep 60`]);
      const result = await toolwire([
        "--timeout",
        "5",
        "mcp",
        "diff",
        "--exec",
        NOTES_LINE,
        "--server",
        server,
      ], env);
      assert.equal(result.code, 10, result.stdout + result.stderr);
      assert.equal(onlyEnvelope(result.stdout).error.code, "TIMEOUT");
      const pid = Number(readFileSync(pidFile, "utf8"));
      assert.ok(await gone(pid), `the server (pid ${pid}) outlived toolwire`);
    });
  });
});

describe("toolwire mcp diff: bad input", () => {
  const diff = (dir: string, env: Record<string, string>, content: string) => {
    const file = join(dir, "tools.json");
    writeFileSync(file, content);
    return toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
  };

  it("a missing --snapshot file is NOT_FOUND (5) and starts nothing", async () => {
    await inTemp(async (dir, env) => {
      const result = await toolwire([
        "mcp",
        "diff",
        "--exec",
        "definitely-not-a-program-7f3a",
        "--snapshot",
        join(dir, "nope.json"),
      ], env);
      assert.equal(result.code, 5);
      assert.match(onlyEnvelope(result.stdout).error.message, /--snapshot .*nope\.json does not exist/);
    });
  });

  it("invalid JSON, a tools member that is not an array, a tool without a name, a directory: ARG_ERROR naming the problem", async () => {
    await inTemp(async (dir, env) => {
      const cases: Array<[string, RegExp]> = [
        ['{"tools": [', /is not JSON/],
        ['{"tools": {"add": {}}}', /tools must be an array, got an object/],
        ['[{"inputSchema": {}}]', /tools\[0\] must be an object with a non-empty string name/],
        ['{"result": 3}', /expected an array of tools/],
      ];
      for (const [content, message] of cases) {
        const result = await diff(dir, env, content);
        assert.equal(result.code, 2, content);
        const envelope = onlyEnvelope(result.stdout);
        assert.equal(envelope.error.code, "ARG_ERROR");
        assert.match(envelope.error.message, message);
      }
      const directory = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", dir], env);
      assert.equal(directory.code, 2);
      assert.match(onlyEnvelope(directory.stdout).error.message, /cannot be read \(EISDIR\)/);
    });
  });

  it("neither or both of --snapshot and --server, an unbalanced --server: ARG_ERROR", async () => {
    for (
      const [args, message] of [
        [[], /give --snapshot <file> or --server <command line>/],
        [["--snapshot", "a.json", "--server", "notes mcp serve"], /not both/],
        [["--server", "notes 'mcp serve"], /--server: unbalanced '/],
      ] as const
    ) {
      const result = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, ...args]);
      assert.equal(result.code, 2, result.stdout);
      assert.match(onlyEnvelope(result.stdout).error.message, message);
    }
  });

  it("mcp diff and mcp snapshot are not MCP tools of toolwire's own server, and declare their codes", async () => {
    const result = await toolwire(["manifest"]);
    const { commands } = onlyEnvelope(result.stdout).data;
    assert.equal(commands["mcp.diff"].mcp, false);
    assert.equal(commands["mcp.snapshot"].mcp, false);
    assert.equal(commands["mcp.diff"].exit_codes["80"].name, "DRIFT");
    assert.deepEqual(Object.keys(commands["mcp.diff"].exit_codes), [
      "0",
      "1",
      "2",
      "4",
      "5",
      "10",
      "80",
      "129",
      "130",
      "143",
    ]);
    assert.ok(commands["mcp.snapshot"].flags.output, "snapshot takes --output");
  });
});

describe("toolwire mcp diff: big and deep input", () => {
  it("a snapshot file that starts with a byte order mark is read like one without", async () => {
    await inTemp(async (dir, env) => {
      const file = join(dir, "tools.json");
      writeFileSync(file, `\uFEFF${JSON.stringify({ tools: await notesTools(env) })}`);
      const result = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.deepEqual(onlyEnvelope(result.stdout).data.tools, { cli: 5, mcp: 5 });
    });
  });

  it("a snapshot value nested 100,000 levels deep is drift (80) with the value cut short, in JSON and plain, no stack trace", async () => {
    await inTemp(async (dir, env) => {
      const tools = await notesTools(env);
      const show = tools.find((tool) => tool.name === "show");
      show.description = "DEEP";
      show.inputSchema.properties.id = "DEEP_ARRAY";
      const depth = 100_000;
      const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
      const deepArray = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const file = join(dir, "tools.json");
      writeFileSync(
        file,
        JSON.stringify({ tools }).replace('"DEEP"', deep).replace('"DEEP_ARRAY"', deepArray),
      );
      const result = await toolwire(["mcp", "diff", "--exec", NOTES_LINE, "--snapshot", file], env);
      assert.equal(result.code, 80, result.stdout.slice(0, 2_000) + result.stderr);
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
      const { drift } = onlyEnvelope(result.stdout).data;
      assert.deepEqual(drift.changed.map((entry: Loose) => [entry.tool, entry.fields]), [
        ["show", ["description", "inputSchema"]],
      ]);
      const differences = drift.changed[0].differences;
      assert.deepEqual(differences.map((difference: Loose) => difference.pointer), [
        "/description",
        "/inputSchema/properties/id",
      ]);
      assert.equal(typeof differences[0].cli, "string");
      // The deep side is shown down to a depth, then named for what it is.
      let shown = differences[0].mcp;
      let levels = 0;
      while (typeof shown === "object" && shown !== null) {
        shown = shown.a;
        levels++;
      }
      assert.ok(levels > 0 && levels < 100, `cut after ${levels} levels`);
      assert.match(shown, /nested deeper/);
      assert.ok(Array.isArray(differences[1].mcp), "the array stays an array, cut short too");
      const plain = await run([
        ...TOOLWIRE,
        "--format",
        "plain",
        "mcp",
        "diff",
        "--exec",
        NOTES_LINE,
        "--snapshot",
        file,
      ], { env, timeoutMs: 60_000 });
      assert.equal(plain.code, 80, plain.stderr);
      assert.match(plain.stdout, /^~ show {2}description, inputSchema$/m);
      assert.doesNotMatch(plain.stderr, /\n\s+at /, "no stack trace");
    });
  });

  it("a live server whose one tools/list page holds 300,000 tools (a 12 MB line): drift (80), no stack trace", async () => {
    await inTemp(async (dir, env) => {
      const server = join(dir, "big_server.py");
      writeFileSync(
        server,
        [
          "import json, sys",
          "for line in sys.stdin:",
          "    request = json.loads(line)",
          "    if 'id' not in request: continue",
          "    if request['method'] == 'initialize':",
          "        result = {'protocolVersion': '2025-11-25', 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'big', 'version': '1'}}",
          "    else:",
          "        result = {'tools': [{'name': 'x%x' % i, 'inputSchema': {'type': 'object'}} for i in range(300000)]}",
          "    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': result}, separators=(',', ':')) + '\\n')",
          "    sys.stdout.flush()",
        ].join("\n"),
      );
      const python = pyfix()[0]!;
      for (const format of ["json", "plain"]) {
        const result = await run([
          ...TOOLWIRE,
          "--format",
          format,
          "mcp",
          "diff",
          "--exec",
          NOTES_LINE,
          "--server",
          execLine([python, server]),
        ], { env, timeoutMs: 120_000 });
        assert.equal(result.code, 80, `${format}: ${result.stdout.slice(0, 500)}${result.stderr}`);
        assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
        if (format === "json") {
          const { data } = onlyEnvelope(result.stdout);
          assert.deepEqual(data.tools, { cli: 5, mcp: 300_000 });
          assert.equal(data.drift.removed.length, 300_000);
        } else assert.match(result.stdout, /^drift: 5 added, 300000 removed, 0 changed$/m);
      }
    });
  });
});

async function gone(pid: number): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
