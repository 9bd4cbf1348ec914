// A variadic last positional (`toolwire check -- <cli…>`): registration rules, argv and JSON values, the
// manifest, help, and the MCP input schema.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CommandDefinition, PositionalSpec } from "../../lib/command/contract/command_definition.ts";
import { commandHelp } from "../../lib/command/cli/help_text.ts";
import { completePositionals, type InputIssue } from "../../lib/command/input/input_values.ts";
import { manifestEntry } from "../../lib/command/contract/manifest.ts";
import { mcpTool } from "../../lib/command/mcp/tool_mapping.ts";
import { validateDefinition } from "../../lib/command/contract/registration_rules.ts";

function define(positionals: PositionalSpec[]): CommandDefinition {
  return {
    description: "Gather",
    danger_level: "safe",
    required_scopes: [],
    positionals,
    exit_codes: { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "none" } },
    run: () => null,
  };
}

const IDS: PositionalSpec[] = [{ name: "target", description: "Where" }, {
  name: "ids",
  type: "integer",
  variadic: true,
  description: "Which",
}];

describe("variadic positionals", () => {
  it("registration accepts it last only, as a boolean", () => {
    validateDefinition("gather", define(IDS));
    assert.throws(
      () => validateDefinition("gather", define([...IDS].reverse())),
      /positionals.0.variadic: only the last positional may be variadic/,
    );
    assert.throws(
      () =>
        validateDefinition(
          "gather",
          define([{ name: "ids", description: "x", variadic: "yes" as unknown as boolean }]),
        ),
      /positionals.0.variadic: must be a boolean/,
    );
  });

  it("from argv it takes every remaining word, typed; required means at least one", () => {
    const issues: InputIssue[] = [];
    assert.deepEqual({ ...completePositionals(IDS, ["here", "1", "2", "3"], issues, "text") }, {
      target: "here",
      ids: [1, 2, 3],
    });
    assert.equal(issues.length, 0);
    completePositionals(IDS, ["here", "1", "x"], issues, "text");
    assert.deepEqual(issues.map((issue) => issue.message), ["<ids> expects an integer, got 'x'"]);
    const none: InputIssue[] = [];
    completePositionals(IDS, ["here"], none, "text");
    assert.deepEqual(none.map((issue) => issue.message), [
      "missing argument <ids>: at least one value is required",
    ]);
    const optional: InputIssue[] = [];
    assert.deepEqual({ ...completePositionals([{ ...IDS[1]!, required: false }], [], optional, "text") }, {
      ids: [],
    });
    assert.equal(optional.length, 0);
  });

  it("from JSON (MCP) it is one array, each item type-checked", () => {
    const issues: InputIssue[] = [];
    const label = (name: string) => name;
    assert.deepEqual({ ...completePositionals(IDS, ["here", [4, 5]], issues, "json", label) }, {
      target: "here",
      ids: [4, 5],
    });
    completePositionals(IDS, ["here", "4"], issues, "json", label);
    completePositionals(IDS, ["here", [4, "5"]], issues, "json", label);
    assert.deepEqual(issues.map((issue) => issue.message), [
      "ids expects an array of integer values, got '4'",
      "ids[1] expects an integer, got '5'",
    ]);
  });

  it("the manifest shows it, help writes <name...>, and MCP offers an array of its type", () => {
    const entry = manifestEntry(define(IDS));
    assert.deepEqual(entry.positionals, [
      { name: "target", type: "string", required: true, description: "Where" },
      { name: "ids", type: "integer", required: true, description: "Which", variadic: true },
    ]);
    assert.match(
      commandHelp({ name: "t", version: "1", description: "" }, "gather", entry),
      /Usage: t gather <target> <ids\.\.\.>/,
    );
    assert.deepEqual(mcpTool("gather", entry).inputSchema.properties, {
      target: { type: "string", description: "Where" },
      ids: { type: "array", items: { type: "integer" }, minItems: 1, description: "Which" },
    });
  });
});
