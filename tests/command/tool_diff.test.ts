// diffTools and readToolList, in-process: the comparison `toolwire mcp diff` reports (REQ-O-035) between the
// tools a manifest maps to and an MCP tool list. The binary itself is tested in tests/toolwire/mcp_diff.test.ts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool, type Manifest } from "../../mod.ts";
import { diffTools, hasDrift, type ListedTool, readToolList } from "../../lib/bridge/tool_diff.ts";
import { mcpTool, servedCommands } from "../../lib/command/mcp/tool_mapping.ts";

const ok = { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "none" } } as const;

/** A manifest with a command of each kind: served (safe, mutating), mcp: false, protocol, passthrough. */
function manifest(): Promise<Manifest> {
  const tool = createTool({ name: "widgets", version: "1.0.0", description: "Widgets" });
  tool.command("list", {
    description: "List widgets",
    danger_level: "safe",
    required_scopes: [],
    flags: {
      limit: { type: "integer", description: "At most", default: 5 },
      color: { type: "string", description: "Only this color", required: true },
    },
    positionals: [{ name: "shelf", description: "Which shelf", required: true }],
    exit_codes: ok,
    run: () => [],
  });
  tool.command("add", {
    description: "Add a widget",
    danger_level: "mutating",
    required_scopes: [],
    exit_codes: ok,
    run: () => null,
  });
  tool.command("init", {
    description: "Set up",
    danger_level: "mutating",
    required_scopes: [],
    mcp: false,
    exit_codes: ok,
    run: () => null,
  });
  tool.command("lsp", {
    description: "Serve a protocol",
    danger_level: "safe",
    required_scopes: [],
    stdout: "protocol",
    protocol: "lsp",
    exit_codes: ok,
    serve: () => () => Promise.resolve({ exitCode: 0 }),
  } as never);
  tool.command("git", {
    description: "Run git",
    danger_level: "mutating",
    required_scopes: [],
    arguments: "passthrough",
    exit_codes: ok,
    run: () => null,
  } as never);
  return tool.manifest();
}

/** The tools the manifest maps to, as plain JSON: what a snapshot file holds. */
async function served(readOnly = false): Promise<ListedTool[]> {
  const { commands } = await manifest();
  return JSON.parse(
    JSON.stringify(servedCommands(commands, { readOnly }).map(([path, entry]) => mcpTool(path, entry))),
  );
}

async function diff(listed: ListedTool[], readOnly = false) {
  return diffTools((await manifest()).commands, { readOnly }, listed);
}

const byName = (tools: ListedTool[], name: string) => tools.find((tool) => tool.name === name)!;

describe("diffTools", () => {
  it("the mapped list itself: no drift", async () => {
    const tools = await served();
    assert.deepEqual(tools.map((tool) => tool.name), ["add", "list", "manifest"]);
    const drift = await diff(tools);
    assert.deepEqual(drift, { added: [], removed: [], changed: [], missing_from_mcp: [] });
    assert.equal(hasDrift(drift), false);
  });

  it("a tool the list lacks is added and missing_from_mcp; a tool only the list has is removed", async () => {
    const tools = (await served()).filter((tool) => tool.name !== "add");
    tools.push({ name: "legacy_export", inputSchema: { type: "object" } });
    const drift = await diff(tools);
    assert.deepEqual(drift.added, [{ tool: "add", command: "add" }]);
    assert.deepEqual(drift.missing_from_mcp, ["add"]);
    assert.deepEqual(drift.removed, [{ tool: "legacy_export", reason: "no command of the CLI maps to it" }]);
    assert.deepEqual(drift.changed, []);
  });

  it("mcp: false, protocol, passthrough and mcp serve commands are never added, and removed with the reason when listed", async () => {
    const drift = await diff(await served());
    assert.deepEqual(drift.added, []);
    const listed = [
      ...await served(),
      ...["init", "lsp", "git", "mcp_serve"].map((name) => ({ name, inputSchema: { type: "object" } })),
    ];
    assert.deepEqual((await diff(listed)).removed, [
      { tool: "git", command: "git", reason: "the command passes its arguments through" },
      { tool: "init", command: "init", reason: "the command is marked mcp: false" },
      { tool: "lsp", command: "lsp", reason: "the command is a protocol server" },
      {
        tool: "mcp_serve",
        command: "mcp.serve",
        reason: "mcp serve is the server itself, never one of its tools",
      },
    ]);
  });

  it("read-only: the full list has tools the CLI would not serve read-only", async () => {
    const drift = await diff(await served(false), true);
    assert.deepEqual(drift.removed, [{
      tool: "add",
      command: "add",
      reason: "the command is mutating and the list is read-only",
    }]);
    assert.equal(hasDrift(await diff(await served(true), true)), false);
  });

  it("a changed argument type, an argument only one side has: inputSchema, at the pointers", async () => {
    const tools = await served();
    const list = byName(tools, "list");
    const properties =
      (list.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    properties.limit!.type = "string";
    delete properties.color;
    properties.sort = { type: "string", description: "Order" };
    const [changed] = (await diff(tools)).changed;
    assert.equal(changed!.tool, "list");
    assert.equal(changed!.command, "list");
    assert.deepEqual(changed!.fields, ["inputSchema"]);
    assert.deepEqual(changed!.differences, [
      { pointer: "/inputSchema/properties/color", cli: { description: "Only this color", type: "string" } },
      { pointer: "/inputSchema/properties/limit/type", cli: "integer", mcp: "string" },
      { pointer: "/inputSchema/properties/sort", mcp: { type: "string", description: "Order" } },
    ]);
  });

  it("changed annotations and description are reported by field", async () => {
    const tools = await served();
    const add = byName(tools, "add");
    (add.annotations as Record<string, unknown>).destructiveHint = true;
    add.description = "Add a widget, or two";
    const [changed] = (await diff(tools)).changed;
    assert.deepEqual(changed!.fields, ["annotations", "description"]);
    assert.deepEqual(changed!.differences[0], {
      pointer: "/annotations/destructiveHint",
      cli: false,
      mcp: true,
    });
  });

  it("member order, the order of required, _meta, and hints left at MCP's defaults are not drift", async () => {
    const tools = await served();
    const list = byName(tools, "list");
    const schema = list.inputSchema as Record<string, unknown>;
    const reordered: Record<string, unknown> = {};
    for (const key of Object.keys(schema).reverse()) reordered[key] = schema[key];
    reordered.required = [...(schema.required as string[])].reverse();
    list.inputSchema = reordered;
    list._meta = { "example.com/x": 1 };
    // add (mutating) maps to readOnlyHint false and idempotentHint false: MCP's defaults, so they may be left out.
    const add = byName(tools, "add");
    const annotations = add.annotations as Record<string, unknown>;
    add.annotations = { title: annotations.title, destructiveHint: false, openWorldHint: false };
    assert.deepEqual((await diff(tools)).changed, []);
    // destructiveHint defaults to true: leaving out the false the CLI maps to is drift.
    add.annotations = { title: annotations.title, openWorldHint: false };
    assert.deepEqual((await diff(tools)).changed[0]!.differences, [{
      pointer: "/annotations/destructiveHint",
      cli: false,
      mcp: true,
    }]);
  });

  it("escapes pointers and keeps a __proto__ member a member", async () => {
    const tools: ListedTool[] = JSON.parse(
      JSON.stringify(await served()).replace(
        '"name":"add",',
        '"name":"add","__proto__":{"polluted":1},"a/b~c":2,',
      ),
    );
    const [changed] = (await diff(tools)).changed;
    assert.deepEqual(changed!.differences, [
      { pointer: "/__proto__", mcp: { polluted: 1 } },
      { pointer: "/a~1b~0c", mcp: 2 },
    ]);
    assert.deepEqual(changed!.fields, ["__proto__", "a/b~c"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("readToolList", () => {
  const tools = [{ name: "add", inputSchema: { type: "object" } }];

  it("reads an array, a tools/list result, a JSON-RPC response and a snapshot envelope", () => {
    for (
      const value of [tools, { tools }, { jsonrpc: "2.0", id: 2, result: { tools } }, {
        ok: true,
        data: { tools },
      }]
    ) {
      assert.deepEqual(readToolList(value), { tools });
    }
  });

  it("refuses what is not a tool list, saying what is wrong", () => {
    const problem = (value: unknown) => (readToolList(value) as { problem: string }).problem;
    assert.match(problem(3), /expected an array of tools, or an object with a tools array/);
    assert.match(problem({ tool: [] }), /expected an array of tools/);
    assert.equal(problem({ tools: 3 }), "tools must be an array, got a number");
    assert.equal(problem({ tools: { add: {} } }), "tools must be an array, got an object");
    assert.equal(problem([{ inputSchema: {} }]), "tools[0] must be an object with a non-empty string name");
    assert.equal(problem(["add"]), "tools[0] must be an object with a non-empty string name");
    assert.equal(problem([...tools, ...tools]), "tools[1]: the tool 'add' is listed twice");
    assert.equal(problem([{ name: "add" }]), "tools[0] ('add'): inputSchema must be an object");
    assert.match(problem({ tools, nextCursor: "abc" }), /one page of a longer one/);
  });
});
