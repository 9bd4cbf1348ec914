// The MCP catalog asks for its commands once, on first use: `mcp serve` answers `initialize` without building
// every entry and tool, and no request builds them again.
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
    const scope = new CancelScope();
    const context: ToolCallContext = {
      era: "modern",
      clientCapabilities: {},
      get signal() {
        return scope.signal;
      },
      cancellation: scope,
      caller: undefined,
      progress: () => {},
      log: () => {},
    };
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
