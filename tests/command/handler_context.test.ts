// What a handler is given, and what it gives back through its context, reaches the envelope the same way from
// argv and from MCP: the context's fields in their order, logs, progress, warnings, meta, dry runs and the
// environment — for a handler that returns its data and for one that returns a promise of it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { initialize, modern, WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, onlyEnvelope, programArgv, run } from "../helpers/run.ts";

const PROBE = programArgv("tests/fixtures/probe.ts");
const ENV = { PROBE_VALUE: "from-env" };
const COMMANDS = ["look", "look-later"];

/** The probe's envelope, field by field and in order. */
function assertProbed(envelope: Loose, expected: { word: string | null; dryRun: boolean }): void {
  assert.deepEqual(Object.keys(envelope), ["ok", "data", "error", "warnings", "meta"]);
  assert.equal(envelope.ok, true);
  assert.equal(envelope.error, null);
  assert.deepEqual(envelope.data, {
    effect: expected.dryRun ? "would_look" : "looked",
    keys: ["flags", "args", "dryRun", "env", "log", "warn", "progress", "meta", "caller"],
    note: "x",
    word: expected.word,
    dry_run: expected.dryRun,
    env: "from-env",
    aborted: false,
  });
  assert.deepEqual(envelope.warnings, [{ code: "PROBE_NOTE", message: "noted x" }]);
  // The command's own meta between the framework's: timeout_ms first, exit_code and duration_ms last.
  assert.deepEqual(Object.keys(envelope.meta), ["timeout_ms", "noted", "exit_code", "duration_ms"]);
  assert.equal(envelope.meta.timeout_ms, 60_000);
  assert.equal(envelope.meta.noted, "x");
  assert.equal(envelope.meta.exit_code, 0);
  assert.ok(Number.isInteger(envelope.meta.duration_ms) && envelope.meta.duration_ms >= 0);
}

describe("handler context", () => {
  for (const command of COMMANDS) {
    it(`${command} from argv: every part of the context, logs on stderr`, async () => {
      const result = await run([...PROBE, "--format", "json", command, "--note", "x", "hello"], { env: ENV });
      assert.equal(result.code, 0, result.stderr);
      assertProbed(onlyEnvelope(result.stdout), { word: "hello", dryRun: false });
      assert.match(result.stderr, /looking at x/);

      const dry = await run([...PROBE, "--format", "json", command, "--note", "x", "--dry-run"], {
        env: ENV,
      });
      assert.equal(dry.code, 0, dry.stderr);
      assertProbed(onlyEnvelope(dry.stdout), { word: null, dryRun: true });
    });
  }

  it("from a modern MCP client: the log and the progress reach the client before the envelope", async () => {
    const s = new WireSession([...PROBE, "mcp", "serve"], { env: ENV });
    let id = 0;
    for (const command of COMMANDS) {
      for (const dryRun of [false, true]) {
        id++;
        s.send(modern(id, "tools/call", {
          name: command,
          arguments: { note: "x", word: "hello", ...(dryRun ? { dry_run: true } : {}) },
        }, { progressToken: `p${id}`, "io.modelcontextprotocol/logLevel": "info" }));
        const [log, progress, reply] = await s.take(3);
        assert.deepEqual([log.method, log.params.level, log.params.data], [
          "notifications/message",
          "info",
          "looking at x",
        ]);
        assert.deepEqual(
          [progress.method, progress.params.progressToken, progress.params.progress, progress.params.message],
          ["notifications/progress", `p${id}`, 1, "looked"],
        );
        assert.equal(reply.id, id);
        assert.equal(reply.result.isError, false);
        assert.deepEqual(JSON.parse(reply.result.content[0].text), reply.result.structuredContent);
        assertProbed(reply.result.structuredContent, { word: "hello", dryRun });
      }
    }
    const result = await s.close();
    assert.equal(result.code, 0, result.stderr);
  });

  it("from a legacy MCP client", async () => {
    const s = new WireSession([...PROBE, "mcp", "serve"], { env: ENV });
    await s.request(initialize(0));
    s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (const [i, command] of COMMANDS.entries()) {
      const reply = await s.request({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: command, arguments: { note: "x" } },
      });
      assert.equal(reply.result.isError, false);
      assertProbed(reply.result.structuredContent, { word: null, dryRun: false });
    }
    const result = await s.close();
    assert.equal(result.code, 0, result.stderr);
  });
});
