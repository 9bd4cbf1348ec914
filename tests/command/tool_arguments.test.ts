// MCP tool arguments against a command's manifest entry (ToolArgumentParser): names, types, framework
// arguments, and names that collide with Object.prototype members.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CommandDefinition } from "../../lib/command/contract/contract.ts";
import { manifestEntry } from "../../lib/command/contract/manifest.ts";
import { argumentName, mcpTool, ToolArgumentParser } from "../../lib/command/mcp/tool_mapping.ts";
import { validateDefinition } from "../../lib/command/contract/registration_rules.ts";

const definition: CommandDefinition = {
  description: "Build",
  danger_level: "mutating",
  required_scopes: [],
  flags: {
    "constructor": { type: "string" as const, description: "A flag named like an Object.prototype member" },
    "max-depth": { type: "integer", description: "How deep" },
  },
  positionals: [{ name: "target", description: "What" }],
  exit_codes: { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "complete" } },
  run: () => null,
};

describe("ToolArgumentParser", () => {
  validateDefinition("build", definition);
  const entry = manifestEntry(definition);
  const parser = new ToolArgumentParser(entry);

  it("sorts flags (snake_case), positionals and framework arguments apart", () => {
    const parsed = parser.parse({ target: "app", max_depth: 3, idempotency_key: "k-1" });
    assert.deepEqual([...parsed.flags], [["max-depth", 3]]);
    assert.deepEqual(parsed.positionals, ["app"]);
    assert.equal(parsed.idempotencyKey, "k-1");
    assert.deepEqual(parsed.issues, []);
  });

  it("collects every unknown or mistyped argument", () => {
    const parsed = parser.parse(
      { "max-depth": 3, max_depth: "deep", __proto__: { polluted: true } } as Record<string, unknown>,
    );
    assert.deepEqual(parsed.issues.map((issue) => issue.field).sort(), ["max-depth", "max_depth"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("a flag named constructor is an ordinary argument, not Object's constructor", () => {
    assert.equal(argumentName("constructor"), "constructor");
    assert.ok(Object.hasOwn(mcpTool("build", entry).inputSchema.properties as object, "constructor"));
    assert.deepEqual([...parser.parse({ constructor: "x" }).flags], [["constructor", "x"]]);
    assert.match(parser.parse({ toString: "x" }).issues[0]!.message, /unknown argument/);
  });
});
