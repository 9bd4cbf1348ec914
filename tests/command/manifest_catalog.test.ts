// The MCP catalog asks for its commands once, on first use: `mcp serve` answers `initialize` without building
// every entry and tool, and no request builds them again. A call before the tool list reads its own entry only.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool } from "../../mod.ts";
import { ManifestCatalog } from "../../lib/command/mcp/manifest_catalog.ts";
import type { CommandEntry } from "../../lib/command/contract/manifest.ts";
import { makeEnvelope } from "../../lib/command/contract/envelope.ts";
import { CancelScope } from "../../lib/protocol/cancel_scope.ts";
import type { ToolCallContext } from "../../lib/protocol/mcp/tool_catalog.ts";

function echoTool() {
  const tool = createTool({ name: "echo", version: "1.0.0", description: "Echo text" });
  tool.command("say", {
    description: "Say the text",
    danger_level: "safe",
    required_scopes: ["echo:read"],
    flags: { text: { type: "string", required: true, description: "What to say" } },
    exit_codes: { "0": { name: "SUCCESS", description: "Said", retryable: false, side_effects: "none" } },
    run: (ctx) => ({ text: ctx.flags.text }),
  });
  return tool;
}

/** A call's context with nothing to report to and nobody authenticated. */
function callContext(era: "modern" | "legacy"): ToolCallContext {
  const scope = new CancelScope();
  return {
    era,
    clientCapabilities: {},
    get signal() {
      return scope.signal;
    },
    cancellation: scope,
    caller: undefined,
    progress: () => {},
    log: () => {},
  };
}

describe("ManifestCatalog", () => {
  it("given its commands as a function, asks for them on first use and only once", () => {
    const tool = echoTool();
    let asked = 0;
    const commands = (): Readonly<Record<string, CommandEntry>> => {
      asked++;
      return tool.registry.servableEntries();
    };
    const catalog = new ManifestCatalog(commands, { readOnly: false }, () => {
      throw new Error("nothing is called here");
    });
    assert.equal(asked, 0, "not asked when made");
    assert.deepEqual(catalog.requiredScopes("say"), ["echo:read"]);
    const tools = catalog.tools();
    assert.ok(tools.some((tool) => tool.name === "say"));
    assert.equal(catalog.tools(), tools, "the same list each time");
    assert.equal(asked, 1);
  });

  it("a call before the tool list reads only its own entry; the list reads the rest, and keeps what the call made", async () => {
    const tool = echoTool();
    const entries = tool.registry.servableEntries();
    const read: string[] = [];
    const counted: Record<string, CommandEntry> = {};
    for (const path of Object.keys(entries)) {
      Object.defineProperty(counted, path, {
        enumerable: true,
        get: () => (read.push(path), entries[path]),
      });
    }
    let calls = 0;
    const catalog = new ManifestCatalog(() => counted, { readOnly: false }, (call) => {
      calls++;
      return makeEnvelope({ exitCode: 0, data: { text: call.flags.text }, startedAt: 0 });
    });
    const context = callContext("modern");
    const first = await catalog.call({ name: "say", arguments: { text: "hi" } }, context);
    assert.equal(first.kind, "json_result");
    assert.deepEqual(read, ["say"], "the manifest built-in's entry (and its schema) is not built for a call");
    assert.deepEqual(await catalog.call({ name: "nope", arguments: {} }, context), { kind: "unknown_tool" });
    assert.deepEqual(catalog.requiredScopes("say"), ["echo:read"]);
    assert.equal(catalog.requiredScopes("mcp_serve"), undefined, "mcp serve is never one of its tools");
    const tools = catalog.tools().map((tool) => tool.name);
    assert.deepEqual(
      tools,
      Object.keys(entries).filter((path) => path !== "mcp.serve").map((path) => path.replaceAll(".", "_"))
        .sort(),
    );
    assert.ok(read.includes("manifest"), "the list reads every entry");
    const before = read.length;
    await catalog.call({ name: "say", arguments: { text: "again" } }, context);
    assert.equal(read.length, before, "nothing is read again");
    assert.equal(calls, 2);
  });

  it("two paths with one tool name: a call runs the one the tool list shows", async () => {
    const entry = echoTool().registry.servableEntries()["say"]!;
    const ran: string[] = [];
    const catalog = new ManifestCatalog(
      () => ({ "a.b": entry, "a_b": entry }),
      { readOnly: false },
      (call) => {
        ran.push(call.path);
        return makeEnvelope({ exitCode: 0, data: null, startedAt: 0 });
      },
    );
    const context = callContext("legacy");
    await catalog.call({ name: "a_b", arguments: { text: "x" } }, context);
    assert.equal(catalog.tools().length, 1);
    await catalog.call({ name: "a_b", arguments: { text: "x" } }, context);
    assert.deepEqual(ran, ["a_b", "a_b"]);
  });

  it("given a record, makes its tools at once: a manifest they cannot be made from throws there", () => {
    const entry = echoTool().registry.servableEntries()["say"]!;
    const broken = { ...entry, flags: null } as unknown as CommandEntry;
    assert.throws(() => new ManifestCatalog({ say: broken }, { readOnly: false }, () => Promise.reject()));
    assert.doesNotThrow(() =>
      new ManifestCatalog({ say: entry }, { readOnly: false }, () => Promise.reject())
    );
  });

  it("an executor may answer with the envelope itself (a synchronous handler's) or with a promise of it", async () => {
    const commands = () => echoTool().registry.servableEntries();
    const context = callContext("modern");
    const said = (text: unknown, exitCode: number) =>
      makeEnvelope({ exitCode, data: { text }, error: null, warnings: [], startedAt: 0, meta: {} });
    const outcomes = [];
    for (const answer of [said, (text: unknown, exitCode: number) => Promise.resolve(said(text, exitCode))]) {
      const catalog = new ManifestCatalog(
        commands,
        { readOnly: false },
        (call) => answer(call.flags.text, call.flags.text === "no" ? 1 : 0),
      );
      for (const text of ["hi", "no"]) {
        const outcome = await catalog.call({ name: "say", arguments: { text } }, context);
        assert.equal(outcome.kind, "json_result");
        const { json, isError } = (outcome as { result: { json: string; isError: boolean } }).result;
        outcomes.push({ data: JSON.parse(json).data, isError });
      }
    }
    const expected = [{ data: { text: "hi" }, isError: false }, { data: { text: "no" }, isError: true }];
    assert.deepEqual(outcomes, [...expected, ...expected]);
  });
});
