// subscriptions/listen (2026-07-28) and legacy list_changed, driven line by line in process over a stream
// channel — the read loop the real process runs — against a catalog whose tool list changes on demand.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { serveMcp } from "../../lib/protocol/mcp/line_transport.ts";
import type { McpTool, ToolCatalog } from "../../lib/protocol/mcp/tool_catalog.ts";
import { streamChannel } from "../../lib/runtime/stream_channel.ts";
import { initialize, modern } from "../helpers/mcp_wire.ts";
import { Inbox } from "../helpers/inbox.ts";
import type { Loose } from "../helpers/run.ts";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** A catalog whose tools the test replaces; `watch` present unless `fixed`. */
function changingCatalog(
  fixed = false,
): { catalog: ToolCatalog; set(names: string[]): void; watchers(): number } {
  let tools: McpTool[] = [{ name: "first", inputSchema: { type: "object" } }];
  const listeners = new Set<() => void>();
  const catalog: ToolCatalog = {
    tools: () => tools,
    call: () => Promise.resolve({ kind: "result", result: { content: [{ type: "text", text: "ok" }] } }),
    ...(fixed ? {} : {
      watch: (onChange: () => void) => {
        listeners.add(onChange);
        return () => listeners.delete(onChange);
      },
    }),
  };
  return {
    catalog,
    set(names) {
      tools = names.map((name) => ({ name, inputSchema: { type: "object" } }));
      for (const listener of listeners) listener();
    },
    watchers: () => listeners.size,
  };
}

/** An in-process session: lines in, parsed lines out. */
function session(catalog: ToolCatalog) {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const inbox = new Inbox<Loose>();
  let pending = "";
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline !== -1) {
        inbox.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    },
  });
  const done = serveMcp({ channel: streamChannel(input.readable, output) }, {
    serverInfo: { name: "subs", version: "1.0.0" },
    catalog,
  });
  const encoder = new TextEncoder();
  return {
    send: (message: unknown) => writer.write(encoder.encode(`${JSON.stringify(message)}\n`)),
    next: () => inbox.next(5_000),
    unread: () => inbox.unread(),
    close: async () => {
      await writer.close();
      await done;
    },
  };
}

describe("mcp subscriptions/listen", () => {
  it("acknowledges first, tags each list_changed with the subscription id, and ends with a complete result at EOF", async () => {
    const { catalog, set, watchers } = changingCatalog();
    const s = session(catalog);
    await s.send(modern("d", "server/discover"));
    assert.deepEqual((await s.next()).result.capabilities.tools, { listChanged: true });
    await s.send(
      modern("sub-1", "subscriptions/listen", {
        notifications: { toolsListChanged: true, promptsListChanged: true },
      }),
    );
    const ack = await s.next();
    assert.equal(ack.method, "notifications/subscriptions/acknowledged");
    assert.equal(ack.params._meta[SUBSCRIPTION_ID], "sub-1");
    assert.deepEqual(
      ack.params.notifications,
      { toolsListChanged: true },
      "prompts are not served, so not honoured",
    );
    set(["first", "second"]);
    const changed = await s.next();
    assert.equal(changed.method, "notifications/tools/list_changed");
    assert.equal(changed.params._meta[SUBSCRIPTION_ID], "sub-1");
    await s.send(modern(2, "tools/list"));
    assert.deepEqual((await s.next()).result.tools.map((tool: { name: string }) => tool.name), [
      "first",
      "second",
    ]);
    // The subscription holds no slot and does not keep the session open.
    await s.close();
    const final = await s.next();
    assert.equal(final.id, "sub-1");
    assert.equal(final.result.resultType, "complete");
    assert.equal(final.result._meta[SUBSCRIPTION_ID], "sub-1");
    assert.equal(watchers(), 0, "the server stopped watching the catalog");
  });

  it("notifications/cancelled ends a subscription: nothing more is sent for it, no final result", async () => {
    const { catalog, set } = changingCatalog();
    const s = session(catalog);
    await s.send(modern(7, "subscriptions/listen", { notifications: { toolsListChanged: true } }));
    assert.equal((await s.next()).method, "notifications/subscriptions/acknowledged");
    await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
    await s.send(modern(8, "ping"));
    assert.equal((await s.next()).id, 8, "the cancel was handled before the next request");
    set(["other"]);
    await s.send(modern(9, "tools/list"));
    assert.equal((await s.next()).id, 9, "no list_changed for a cancelled subscription");
    await s.close();
    assert.deepEqual(s.unread(), [], "no final result for a cancelled subscription");
  });

  it("refuses bad filters, a reused id and too many subscriptions; a fixed catalog honours nothing", async () => {
    const s = session(changingCatalog(true).catalog);
    await s.send(modern("d", "server/discover"));
    assert.deepEqual((await s.next()).result.capabilities.tools, {});
    await s.send(modern(1, "subscriptions/listen", { notifications: "all" }));
    assert.equal((await s.next()).error.code, -32602);
    await s.send(modern(2, "subscriptions/listen", { notifications: { toolsListChanged: true } }));
    assert.deepEqual((await s.next()).params.notifications, {});
    await s.send(modern(2, "subscriptions/listen", { notifications: {} }));
    assert.equal((await s.next()).error.code, -32600, "id 2 is still open");
    for (let i = 3; i < 18; i++) {
      await s.send(modern(i, "subscriptions/listen", { notifications: {} }));
      assert.equal((await s.next()).method, "notifications/subscriptions/acknowledged");
    }
    await s.send(modern(99, "subscriptions/listen", { notifications: {} }));
    assert.equal((await s.next()).error.code, -32602, "the 17th subscription is refused");
    await s.close();
  });

  it("legacy: the listChanged capability and unsolicited notifications/tools/list_changed", async () => {
    const { catalog, set } = changingCatalog();
    const s = session(catalog);
    await s.send(initialize(0));
    assert.deepEqual((await s.next()).result.capabilities.tools, { listChanged: true });
    set(["renamed"]);
    const changed = await s.next();
    assert.equal(changed.method, "notifications/tools/list_changed");
    assert.equal("id" in changed, false);
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true } },
    });
    assert.equal((await s.next()).error.code, -32601, "legacy connections have no subscriptions/listen");
    await s.close();
  });
});
