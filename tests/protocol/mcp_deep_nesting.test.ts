// Arguments nested 100,000 levels deep, in both eras, against a tool's own `mcp serve` and against
// `toolwire mcp serve --exec`: each is an isError ARG_ERROR tool result like any other argument of the wrong
// type, nothing is written to stderr (no stack trace), and the server keeps serving. JSON.parse copes with
// such nesting on both runtimes; what overflowed on Node was a recursive walk afterwards (rendering the bad
// value into the error message).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { quote } from "../../lib/command/input/input_values.ts";
import { CANONICAL_JSON_MAX_DEPTH, canonicalJson } from "../../lib/json.ts";
import { initialize, WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, programArgv, tempDir } from "../helpers/run.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

const DEPTH = 100_000;
const LAB = programArgv("tests/fixtures/lab.ts");

/** `[[[…]]]` and `{"a":{"a":…1}}`, as raw JSON text: building them as objects would overflow JSON.stringify. */
const ARRAYS = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
const OBJECTS = `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`;

const META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "deep-test", version: "1.0.0" },
});

type Era = "legacy" | "modern";

/** A raw tools/call line whose `arguments` is the given JSON text. */
function callLine(era: Era, id: number, name: string, argumentsJson: string): string {
  const meta = era === "modern" ? `,"_meta":${META}` : "";
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}${meta}}}`;
}

async function open(argv: readonly string[], era: Era, env: Record<string, string>): Promise<WireSession> {
  const session = new WireSession(argv, { env });
  if (era === "legacy") {
    const reply = await session.request(initialize(0));
    assert.equal(reply.result.protocolVersion, "2025-11-25");
    session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return session;
}

async function call(
  session: WireSession,
  era: Era,
  id: number,
  name: string,
  argumentsJson: string,
): Promise<Loose> {
  session.send(callLine(era, id, name, argumentsJson));
  const reply = await session.next(30_000);
  assert.equal(reply.id, id);
  assert.equal(reply.error, undefined, `a tool result, not a protocol error: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

function assertArgError(result: Loose, pattern: RegExp): void {
  assert.equal(result.isError, true, JSON.stringify(result).slice(0, 500));
  assert.equal(result.structuredContent.error.code, "ARG_ERROR");
  assert.match(result.structuredContent.error.message, pattern);
  assert.ok(
    result.structuredContent.error.message.length < 300,
    "the error shows the start of the value only",
  );
}

function assertNoStackTrace(stderr: string): void {
  assert.doesNotMatch(stderr, /RangeError|Maximum call stack|^\s+at /m, stderr.slice(0, 2000));
}

const servers: Array<[label: string, argv: string[]]> = [
  ["notes mcp serve", [...NOTES, "--format", "json", "mcp", "serve"]],
  ["toolwire mcp serve --exec notes", [
    ...TOOLWIRE,
    "--format",
    "json",
    "mcp",
    "serve",
    "--exec",
    execLine(NOTES),
  ]],
];

describe("tools/call arguments nested 100,000 levels deep", () => {
  for (const [label, argv] of servers) {
    for (const era of ["legacy", "modern"] as const) {
      it(`${label}, ${era} era: a clean ARG_ERROR result, nothing on stderr, and the server keeps serving`, async () => {
        const home = tempDir();
        try {
          const session = await open(argv, era, { NOTES_HOME: home.path });
          assertArgError(
            await call(session, era, 1, "add", `{"title":${ARRAYS}}`),
            /^title expects a string, got \[\[\[/,
          );
          assertArgError(
            await call(session, era, 2, "add", `{"title":${OBJECTS}}`),
            /^title expects a string, got \{"a":\{"a":/,
          );
          assertArgError(
            await call(session, era, 3, "add", `{"title":"t","tag":["x",${ARRAYS}]}`),
            /^tag expects an array of strings/,
          );
          assertArgError(await call(session, era, 4, "show", `{"id":${OBJECTS}}`), /^id expects an integer/);
          // A destructive tool checks its arguments before it asks for (or checks) a confirmation.
          assertArgError(await call(session, era, 5, "remove", `{"id":${ARRAYS}}`), /^id expects an integer/);
          const added = await call(session, era, 6, "add", `{"title":"still serving"}`);
          assert.equal(added.isError, false, JSON.stringify(added));
          const listed = await call(session, era, 7, "list", "{}");
          assert.deepEqual(listed.structuredContent.data.map((note: Loose) => note.title), ["still serving"]);
          const result = await session.close();
          assert.equal(result.code, 0, result.stderr);
          assertNoStackTrace(result.stderr);
          assert.equal(result.stderr, "");
        } finally {
          home.cleanup();
        }
      });
    }
  }

  it("a handler's result nested too deep to serialise is a GENERAL_ERROR envelope or the data, never a protocol error or a stack trace", async () => {
    for (const era of ["legacy", "modern"] as const) {
      const session = await open([...LAB, "--format", "json", "mcp", "serve"], era, {});
      const deep = await call(session, era, 1, "nest", `{"depth":${DEPTH}}`);
      // V8 in Node cannot stringify this much nesting; Deno's can. Either way the answer is one envelope.
      if (deep.isError) {
        assert.equal(deep.structuredContent.error.code, "GENERAL_ERROR");
        assert.match(deep.structuredContent.error.message, /could not be serialised/);
      } else {
        assert.equal(deep.structuredContent.ok, true);
      }
      const after = await call(session, era, 2, "echo", `{"text":"still serving"}`);
      assert.equal(after.structuredContent.data.text, "still serving");
      const result = await session.close();
      assert.equal(result.code, 0, result.stderr);
      assertNoStackTrace(result.stderr);
    }
  });
});

describe("walks over received JSON are bounded (in-process)", () => {
  it("quote renders the start of a value nested a million levels deep, or millions of elements long", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    assert.equal(quote(deep), `${"[".repeat(57)}...`);
    assert.equal(
      quote(Array.from({ length: 2_000_000 }, (_, i) => i)),
      "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,...",
    );
    assert.equal(quote({ b: [1, "x"], a: null }), '{"b":[1,"x"],"a":null}');
    assert.equal(quote("maybe"), "'maybe'");
  });

  it(`canonicalJson refuses nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} levels with a RangeError of its own`, () => {
    const nested = (levels: number) => {
      let value: unknown = 0;
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    assert.equal(canonicalJson(nested(CANONICAL_JSON_MAX_DEPTH)).length, CANONICAL_JSON_MAX_DEPTH * 6 + 1);
    assert.throws(() => canonicalJson(nested(CANONICAL_JSON_MAX_DEPTH + 1)), /nested deeper than 128 levels/);
    assert.throws(() => canonicalJson(nested(DEPTH)), /nested deeper than 128 levels/);
  });
});
