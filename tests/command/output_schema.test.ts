// A command's output_schema is published in the manifest and embedded in every MCP tool's outputSchema, so
// registration refuses one that is not a usable JSON Schema — naming the command and the exact field — and the
// embedded copy still compiles and resolves its references. In-process.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { RegistrationError } from "../../mod.ts";
import { CommandRegistry } from "../../lib/command/contract/registry.ts";
import { manifestEntryIssues } from "../../lib/command/contract/registration_rules.ts";
import { mcpTool } from "../../lib/command/mcp/tool_mapping.ts";
import {
  asDefinition,
  type Declaration,
  ordinaryDeclaration,
  protocolDeclaration,
} from "../helpers/declarations.ts";

const PATH = "widgets.list";

function refusal(outputSchema: unknown): RegistrationError {
  try {
    new CommandRegistry().register(
      PATH,
      asDefinition({ ...ordinaryDeclaration(), output_schema: outputSchema }),
    );
  } catch (error) {
    assert.ok(error instanceof RegistrationError, String(error));
    return error;
  }
  assert.fail(`accepted ${String(JSON.stringify(outputSchema))}`);
}

function assertRefused(outputSchema: unknown, field: string, problem: RegExp): void {
  const error = refusal(outputSchema);
  assert.equal(error.command, PATH);
  assert.equal(error.field, field, error.message);
  assert.ok(error.message.startsWith(`command '${PATH}': ${field}: `), error.message);
  assert.match(error.message, problem);
}

describe("registration: output_schema", () => {
  it("refuses a schema that is not an object", () => {
    assertRefused("object", "output_schema", /must be a JSON Schema object/);
    assertRefused([{ type: "object" }], "output_schema", /must be a JSON Schema object/);
  });

  it("refuses an unknown type, naming the nested field", () => {
    assertRefused({ type: "objekt" }, "output_schema.type", /"objekt" is not a JSON Schema type/);
    assertRefused(
      { type: "object", properties: { id: { type: "int" } } },
      "output_schema.properties.id.type",
      /"int"/,
    );
    assertRefused({ type: [] }, "output_schema.type", /at least one type/);
    assertRefused({ type: ["string", "string"] }, "output_schema.type", /twice/);
  });

  it("refuses keywords that must hold schemas but do not", () => {
    assertRefused({ type: "object", properties: [] }, "output_schema.properties", /map names to schemas/);
    assertRefused(
      { type: "object", properties: { id: "integer" } },
      "output_schema.properties.id",
      /must be a schema/,
    );
    assertRefused({ type: "array", items: null }, "output_schema.items", /must be a schema/);
    assertRefused({ anyOf: [] }, "output_schema.anyOf", /non-empty list of schemas/);
    assertRefused({ anyOf: [{ type: "object" }, 3] }, "output_schema.anyOf.1", /must be a schema/);
  });

  it("refuses a malformed required or enum", () => {
    assertRefused({ type: "object", required: "id" }, "output_schema.required", /list of property names/);
    assertRefused({ type: "object", required: ["id", "id"] }, "output_schema.required", /twice/);
    assertRefused({ enum: "a" }, "output_schema.enum", /list of the allowed values/);
  });

  it("refuses references a client cannot resolve, and $id", () => {
    assertRefused({ $ref: "https://example.com/note.json" }, "output_schema.$ref", /not local/);
    assertRefused(
      { $ref: "#/$defs/missing", $defs: { note: { type: "object" } } },
      "output_schema.$ref",
      /does not resolve/,
    );
    assertRefused({ $ref: "#note" }, "output_schema.$ref", /not a JSON pointer/);
    assertRefused({ $id: "note", type: "object" }, "output_schema.$id", /not supported/);
    assertRefused(
      { type: "object", properties: { a: { $schema: "x", type: "string" } } },
      "output_schema.properties.a.$schema",
      /only at the top/,
    );
  });

  it("refuses values that are not JSON: the manifest could not be printed", () => {
    assertRefused({ type: "integer", maximum: 10n }, "output_schema.maximum", /JSON data, not a bigint/);
    assertRefused({ type: "string", default: () => "x" }, "output_schema.default", /not a function/);
    assertRefused({ type: "number", minimum: Number.NaN }, "output_schema.minimum", /finite number/);
    const cycle: Record<string, unknown> = { type: "object" };
    cycle.properties = { self: cycle };
    assert.match(refusal(cycle).message, /nests deeper than 64 levels/);
  });

  it("still refuses any output_schema on a protocol command, in plain words", () => {
    const error = (() => {
      try {
        new CommandRegistry().register(
          "serve",
          asDefinition({ ...protocolDeclaration(), output_schema: { type: "object" } }),
        );
      } catch (error) {
        return error as RegistrationError;
      }
      assert.fail("accepted");
    })();
    assert.equal(error.field, "output_schema");
    assert.doesNotMatch(error.message, /REQ-/, "the message speaks plain words, not requirement ids");
  });

  it("holds a manifest entry from another program to the same rules", () => {
    const entry: Declaration = { ...ordinaryDeclaration(), output_schema: { $ref: "other.json" } };
    delete entry.run;
    const issues = manifestEntryIssues(PATH, JSON.parse(JSON.stringify(entry)));
    assert.ok(
      issues.some((issue) => issue.field === "output_schema.$ref"),
      issues.map((issue) => issue.message).join("; "),
    );
  });

  it("accepts a full schema with local references, $schema at the top and keys that look like keywords", () => {
    new CommandRegistry().register(
      PATH,
      asDefinition({ ...ordinaryDeclaration(), output_schema: NOTE_LIST }),
    );
  });
});

const NOTE_LIST = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "array",
  items: { $ref: "#/$defs/note" },
  $defs: {
    note: {
      type: "object",
      properties: {
        id: { type: "integer" },
        $ref: { type: "string", description: "a property named like a keyword" },
        children: { type: "array", items: { $ref: "#/$defs/note" } },
      },
      required: ["id"],
    },
  },
};

describe("output_schema in the MCP outputSchema", () => {
  it("embeds the declared schema under data with null allowed, rebasing local references so they resolve", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition({ ...ordinaryDeclaration(), output_schema: NOTE_LIST }));
    const tool = mcpTool(PATH, registry.entryOf(PATH)!);
    const schema = tool.outputSchema as Record<string, never>;
    assert.equal(JSON.stringify(schema).includes("$schema"), false, "no $schema inside the envelope schema");
    const validate = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false }).compile(schema);
    const envelope = (ok: boolean, data: unknown) => ({
      ok,
      data,
      error: ok ? null : { code: "NOT_FOUND", message: "no shelf", retryable: false },
      warnings: [],
      meta: { exit_code: ok ? 0 : 5, duration_ms: 1 },
    });
    assert.ok(
      validate(envelope(true, [{ id: 1, $ref: "x", children: [{ id: 2 }] }])),
      JSON.stringify(validate.errors),
    );
    assert.ok(validate(envelope(false, null)), JSON.stringify(validate.errors));
    assert.equal(
      validate(envelope(true, [{ id: 1, children: [{ id: "2" }] }])),
      false,
      "the nested reference is followed",
    );
    assert.equal(validate(envelope(true, { id: 1 })), false);
    // The manifest keeps the schema as declared.
    assert.deepEqual(registry.entryOf(PATH)!.output_schema, NOTE_LIST);
  });

  it("types data as any JSON value when the declared schema reads otherwise under draft-07 (later keywords, a $ref with siblings)", () => {
    const anyJson = {
      anyOf: ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type })),
    };
    for (
      const schema of [
        { type: "object", dependentRequired: { a: ["b"] } },
        { type: "array", prefixItems: [{ type: "string" }] },
        {
          type: "object",
          properties: { a: { $ref: "#/$defs/a", properties: { b: { type: "string" } } } },
          $defs: { a: { type: "object" } },
        },
        { type: "object", additionalProperties: { type: "object", unevaluatedProperties: false } },
      ]
    ) {
      const registry = new CommandRegistry();
      registry.register(PATH, asDefinition({ ...ordinaryDeclaration(), output_schema: schema }));
      const entry = registry.entryOf(PATH)!;
      assert.deepEqual(entry.output_schema, schema, "the manifest keeps it as declared");
      const data =
        (mcpTool(PATH, entry).outputSchema as Record<string, Record<string, unknown>>).properties!.data;
      assert.deepEqual(data, anyJson, JSON.stringify(schema));
    }
  });

  it("types data as any JSON value when the command declares no schema", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinaryDeclaration()));
    const data =
      (mcpTool(PATH, registry.entryOf(PATH)!).outputSchema as Record<string, Record<string, unknown>>)
        .properties!.data;
    assert.deepEqual(data, {
      anyOf: ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type })),
    });
  });
});
