// Time limits at their edges, on a real command: a limit longer than a 32-bit timer holds (it must not fire
// at once), a tiny positive one is still a limit, and what is not a number of seconds >= 0 is refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool } from "../../mod.ts";
import { onlyEnvelope, programArgv, run } from "../helpers/run.ts";
import { modern, WireSession } from "../helpers/mcp_wire.ts";
import { httpTimes } from "../../lib/command/builtins/mcp_listen/listen_server.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

describe("lab: --timeout at its edges", () => {
  for (
    const [value, timeoutMs] of [["2147484", 2_147_484_000], ["1e300", Number.MAX_SAFE_INTEGER], [
      "1.7e308",
      Number.MAX_SAFE_INTEGER,
    ]] as const
  ) {
    it(`--timeout ${value} (beyond a 32-bit timer) lets a 300 ms command finish`, async () => {
      const result = await run([...LAB, "sleep", "--ms", "300", "--timeout", value]);
      assert.equal(result.code, 0, result.stdout);
      const envelope = onlyEnvelope(result.stdout);
      assert.deepEqual(envelope.data, { slept_ms: 300 });
      assert.equal(envelope.meta.timeout_ms, timeoutMs);
    });
  }

  it("--timeout 0.0000001 is a limit of 1 ms, not none: exit 10 TIMEOUT", async () => {
    const result = await run([...LAB, "sleep", "--ms", "300", "--timeout", "0.0000001"]);
    assert.equal(result.code, 10, result.stdout);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "TIMEOUT");
    assert.equal(envelope.meta.timeout_ms, 1);
  });

  for (
    const [value, message] of [
      ["-1", "--timeout expects seconds >= 0 (0 = no limit), got -1"],
      ["NaN", "--timeout expects a number, got 'NaN'"],
      ["Infinity", "--timeout expects a number, got 'Infinity'"],
      ["1e999", "--timeout expects a number, got '1e999'"],
    ] as const
  ) {
    it(`--timeout ${value} is an ARG_ERROR`, async () => {
      const result = await run([...LAB, "sleep", "--ms", "1", "--timeout", value]);
      assert.equal(result.code, 2, result.stdout);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.error.code, "ARG_ERROR");
      assert.equal(envelope.error.message, message);
    });
  }
});

describe("mcp listen: the HTTP time limits at their edges", () => {
  // Rounded to 0 ms, Node's header limit would be off, a body's timer would fire at once and a stream's
  // keep-alive would tick as fast as the timers go: each tiny limit is 1 ms, as --timeout's is.
  for (
    const [flag, option] of [
      ["header-timeout", "headersTimeoutMs"],
      ["body-timeout", "bodyTimeoutMs"],
      ["keep-alive", "keepAliveMs"],
    ] as const
  ) {
    it(`--${flag} 0.0001 is 1 ms, not 0; 1.5 is 1500 ms`, () => {
      assert.deepEqual(httpTimes({ [flag]: 0.0001 }), { [option]: 1 });
      assert.deepEqual(httpTimes({ [flag]: 1.5 }), { [option]: 1500 });
    });
  }
});

describe("createTool: timeoutSeconds", () => {
  it("a negative or non-number default time limit is refused when the tool is made", () => {
    for (const timeoutSeconds of [-1, Number.NaN]) {
      assert.throws(
        () => createTool({ name: "t", version: "1.0.0", description: "d", timeoutSeconds }),
        /timeoutSeconds: must be a number of seconds >= 0/,
      );
    }
    assert.equal(
      createTool({ name: "t", version: "1.0.0", description: "d", timeoutSeconds: 0 }).timeoutSeconds,
      0,
    );
  });
});

describe("limits over MCP", () => {
  it("each call runs under its own command's limit, however the calls alternate", async () => {
    const s = new WireSession([...programArgv("tests/fixtures/limits.ts"), "mcp", "serve"]);
    const seen: Array<[string, number]> = [];
    let id = 0;
    for (const name of ["own", "inherited", "own", "inherited", "own"]) {
      const reply = await s.request(modern(++id, "tools/call", { name, arguments: {} }));
      assert.equal(reply.result.isError, false, JSON.stringify(reply));
      seen.push([name, reply.result.structuredContent.meta.timeout_ms]);
    }
    const expected = [["own", 1500], ["inherited", 7000], ["own", 1500], ["inherited", 7000], ["own", 1500]];
    assert.deepEqual(seen, expected);
    const result = await s.close();
    assert.equal(result.code, 0, result.stderr);
  });
});
