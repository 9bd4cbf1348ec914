// What `notes mcp serve` advertises in tools/list, checked against what its calls return, in both eras: every
// tool's outputSchema types `data` (no subschema that constrains nothing, which MCP Inspector --strict and
// typed clients such as fastmcp flag), and the structuredContent of real calls — successes, replays, previews
// and failures alike — validates against it under draft 2020-12 and draft-07 (Ajv, strict). The destructive
// tool's description tells a client what an unconfirmed call does in either era.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { initialize, modern, WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, tempDir } from "../helpers/run.ts";

type Era = "legacy" | "modern";

/** A notes server in one era, with a NOTES_HOME of its own; legacy clients declare elicitation too. */
class Server {
  readonly session: WireSession;
  readonly era: Era;
  readonly #home = tempDir();
  #id = 0;

  constructor(era: Era) {
    this.era = era;
    this.session = new WireSession([...NOTES, "--format", "json", "mcp", "serve"], {
      env: { NOTES_HOME: this.#home.path },
    });
  }

  async open(): Promise<void> {
    if (this.era === "modern") return;
    const init = initialize(++this.#id);
    (init.params as Loose).capabilities = { elicitation: {} };
    await this.session.request(init);
    this.session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  async request(method: string, params: Record<string, unknown> = {}): Promise<Loose> {
    const id = ++this.#id;
    const message = this.era === "modern"
      ? modern(id, method, params, { "io.modelcontextprotocol/clientCapabilities": {} })
      : { jsonrpc: "2.0", id, method, params };
    const reply = await this.session.request(message);
    assert.equal(reply.error, undefined, `unexpected protocol error: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  async tools(): Promise<Loose[]> {
    return (await this.request("tools/list")).tools;
  }

  call(name: string, args: Record<string, unknown>): Promise<Loose> {
    return this.request("tools/call", { name, arguments: args });
  }

  async close(): Promise<void> {
    try {
      const result = await this.session.close();
      assert.equal(result.code, 0, result.stderr);
    } finally {
      this.#home.cleanup();
    }
  }
}

async function withServer(era: Era, body: (server: Server) => Promise<void>): Promise<void> {
  const server = new Server(era);
  try {
    await server.open();
    await body(server);
  } finally {
    await server.close();
  }
}

/** Both dialects MCP clients compile tool schemas with; strict, so an unknown keyword fails to compile. */
function compilers(): Array<[string, (schema: Record<string, unknown>) => ValidateFunction]> {
  const options = { strict: true, strictTypes: false, strictRequired: false, allErrors: true } as const;
  const draft2020 = new Ajv2020(options);
  const draft07 = new Ajv(options);
  return [["2020-12", (schema) => draft2020.compile(schema)], [
    "draft-07",
    (schema) => draft07.compile(schema),
  ]];
}

const SCHEMA_VALUED = [
  "additionalProperties",
  "items",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords that constrain a value: a schema with none of them accepts anything. */
const CONSTRAINING = [
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "$ref",
  "properties",
  "items",
  "required",
];

/** Where a bare `true`/`false` is the usual spelling, not a schema that forgot its type. */
const BOOLEAN_VALUED = [
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
];

/** Paths of the subschemas that constrain nothing (`{}` or bare `true`), as MCP Inspector --strict reports them. */
function untypedSubschemas(schema: unknown, path = ""): string[] {
  if (schema === true || schema === false) {
    return BOOLEAN_VALUED.some((keyword) => path.endsWith(`.${keyword}`)) ? [] : [path];
  }
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const found = CONSTRAINING.some((keyword) => Object.hasOwn(node, keyword)) ? [] : [path];
  for (const keyword of SCHEMA_VALUED) {
    if (node[keyword] !== undefined) found.push(...untypedSubschemas(node[keyword], `${path}.${keyword}`));
  }
  for (const keyword of SCHEMA_MAPS) {
    for (const [name, sub] of Object.entries((node[keyword] ?? {}) as Record<string, unknown>)) {
      found.push(...untypedSubschemas(sub, `${path}.${keyword}.${name}`));
    }
  }
  for (const keyword of SCHEMA_LISTS) {
    for (const [index, sub] of ((node[keyword] ?? []) as unknown[]).entries()) {
      found.push(...untypedSubschemas(sub, `${path}.${keyword}.${index}`));
    }
  }
  return found;
}

for (const era of ["legacy", "modern"] as const) {
  describe(`notes mcp serve, ${era} era: outputSchema`, () => {
    it("types data in every tool's outputSchema, with null allowed, and keeps the envelope's fields exact", async () => {
      await withServer(era, async (server) => {
        const tools = await server.tools();
        assert.deepEqual(tools.map((tool) => tool.name), ["add", "list", "manifest", "remove", "show"]);
        for (const tool of tools) {
          const schema = tool.outputSchema;
          assert.deepEqual(untypedSubschemas(schema), [], `${tool.name}: subschemas that constrain nothing`);
          assert.deepEqual(schema.required, ["ok", "data", "error", "warnings", "meta"]);
          assert.equal(schema.additionalProperties, false);
          assert.equal(schema.$schema, undefined);
          const data = schema.properties.data.anyOf;
          assert.deepEqual(data[data.length - 1], { type: "null" }, `${tool.name}: data may be null`);
        }
      });
    });

    it("returns structuredContent that validates against the advertised outputSchema, for every notes tool and outcome", async () => {
      await withServer(era, async (server) => {
        const tools = await server.tools();
        const validators = compilers().map(([dialect, compile]) =>
          [dialect, new Map(tools.map((tool) => [tool.name, compile(tool.outputSchema)]))] as const
        );
        const seen: Array<[string, string]> = [];
        const check = async (
          name: string,
          args: Record<string, unknown>,
          expected: string,
        ): Promise<Loose> => {
          const result = await server.call(name, args);
          const envelope = result.structuredContent;
          assert.equal(
            envelope.ok ? "ok" : envelope.error.code,
            expected,
            `${name} ${JSON.stringify(args)}: ${JSON.stringify(envelope)}`,
          );
          for (const [dialect, byTool] of validators) {
            const validate = byTool.get(name)!;
            assert.ok(
              validate(envelope),
              `${dialect}: ${name} ${JSON.stringify(args)} → ${JSON.stringify(envelope)}: ${
                JSON.stringify(validate.errors)
              }`,
            );
          }
          seen.push([name, expected]);
          return envelope;
        };

        const added = await check(
          "add",
          { title: "Buy milk", body: "two\nlines", tag: ["home", "shop"] },
          "ok",
        );
        assert.equal(added.data.effect, "created");
        await check("add", { title: "Call mum", idempotency_key: "k-1" }, "ok");
        assert.equal(
          (await check("add", { title: "Call mum", idempotency_key: "k-1" }, "ok")).data.effect,
          "noop",
        );
        await check("add", { title: "Other", idempotency_key: "k-1" }, "IDEMPOTENCY_CONFLICT");
        await check("add", {}, "ARG_ERROR");
        await check("list", {}, "ok");
        await check("list", { tag: "home", limit: 1 }, "ok");
        await check("list", { limit: -1 }, "ARG_ERROR");
        await check("show", { id: added.data.note.id }, "ok");
        await check("show", { id: 999 }, "NOT_FOUND");
        await check("show", { id: "one" }, "ARG_ERROR");
        await check("remove", { id: 1, dry_run: true }, "ok");
        await check("remove", { id: 1 }, "CONFIRMATION_REQUIRED");
        await check("remove", { id: 999, confirm_destructive: true }, "NOT_FOUND");
        await check("remove", { id: 1, confirm_destructive: true, idempotency_key: "r-1" }, "ok");
        assert.equal(
          (await check("remove", { id: 1, confirm_destructive: true, idempotency_key: "r-1" }, "ok")).data
            .effect,
          "noop",
        );
        const manifest = await check("manifest", {}, "ok");
        assert.equal((await check("manifest", { etag: manifest.data.etag }, "ok")).data, null);
        await check("manifest", { unknown: 1 }, "ARG_ERROR");
        assert.deepEqual(
          new Set(seen.map(([name]) => name)),
          new Set(tools.map((tool: Loose) => tool.name)),
          "every tool was called",
        );
      });
    });

    it("rejects a result of the wrong shape: the schemas say something", async () => {
      await withServer(era, async (server) => {
        const tools = new Map((await server.tools()).map((tool: Loose) => [tool.name, tool.outputSchema]));
        const envelope = (data: unknown) => ({
          ok: true,
          data,
          error: null,
          warnings: [],
          meta: { exit_code: 0, duration_ms: 1 },
        });
        for (const [, compile] of compilers()) {
          assert.equal(
            compile(tools.get("show"))(envelope({ id: "7", title: "x" })),
            false,
            "show: id must be an integer, body required",
          );
          assert.equal(compile(tools.get("list"))(envelope({ id: 1 })), false, "list: an array");
          assert.equal(
            compile(tools.get("add"))(envelope({ effect: "deleted", note: {} })),
            false,
            "add: effect is created or noop",
          );
          assert.equal(
            compile(tools.get("remove"))(envelope({ effect: "would_delete" })),
            false,
            "remove: a preview says what it would affect",
          );
        }
      });
    });
  });

  describe(`notes mcp serve, ${era} era: the destructive tool's description`, () => {
    it("says an unconfirmed call only previews, how to confirm, and who is asked instead", async () => {
      await withServer(era, async (server) => {
        const tools = new Map(
          (await server.tools()).map((tool: Loose) => [tool.name, tool.description as string]),
        );
        const remove = tools.get("remove")!;
        assert.match(remove, /^Delete a note for good\. Destructive: /);
        assert.match(remove, /CONFIRMATION_REQUIRED/);
        assert.match(remove, /confirm_destructive: true/);
        assert.match(remove, /2026-07-28 protocol that support elicitation are asked/);
        for (const [name, description] of tools) {
          if (name !== "remove") assert.doesNotMatch(description, /Destructive/, name);
        }
      });
    });

    it(
      era === "legacy"
        ? "never asks a legacy client that declared elicitation: it gets the preview"
        : "previews for a modern client without elicitation",
      async () => {
        await withServer(era, async (server) => {
          await server.call("add", { title: "kept" });
          const refused = await server.call("remove", { id: 1 });
          assert.equal(refused.isError, true);
          assert.equal(refused.structuredContent.error.code, "CONFIRMATION_REQUIRED");
          assert.equal(refused.structuredContent.error.preview.effect, "would_delete");
          assert.equal(
            (await server.call("list", {})).structuredContent.data.length,
            1,
            "nothing was deleted",
          );
          assert.equal(
            (await server.call("remove", { id: 1, confirm_destructive: true })).structuredContent.data.effect,
            "deleted",
          );
        });
      },
    );
  });
}
