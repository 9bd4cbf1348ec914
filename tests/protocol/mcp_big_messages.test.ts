// Big messages through the real `mcp serve`: the bytes come back exact however the writes are cut, a big
// answer is one line even while others are written, and the server holds only a few copies of a big message
// at its peak (docs/framing.md#linear-work-bounded-memory).
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { initialize, modern, WireSession } from "../helpers/mcp_wire.ts";
import { programArgv, RUNTIME } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const MiB = 1024 * 1024;

function labServer(): WireSession {
  return new WireSession([...LAB, "mcp", "serve"]);
}

async function closed(session: WireSession): Promise<void> {
  const result = await session.close();
  assert.equal(result.code, 0, result.stderr);
}

function call(id: number, name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** A `kB` field of the process's /proc status, in MiB (`VmHWM`: the peak resident size so far). */
function statusMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  assert.ok(match, `no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * How far the server's peak resident size rose over one call, in multiples of `mib`: the copies of the
 * message it held at once.
 */
async function peakGrowth(name: string, args: Record<string, unknown>, mib: number): Promise<number> {
  const s = labServer();
  await s.request(initialize(0));
  for (let id = 1; id <= 20; id++) await s.request(call(id, "echo", { text: "warm" }));
  const pid = s.child.pid!;
  const before = statusMiB(pid, "VmRSS");
  const reply = await s.request(call(100, name, args));
  assert.equal(reply.result.structuredContent.data.text.length, mib * MiB);
  const growth = (statusMiB(pid, "VmHWM") - before) / mib;
  await closed(s);
  return growth;
}

describe("mcp big messages", () => {
  it("a reply of 4-byte characters, quotes and backslashes, longer than any write, comes back exact", async () => {
    // 1.2 MB of UTF-8 whose characters straddle every 64 KiB boundary; quotes and backslashes are escaped
    // in the reply's text copy, not in its structured one.
    const text = `a${"😀".repeat(300_000)}"\\"${"é\\".repeat(20_000)}`;
    const legacy = labServer();
    await legacy.request(initialize(0));
    const modernSession = labServer();
    for (
      const [s, request] of [[legacy, call(1, "echo", { text })], [
        modernSession,
        modern(1, "tools/call", { name: "echo", arguments: { text } }),
      ]] as const
    ) {
      const reply = await s.request(request);
      assert.equal(reply.result.structuredContent.data.text, text);
      assert.equal(JSON.parse(reply.result.content[0].text).data.text, text);
      assert.equal(reply.result.isError, false);
      await closed(s);
    }
    assert.equal(modernSession.stdoutText.includes('"resultType":"complete"'), true);
  });

  it("a big answer is one line while small ones are answered around it: nothing comes between its pieces", async () => {
    const s = labServer();
    await s.request(initialize(0));
    const big = "b".repeat(3 * MiB);
    s.send(call(1, "echo", { text: big }));
    for (let id = 2; id <= 41; id++) s.send(call(id, "echo", { text: `small ${id}` }));
    const replies = await s.take(41, 30_000);
    const ids = replies.map((reply) => reply.id as number).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 41 }, (_, i) => i + 1));
    for (const reply of replies) {
      assert.equal(reply.result.structuredContent.data.text, reply.id === 1 ? big : `small ${reply.id}`);
    }
    await closed(s);
  });

  it("the server's peak memory holds a few copies of a big message, not one more per step", {
    skip: existsSync("/proc/self/status") ? false : "needs /proc",
  }, async () => {
    // Measured copies (VmHWM growth ÷ message size). Deno: a 32 MiB answer 4.0 (7.0 when the reply was
    // joined into one string and encoded whole), a 16 MiB echo 5.1 (9.2). Node 20 is higher whatever the
    // server does: its JSON.stringify leaves about a copy of garbage per big text (7.9 and 8.7). The bounds
    // leave room for the collector's timing and still fail the old Deno figures.
    const bounds = RUNTIME === "deno" ? { answer: 5.5, echo: 7.5 } : { answer: 10, echo: 11 };

    const answer = await peakGrowth("spew", { bytes: 32 * MiB }, 32);
    assert.ok(answer <= bounds.answer, `a 32 MiB answer: peak grew by ${answer.toFixed(2)} × its size`);
    const echo = await peakGrowth("echo", { text: "e".repeat(16 * MiB) }, 16);
    assert.ok(echo <= bounds.echo, `a 16 MiB echo: peak grew by ${echo.toFixed(2)} × its size`);
  });
});
