// A client that asked for log notifications and stops reading must not grow the server without bound: a
// call's notifications wait for the client up to MAX_QUEUED_NOTIFICATION_BYTES, then are dropped and counted
// on stderr. Driven in process over a stream channel whose reader is held back, as a client that does not read.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { serveMcp } from "../../lib/protocol/mcp/line_transport.ts";
import { MAX_QUEUED_NOTIFICATION_BYTES } from "../../lib/protocol/mcp/notification_budget.ts";
import type { ToolCatalog } from "../../lib/protocol/mcp/tool_catalog.ts";
import { streamChannel } from "../../lib/runtime/stream_channel.ts";

const encoder = new TextEncoder();
const LINE = "x".repeat(1024);
const LOGS = 20_000; // 20 MB of log lines, five times the bound

describe("a call's log notifications to a client that does not read", () => {
  it("queue up to the bound, then are dropped and counted; the call is still answered", async () => {
    const catalog: ToolCatalog = {
      tools: () => [{ name: "chatty", inputSchema: { type: "object" } }],
      call: (_call, context) => {
        for (let i = 0; i < LOGS; i++) context.log("info", LINE);
        return Promise.resolve({ kind: "result", result: { content: [{ type: "text", text: "done" }] } });
      },
    };
    let release!: () => void;
    const reading = new Promise<void>((resolve) => (release = resolve));
    let bytes = 0;
    let notifications = 0;
    const lines: string[] = [];
    let pending = "";
    const decoder = new TextDecoder();
    const output = new WritableStream<Uint8Array>({
      async write(chunk) {
        // The client reads nothing until the call has logged everything.
        await reading;
        bytes += chunk.length;
        pending += decoder.decode(chunk, { stream: true });
        const parts = pending.split("\n");
        pending = parts.pop()!;
        for (const part of parts) {
          if (part.includes('"notifications/message"')) notifications++;
          else lines.push(part);
        }
      },
    }, { highWaterMark: 1 });
    const input = new TransformStream<Uint8Array, Uint8Array>();
    const writer = input.writable.getWriter();
    const log: string[] = [];
    const done = serveMcp({ channel: streamChannel(input.readable, output), log: (line) => log.push(line) }, {
      serverInfo: { name: "chatty", version: "1.0.0" },
      catalog,
    });
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/logLevel": "debug",
    };
    await writer.write(encoder.encode(
      `${
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "chatty", _meta: meta },
        })
      }\n`,
    ));
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await writer.close();
    await done;
    const answer = lines.map((line) => JSON.parse(line)).find((message) => message.id === 1);
    assert.equal(answer?.result?.content?.[0]?.text, "done", "the call is answered after its notifications");
    assert.ok(notifications > 0, "notifications up to the bound are delivered");
    assert.ok(notifications < LOGS, `some notifications are dropped (${notifications} of ${LOGS} delivered)`);
    assert.ok(
      bytes < MAX_QUEUED_NOTIFICATION_BYTES + 64 * 1024,
      `at most the bound was queued for the client: ${bytes} bytes written`,
    );
    const dropped = log.find((line) => /dropped \d+ progress or log notification/.test(line));
    assert.ok(dropped !== undefined, `the drop is counted on stderr: ${log.join(" | ")}`);
    assert.equal(
      Number(/dropped (\d+)/.exec(dropped)![1]) + notifications,
      LOGS,
      "every notification is counted",
    );
  });
});
