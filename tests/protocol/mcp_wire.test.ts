// Raw-line wire tests of `mcp serve`, rule by rule (docs/mcp_wire.md, section by section): exact lines in,
// exact lines out, against the real spawned server.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { initialize, modern, modernMeta, WireSession } from "../helpers/mcp_wire.ts";
import { MemoryWire } from "../helpers/mcp_memory.ts";
import { waitFor } from "../helpers/locks.ts";
import { NOTES, programArgv, tempDir } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const MANY = programArgv("tests/fixtures/many.ts");

function labServer(...flags: string[]): WireSession {
  return new WireSession([...LAB, "mcp", "serve", ...flags]);
}

// The exchanges that need no process of their own run twice: against the spawned `lab mcp serve`, and
// through the in-memory transport, the same pipeline with no line transport in front of it.
const TRANSPORTS = ["stdio", "memory"] as const;
type Transport = (typeof TRANSPORTS)[number];

/** A `lab` session over `transport`. */
function lab(transport: Transport): WireSession | MemoryWire {
  return transport === "stdio" ? labServer() : new MemoryWire();
}

/** What a test's name says of its transport: nothing for stdio, as before. */
function over(transport: Transport): string {
  return transport === "stdio" ? "" : " (in memory)";
}

async function closed(session: WireSession | MemoryWire): Promise<void> {
  const result = await session.close();
  assert.equal(result.code, 0, result.stderr);
  for (const line of session.stdoutText.split("\n").filter(Boolean)) {
    const parsed = JSON.parse(line);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      assert.equal(message.jsonrpc, "2.0");
      // The server never writes a JSON-RPC request (docs/mcp_wire.md#no-requests-from-the-server).
      assert.ok(
        !("method" in message && "id" in message),
        `the server wrote a request: ${line.slice(0, 200)}`,
      );
    }
  }
}

for (const transport of TRANSPORTS) {
  describe(`mcp wire${over(transport)}: era detection`, () => {
    it("server/discover is answered without pinning; initialize afterwards still pins legacy", async () => {
      const s = lab(transport);
      const discover = await s.request(modern("d", "server/discover"));
      assert.deepEqual(discover.result.supportedVersions, ["2026-07-28"]);
      assert.equal(discover.result.resultType, "complete");
      assert.equal(discover.result.ttlMs, 0);
      assert.equal(discover.result.cacheScope, "private");
      assert.deepEqual(discover.result.capabilities.tools, {});
      assert.equal(discover.result._meta["io.modelcontextprotocol/serverInfo"].name, "lab");
      const init = await s.request(initialize(1));
      assert.equal(init.result.protocolVersion, "2025-11-25");
      assert.equal(init.result.serverInfo.name, "lab");
      const again = await s.request(modern(2, "server/discover"));
      assert.equal(again.error.code, -32601, "a legacy-pinned connection has no server/discover");
      await closed(s);
    });

    it("methods named like Object.prototype members, or near a served name, are -32601 in both eras", async () => {
      const names = [
        "constructor",
        "__proto__",
        "toString",
        "hasOwnProperty",
        "tools/cal",
        "tools/call ",
        "Tools/call",
      ];
      const modernSession = lab(transport);
      for (const [i, name] of names.entries()) {
        const reply = await modernSession.request(modern(i + 1, name));
        assert.equal(reply.error?.code, -32601, name);
        assert.equal(reply.error.message, `Method not found: ${name}`);
      }
      assert.equal((await modernSession.request(modern(99, "tools/list"))).result.resultType, "complete");
      await closed(modernSession);
      const legacySession = lab(transport);
      await legacySession.request(initialize(0));
      for (const [i, name] of names.entries()) {
        const reply = await legacySession.request({ jsonrpc: "2.0", id: i + 1, method: name });
        assert.equal(reply.error?.code, -32601, name);
      }
      assert.ok(
        Array.isArray(
          (await legacySession.request({ jsonrpc: "2.0", id: 99, method: "tools/list" })).result.tools,
        ),
      );
      await closed(legacySession);
    });

    it("a modern request pins the modern era; initialize then answers -32022 naming the versions", async () => {
      const s = lab(transport);
      const list = await s.request(modern(1, "tools/list"));
      assert.equal(list.result.resultType, "complete");
      const init = await s.request(initialize(2));
      assert.equal(init.error.code, -32022);
      assert.deepEqual(init.error.data.supported, ["2026-07-28"], "the versions server/discover lists");
      assert.equal(init.error.data.requested, "2025-11-25");
      assert.equal((await s.request(modern(3, "ping"))).error.code, -32601);
      assert.equal((await s.request(modern(4, "logging/setLevel", { level: "info" }))).error.code, -32601);
      await closed(s);
    });

    it("legacy initialize echoes a served version and falls back to the newest for an unknown one", async () => {
      const a = lab(transport);
      assert.equal((await a.request(initialize(1, "2025-06-18"))).result.protocolVersion, "2025-06-18");
      assert.deepEqual((await a.request({ jsonrpc: "2.0", id: 2, method: "ping" })).result, {});
      a.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const list = await a.request({ jsonrpc: "2.0", id: 3, method: "tools/list" });
      assert.equal(list.result.resultType, undefined, "legacy results carry no resultType");
      assert.equal(list.result.ttlMs, undefined);
      await closed(a);
      const b = lab(transport);
      assert.equal((await b.request(initialize(1, "1999-01-01"))).result.protocolVersion, "2025-11-25");
      await closed(b);
    });

    it("a claim-less ping before initialize is answered without pinning", async () => {
      const s = lab(transport);
      assert.deepEqual((await s.request({ jsonrpc: "2.0", id: 1, method: "ping" })).result, {});
      assert.equal((await s.request(modern(2, "tools/list"))).result.resultType, "complete");
      await closed(s);
    });
  });

  describe(`mcp wire${over(transport)}: per-request _meta, on every modern request`, () => {
    it("a missing key is -32602 and a version not served is -32022 — also after the connection is pinned", async () => {
      const s = lab(transport);
      const missing = await s.request({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      });
      assert.equal(missing.error.code, -32602);
      assert.deepEqual(missing.error.data.envelope, {
        key: "io.modelcontextprotocol/clientCapabilities",
        problem: "missing",
      });
      const unsupported = await s.request(
        modern(2, "tools/list", {}, { "io.modelcontextprotocol/protocolVersion": "1900-01-01" }),
      );
      assert.equal(unsupported.error.code, -32022);
      assert.equal(unsupported.error.data.requested, "1900-01-01");
      assert.ok(Array.isArray(unsupported.error.data.supported));
      assert.equal(
        (await s.request(modern(3, "tools/list"))).result.resultType,
        "complete",
        "now pinned modern",
      );
      const stillChecked = await s.request(
        modern(4, "tools/list", {}, { "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
      );
      assert.equal(
        stillChecked.error.code,
        -32022,
        "the version is checked on every request, not only the first",
      );
      const noMeta = await s.request({ jsonrpc: "2.0", id: 5, method: "tools/list", params: {} });
      assert.equal(noMeta.error.code, -32602);
      const badLevel = await s.request(
        modern(6, "tools/list", {}, { "io.modelcontextprotocol/logLevel": "loud" }),
      );
      assert.equal(badLevel.error.code, -32602);
      const bigToken = await s.request(modern(7, "tools/list", {}, { progressToken: 2 ** 53 }));
      assert.equal(bigToken.error.code, -32602);
      assert.equal(
        bigToken.error.message,
        "Invalid _meta envelope: progressToken: not a string or an integer from -(2^53 - 1) to 2^53 - 1",
      );
      s.send({ jsonrpc: "2.0", id: 2 ** 53, method: "ping" });
      const bigId = await s.next();
      assert.deepEqual(bigId.error, {
        code: -32600,
        message: "Invalid request: id must be a string or an integer from -(2^53 - 1) to 2^53 - 1",
      });
      assert.equal(bigId.id, null);
      const largestToken = await s.request(modern(8, "tools/list", {}, { progressToken: 2 ** 53 - 1 }));
      assert.ok(Array.isArray(largestToken.result?.tools), JSON.stringify(largestToken));
      await closed(s);
    });
  });
}

describe("mcp wire: tools/list", () => {
  it("lists tools in a deterministic order, with closed input schemas and explicit annotations", async () => {
    const home = tempDir();
    const s = new WireSession([...NOTES, "mcp", "serve"], { env: { NOTES_HOME: home.path } });
    try {
      const { result } = await s.request(modern(1, "tools/list"));
      assert.deepEqual(result.tools.map((t: { name: string }) => t.name), [
        "add",
        "list",
        "manifest",
        "remove",
        "show",
      ]);
      const byName = Object.fromEntries(result.tools.map((t: { name: string }) => [t.name, t]));
      assert.equal(byName.add.inputSchema.additionalProperties, false);
      assert.deepEqual(byName.add.inputSchema.required, ["title"]);
      assert.deepEqual(byName.add.annotations, {
        title: "add",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      });
      assert.equal(byName.remove.annotations.destructiveHint, true);
      assert.ok(byName.remove.inputSchema.properties.confirm_destructive);
      assert.ok(byName.add.inputSchema.properties.idempotency_key);
      assert.equal(byName.show.inputSchema.properties.id.type, "integer");
      const again = await s.request(modern(2, "tools/list"));
      assert.deepEqual(again.result.tools, result.tools);
      await closed(s);
    } finally {
      home.cleanup();
    }
  });

  it("pages with an opaque cursor and refuses an unknown cursor", async () => {
    const s = new WireSession([...MANY, "mcp", "serve"]);
    const first = await s.request(modern(1, "tools/list"));
    assert.equal(first.result.tools.length, 100);
    assert.equal(typeof first.result.nextCursor, "string");
    const second = await s.request(modern(2, "tools/list", { cursor: first.result.nextCursor }));
    assert.equal(second.result.nextCursor, undefined);
    const names = [...first.result.tools, ...second.result.tools].map((t: { name: string }) => t.name);
    assert.equal(new Set(names).size, 151, "150 commands plus manifest, each once");
    assert.deepEqual(names, [...names].sort());
    assert.equal((await s.request(modern(3, "tools/list", { cursor: "bm9wZQ" }))).error.code, -32602);
    await closed(s);
  });

  it("protocol commands (notes lsp, a DAP adapter, mcp serve itself) are never tools, and calling one runs nothing", async () => {
    for (
      const [argv, left] of [[NOTES, ["lsp", "mcp_serve"]], [programArgv("tests/fixtures/dap_fixture.ts"), [
        "debug-adapter",
        "mcp_serve",
      ]]] as const
    ) {
      const s = new WireSession([...argv, "mcp", "serve"]);
      const names = (await s.request(modern(1, "tools/list"))).result.tools.map((t: { name: string }) =>
        t.name
      );
      for (const name of left) {
        assert.equal(names.includes(name), false, `${name} must not be listed`);
        assert.equal(
          (await s.request(modern(`call-${name}`, "tools/call", { name, arguments: {} }))).error.code,
          -32602,
        );
      }
      await closed(s);
    }
  });

  it("--read-only keeps only safe commands", async () => {
    const s = new WireSession([...NOTES, "mcp", "serve", "--read-only"]);
    const { result } = await s.request(modern(1, "tools/list"));
    assert.deepEqual(result.tools.map((t: { name: string }) => t.name), ["list", "manifest", "show"]);
    assert.equal(
      (await s.request(modern(2, "tools/call", { name: "add", arguments: { title: "x" } }))).error.code,
      -32602,
    );
    await closed(s);
  });
});

describe("mcp wire: tools/call", () => {
  it("a call naming a left-out command is -32602 and nothing runs", async () => {
    const home = tempDir();
    const notesHome = join(home.path, "never");
    const s = new WireSession([...NOTES, "mcp", "serve"], { env: { NOTES_HOME: notesHome } });
    try {
      const reply = await s.request(modern(1, "tools/call", { name: "init", arguments: {} }));
      assert.equal(reply.error.code, -32602);
      assert.match(reply.error.message, /Unknown tool: init/);
      assert.equal(
        (await s.request(modern(2, "tools/call", { name: "mcp_serve", arguments: {} }))).error.code,
        -32602,
      );
      await closed(s);
      assert.equal(existsSync(notesHome), false);
    } finally {
      home.cleanup();
    }
  });

  for (const transport of TRANSPORTS) {
    it(`structuredContent is the envelope, content its JSON text, isError !ok; bad arguments are an isError ARG_ERROR${over(transport)}`, async () => {
      const s = lab(transport);
      const ok = await s.request(modern(1, "tools/call", { name: "echo", arguments: { text: "hi" } }));
      assert.equal(ok.result.resultType, "complete");
      assert.equal(ok.result.isError, false);
      assert.deepEqual(ok.result.structuredContent.data, { text: "hi" });
      assert.deepEqual(JSON.parse(ok.result.content[0].text), ok.result.structuredContent);
      const bad = await s.request(
        modern(2, "tools/call", { name: "types", arguments: { int: "five", nope: 1 } }),
      );
      assert.equal(bad.result.isError, true);
      assert.equal(bad.result.structuredContent.error.code, "ARG_ERROR");
      assert.equal(bad.result.structuredContent.meta.exit_code, 2);
      const messages = bad.result.structuredContent.error.issues.map((i: { message: string }) => i.message);
      assert.deepEqual(messages, [
        "int expects an integer, got 'five'",
        "unknown argument 'nope'",
        "missing argument first",
      ]);
      const failed = await s.request(modern(3, "tools/call", { name: "fail", arguments: { code: 4 } }));
      assert.equal(failed.result.isError, true);
      assert.equal(failed.result.structuredContent.meta.exit_code, 4);
      await closed(s);
    });

    it(`__proto__ keys in arguments are plain unknown arguments and pollute nothing${over(transport)}`, async () => {
      const s = lab(transport);
      s.send(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"types","arguments":{"__proto__":{"polluted":true},"first":"x"},"_meta":${
          JSON.stringify(modernMeta())
        }}}`,
      );
      const reply = await s.next();
      assert.equal(reply.result.isError, true);
      assert.match(reply.result.structuredContent.error.message, /unknown argument '__proto__'/);
      const check = await s.request(modern(2, "tools/call", { name: "proto-check", arguments: {} }));
      assert.equal(check.result.structuredContent.data.polluted, false);
      await closed(s);
    });

    it(`arguments named like Object.prototype members are unknown arguments, each named, and pollute nothing${over(transport)}`, async () => {
      const s = lab(transport);
      const names = ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"];
      const members = names.map((name) => `${JSON.stringify(name)}:{"polluted":true}`).join(",");
      s.send(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"types","arguments":{${members},"first":"x"},"_meta":${
          JSON.stringify(modernMeta())
        }}}`,
      );
      const reply = await s.next();
      assert.equal(reply.result.isError, true);
      const { error, meta } = reply.result.structuredContent;
      assert.equal(error.code, "ARG_ERROR");
      assert.equal(meta.exit_code, 2);
      assert.deepEqual(
        error.issues.map((issue: { field: string; message: string }) => [issue.field, issue.message]),
        names.map((name) => [name, `unknown argument '${name}'`]),
      );
      const check = await s.request(modern(2, "tools/call", { name: "proto-check", arguments: {} }));
      assert.equal(check.result.structuredContent.data.polluted, false);
      await closed(s);
    });

    it(`a destructive call asks first (input_required); the signed requestState must come back unaltered and for the same call${over(transport)}`, async () => {
      const s = lab(transport);
      const elicitation = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
      const accept = { confirm: { action: "accept", content: { confirm: true } } };
      const asked = await s.request(
        modern(1, "tools/call", { name: "wipe", arguments: { target: "t" } }, elicitation),
      );
      assert.equal(asked.result.resultType, "input_required");
      assert.equal(asked.result.inputRequests.confirm.method, "elicitation/create");
      const state: string = asked.result.requestState;
      const done = await s.request(
        modern(2, "tools/call", {
          name: "wipe",
          arguments: { target: "t" },
          requestState: state,
          inputResponses: accept,
        }, elicitation),
      );
      assert.deepEqual(done.result.structuredContent.data, { effect: "deleted", target: "t" });
      const tampered = `${state.slice(0, -2)}${state.endsWith("AA") ? "BB" : "AA"}`;
      for (const [id, target, requestState] of [[3, "t", tampered], [4, "other", state]] as const) {
        const refused = await s.request(
          modern(id, "tools/call", {
            name: "wipe",
            arguments: { target },
            requestState,
            inputResponses: accept,
          }, elicitation),
        );
        assert.equal(refused.result.structuredContent.error.code, "CONFIRMATION_INVALID");
      }
      await closed(s);
    });

    it(`an 8 MB argument comes back whole${over(transport)}`, async () => {
      const s = lab(transport);
      const text = "é".repeat(4 * 1024 * 1024);
      const reply = await s.request(modern(1, "tools/call", { name: "echo", arguments: { text } }));
      assert.equal(reply.result.structuredContent.data.text, text);
      await closed(s);
    });
  }
});

for (const transport of TRANSPORTS) {
  describe(`mcp wire${over(transport)}: cancellation, progress, logging`, () => {
    it("notifications/cancelled fires the handler's AbortSignal and nothing more is sent for that id", async () => {
      const dir = tempDir();
      const marker = join(dir.path, "marker");
      const s = lab(transport);
      try {
        s.send(
          modern(7, "tools/call", { name: "sleep", arguments: { ms: 30_000, marker } }, {
            "io.modelcontextprotocol/logLevel": "info",
          }),
        );
        // The handler's log line says it is waiting: the cancellation cannot overtake its start.
        const started = await s.next();
        assert.deepEqual([started.method, started.params.data], ["notifications/message", "sleeping"]);
        s.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 7, reason: "test", _meta: modernMeta() },
        });
        s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999 } });
        await waitFor(() => existsSync(marker), "the handler's cleanup (its AbortSignal fired)");
        assert.equal(readFileSync(marker, "utf8"), "cleaned up");
        const pong = await s.request(modern(8, "tools/call", { name: "echo", arguments: { text: "after" } }));
        assert.equal(
          pong.result.structuredContent.data.text,
          "after",
          "the next line answers id 8, not the cancelled 7",
        );
        await closed(s);
        assert.doesNotMatch(s.stdoutText, /"id":7/);
      } finally {
        dir.cleanup();
      }
    });

    it("progress notifications come before the response, increasing, only when asked", async () => {
      const s = lab(transport);
      s.send(modern(1, "tools/call", { name: "count", arguments: { to: 3 } }, { progressToken: "p1" }));
      const messages = await s.take(4);
      assert.deepEqual(
        messages.slice(0, 3).map((
          m,
        ) => [m.method, m.params.progressToken, m.params.progress, m.params.total]),
        [
          ["notifications/progress", "p1", 1, 3],
          ["notifications/progress", "p1", 2, 3],
          ["notifications/progress", "p1", 3, 3],
        ],
      );
      assert.equal(messages[3].id, 1);
      const quiet = await s.request(modern(2, "tools/call", { name: "count", arguments: { to: 2 } }));
      assert.equal(quiet.result.structuredContent.data.counted, 2, "no progress without a progressToken");
      await closed(s);
    });

    it("notifications/message is sent only to a request that opted in with logLevel", async () => {
      const s = lab(transport);
      const silent = await s.request(modern(1, "tools/call", { name: "count", arguments: { to: 2 } }));
      assert.equal(silent.result.isError, false);
      s.send(
        modern(2, "tools/call", { name: "count", arguments: { to: 2 } }, {
          "io.modelcontextprotocol/logLevel": "info",
        }),
      );
      const [first, second, reply] = await s.take(3);
      assert.deepEqual([first.method, first.params.level, first.params.data], [
        "notifications/message",
        "info",
        "step 1",
      ]);
      assert.equal(second.params.data, "step 2");
      assert.equal(reply.id, 2);
      s.send(
        modern(3, "tools/call", { name: "count", arguments: { to: 1 } }, {
          "io.modelcontextprotocol/logLevel": "error",
        }),
      );
      assert.equal((await s.next()).id, 3, "info lines are below an error threshold");
      await closed(s);
    });
  });
}

describe("mcp wire: malformed input is answered and the server keeps serving", () => {
  it("parse errors, invalid UTF-8, invalid shapes, duplicate ids and client responses", async () => {
    const s = labServer();
    const garbage = await (s.send("{not json"), s.next());
    assert.deepEqual([garbage.id, garbage.error.code], [null, -32700]);
    s.send(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
    const utf8 = await s.next();
    assert.deepEqual([utf8.id, utf8.error.code], [null, -32700]);
    assert.match(utf8.error.message, /UTF-8/);
    assert.equal((await s.request({ id: 3, method: "ping" })).error.code, -32600);
    const badId = await (s.send({ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }), s.next());
    assert.deepEqual([badId.id, badId.error.code], [null, -32600]);
    assert.equal(
      (await s.request({ jsonrpc: "2.0", id: 5, method: "tools/call", params: [] })).error.code,
      -32600,
    );
    s.send({ jsonrpc: "2.0", id: 77, result: {} });
    s.send("");
    s.send("   ");
    assert.equal((await s.request(initialize(6))).result.protocolVersion, "2025-11-25");
    s.send({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "sleep", arguments: { ms: 300 } },
    });
    const duplicate = await s.request({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    });
    assert.equal(duplicate.error.code, -32600);
    assert.equal((await s.next()).id, 9);
    assert.equal((await s.request({ jsonrpc: "2.0", id: 10, method: "nope" })).error.code, -32601);
    await closed(s);
  });

  it("stdin closing right after a line that is answered at once: the answer is flushed and the server exits", async () => {
    // The line and EOF in one write: EOF can then arrive while the answer is still being written, and waiting
    // for that write must not wait for a next one (it hung on Deno). Timing-dependent, so a few rounds.
    for (let round = 0; round < 3; round++) {
      const s = labServer();
      s.child.stdin!.end(`${JSON.stringify([modern(1, "tools/list")])}\n`);
      const result = await s.exited();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(JSON.parse(s.stdoutText).error.code, -32600);
    }
  });

  it("\\r\\n line endings are accepted", async () => {
    const s = labServer();
    s.send(new TextEncoder().encode(`${JSON.stringify(initialize(1))}\r\n`));
    assert.equal((await s.next()).result.protocolVersion, "2025-11-25");
    await closed(s);
  });

  it("a line over --max-message-bytes is answered with -32600 and skipped; the next request is served", async () => {
    const s = labServer("--max-message-bytes", "4096");
    s.send(modern(1, "tools/call", { name: "echo", arguments: { text: "x".repeat(100_000) } }));
    const tooBig = await s.next();
    assert.deepEqual([tooBig.id, tooBig.error.code], [null, -32600]);
    assert.match(tooBig.error.message, /exceeds the 4096-byte limit/);
    assert.equal(
      (await s.request(modern(2, "tools/call", { name: "echo", arguments: { text: "small" } }))).result
        .structuredContent.data.text,
      "small",
    );
    await closed(s);
  });

  for (const transport of TRANSPORTS) {
    it(`batches: -32600 outside legacy 2025-03-26, an array of responses inside it${over(transport)}`, async () => {
      const s = lab(transport);
      s.send([modern(1, "tools/list")]);
      assert.equal((await s.next()).error.code, -32600);
      await closed(s);
      const b = lab(transport);
      await b.request(initialize(0, "2025-03-26"));
      b.send([{ jsonrpc: "2.0", id: 1, method: "ping" }, {
        jsonrpc: "2.0",
        method: "notifications/initialized",
      }, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "b" } },
      }]);
      const replies = await b.next();
      assert.ok(Array.isArray(replies));
      assert.deepEqual(replies.map((r: { id: number }) => r.id).sort(), [1, 2]);
      b.send([]);
      assert.equal((await b.next()).error.code, -32600);
      await closed(b);
      const c = lab(transport);
      await c.request(initialize(0, "2025-11-25"));
      c.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
      assert.equal((await c.next()).error.code, -32600);
      await closed(c);
    });
  }
});

describe("mcp wire: a batch's bounds", () => {
  const scratch = tempDir("toolwire-batch-");
  after(() => scratch.cleanup());
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });

  for (const transport of TRANSPORTS) {
    it(`a batch of 1001 messages is refused whole, with nothing run; 1000 are answered${over(transport)}`, async () => {
      const s = lab(transport);
      await s.request(initialize(0, "2025-03-26"));
      const file = join(scratch.path, `tally-${transport}`);
      const pings = (count: number) =>
        Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
      s.send([call(0, "tally", { file }), ...pings(1000)]);
      const refusal = await s.next();
      assert.deepEqual([refusal.id, refusal.error.code], [null, -32600]);
      assert.match(refusal.error.message, /at most 1000 messages; this one holds 1001/);
      assert.equal(existsSync(file), false, "no message of the refused batch ran");
      s.send(pings(1000));
      const answers = await s.next();
      assert.equal(answers.length, 1000);
      assert.ok(answers.every((answer: { result?: unknown }) => answer.result !== undefined));
      await closed(s);
    });
  }

  it("past 16 Mi characters of answers, a request that ran says so and one not yet started does not run", async () => {
    // One call at a time, so the order is known: ~10 Mi characters fit, the next ~10 Mi do not.
    const s = labServer("--max-in-flight", "1");
    await s.request(initialize(0, "2025-03-26"));
    const file = join(scratch.path, "tally-after-bound");
    s.send([
      call(1, "spew", { bytes: 5_000_000 }),
      call(2, "spew", { bytes: 5_000_000 }),
      call(3, "tally", { file }),
      { jsonrpc: "2.0", id: 4, method: "ping" },
    ]);
    const [first, second, third, fourth] = await s.next();
    assert.equal(first.result.structuredContent.data.text.length, 5_000_000);
    assert.deepEqual([second.id, second.error.code, second.error.data], [2, -32603, { ran: true }]);
    assert.match(
      second.error.message,
      /this request ran, but the batch's answer reached its bound \(16777216/,
    );
    for (const [answer, id] of [[third, 3], [fourth, 4]]) {
      assert.deepEqual([answer.id, answer.error.code, answer.error.data], [id, -32603, { ran: false }]);
      assert.match(answer.error.message, /this request was not run/);
    }
    assert.equal(existsSync(file), false, "the call after the bound did not run");
    assert.equal((await s.request({ jsonrpc: "2.0", id: 5, method: "ping" })).result !== undefined, true);
    await closed(s);
  });
});

describe("mcp wire: flow control and shutdown", () => {
  it("reading stdin pauses at --max-in-flight: a ping waits behind a slow call", async () => {
    const s = labServer("--max-in-flight", "1");
    s.send(modern(1, "tools/call", { name: "sleep", arguments: { ms: 300 } }));
    s.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    const [first, second] = await s.take(2);
    assert.deepEqual([first.id, second.id], [1, 2]);
    await closed(s);
    const free = labServer();
    free.send(initialize(0));
    await free.next();
    free.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "sleep", arguments: { ms: 300 } },
    });
    free.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    const [a, b] = await free.take(2);
    assert.deepEqual([a.id, b.id], [2, 1], "with room, requests run concurrently");
    await closed(free);
  });

  it("on EOF, open requests finish and are flushed before exit 0", async () => {
    const s = labServer();
    s.send(modern(1, "tools/call", { name: "sleep", arguments: { ms: 300 } }));
    s.send(modern(2, "tools/call", { name: "echo", arguments: { text: "last" } }));
    const result = await s.close();
    assert.equal(result.code, 0);
    const ids = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line).id).sort();
    assert.deepEqual(ids, [1, 2]);
    assert.equal(result.stderr.trim(), "", "a clean shutdown writes no envelope");
  });

  it("a burst then EOF: every request answered exactly once and every add run once, at any bound", async () => {
    for (const bound of ["64", "4", "1"]) {
      const home = tempDir();
      try {
        const s = new WireSession([...NOTES, "mcp", "serve", "--max-in-flight", bound], {
          env: { NOTES_HOME: home.path },
        });
        const count = 200;
        const lines = [JSON.stringify(initialize(0))];
        for (let id = 1; id <= count; id++) {
          lines.push(
            JSON.stringify({
              jsonrpc: "2.0",
              id,
              method: "tools/call",
              params: { name: "add", arguments: { title: `n${id}` } },
            }),
          );
        }
        // One write, then stdin closed at once: the end of the input arrives while requests wait for slots.
        s.send(`${lines.join("\n")}\n`);
        const result = await s.close();
        assert.equal(result.code, 0, result.stderr);
        const ids = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line).id as number);
        assert.equal(
          ids.length,
          count + 1,
          `--max-in-flight ${bound}: ${ids.length} answers for ${count + 1} requests`,
        );
        assert.deepEqual(
          [...new Set(ids)].sort((a, b) => a - b),
          Array.from({ length: count + 1 }, (_, i) => i),
        );
        const notes = JSON.parse(readFileSync(join(home.path, "notes.json"), "utf8")).notes as Array<
          { title: string }
        >;
        assert.equal(
          notes.length,
          count,
          `--max-in-flight ${bound}: ${notes.length} notes for ${count} adds`,
        );
        assert.equal(new Set(notes.map((note) => note.title)).size, count);
      } finally {
        home.cleanup();
      }
    }
  });

  it("each request of a batch counts against --max-in-flight", async () => {
    const s = labServer("--max-in-flight", "2");
    await s.request(initialize(0, "2025-03-26"));
    const batch = Array.from(
      { length: 12 },
      (_, i) => ({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "overlap", arguments: { ms: 40 } },
      }),
    );
    s.send(batch);
    s.send({
      jsonrpc: "2.0",
      id: 100,
      method: "tools/call",
      params: { name: "overlap", arguments: { ms: 40 } },
    });
    const [first, second] = await s.take(2);
    const answers = [first, second].flatMap((reply) => Array.isArray(reply) ? reply : [reply]);
    assert.equal(answers.length, 13);
    assert.deepEqual(answers.map((answer) => answer.id).sort((a, b) => a - b), [
      ...Array.from({ length: 12 }, (_, i) => i + 1),
      100,
    ]);
    const peak = Math.max(...answers.map((answer) => answer.result.structuredContent.data.peak as number));
    assert.equal(peak, 2, "no more than two calls ran at once, batch or not");
    await closed(s);
  });

  it("a flood of garbage lines is answered line for line", async () => {
    const s = labServer();
    const count = 2_000;
    s.send(new TextEncoder().encode("x\n".repeat(count)));
    const replies = await s.take(count);
    assert.ok(replies.every((r) => r.error.code === -32700));
    assert.equal((await s.request({ jsonrpc: "2.0", id: 1, method: "ping" })).result !== undefined, true);
    await closed(s);
  });

  it("a closed stdout ends the session quietly", async () => {
    const s = labServer();
    s.child.stdout!.destroy();
    for (let i = 0; i < 50; i++) s.send({ jsonrpc: "2.0", id: i, method: "ping" });
    const result = await s.exited();
    assert.doesNotMatch(result.stderr, /EPIPE|BrokenPipe|Unhandled|TypeError/);
    assert.ok(result.code === 0, `exit ${result.code}: ${result.stderr}`);
  });
});
