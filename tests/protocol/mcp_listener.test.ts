// MCP on a listening socket (listenMcp): many clients at once, each its own session and era, with no
// cross-talk; the per-connection and the global in-flight bounds; a closed connection cancels its calls; close()
// lets open calls finish within the grace period and cancels the rest. Real sockets, Unix and TCP.
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { listenMcp } from "../../lib/protocol/mcp/mcp_listener.ts";
import type { ToolCallContext, ToolCatalog } from "../../lib/protocol/mcp/tool_catalog.ts";
import { connectSocket, type SocketAddress, type SocketConnection } from "../../lib/runtime/socket.ts";
import { initialize, modern } from "../helpers/mcp_wire.ts";
import { Inbox } from "../helpers/inbox.ts";
import { type Loose, tempDir } from "../helpers/run.ts";

/** A catalog with `echo {text}` and `wait {ms}`, recording how many calls ran at once and which were cancelled. */
function labCatalog() {
  let running = 0;
  const stats = { peak: 0, cancelled: 0, finished: 0 };
  const catalog: ToolCatalog = {
    tools: () => [{ name: "echo", inputSchema: { type: "object" } }, {
      name: "wait",
      inputSchema: { type: "object" },
    }],
    async call(call, context: ToolCallContext) {
      if (call.name === "echo") {
        return { kind: "result", result: { content: [{ type: "text", text: String(call.arguments.text) }] } };
      }
      stats.peak = Math.max(stats.peak, ++running);
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, Number(call.arguments.ms));
          context.cancellation.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("cancelled"));
          });
        });
        stats.finished++;
        return { kind: "result", result: { content: [{ type: "text", text: "waited" }] } };
      } catch {
        stats.cancelled++;
        return { kind: "result", result: { content: [{ type: "text", text: "cancelled" }], isError: true } };
      } finally {
        running--;
      }
    },
  };
  return { catalog, stats };
}

/** A line client over one connection. */
async function client(address: SocketAddress) {
  const connection: SocketConnection = await connectSocket(address);
  const inbox = new Inbox<Loose>();
  const decoder = new TextDecoder();
  let pending = "";
  const reading = (async () => {
    for (let chunk = await connection.read(); chunk !== null; chunk = await connection.read()) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline !== -1) {
        inbox.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    }
  })();
  return {
    send: (message: unknown) => connection.write(`${JSON.stringify(message)}\n`),
    async request(message: Record<string, unknown>): Promise<Loose> {
      await connection.write(`${JSON.stringify(message)}\n`);
      return await inbox.next(10_000);
    },
    next: () => inbox.next(10_000),
    close: async () => {
      connection.close();
      await reading;
    },
  };
}

const serverInfo = { name: "sockets", version: "1.0.0" };
const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((cleanup) => cleanup()));

function unixAddress(): SocketAddress {
  const dir = tempDir("toolwire-sock-");
  cleanups.push(dir.cleanup);
  return { kind: "unix", path: join(dir.path, "mcp.sock") };
}

describe("listenMcp", () => {
  for (const kind of ["unix", "tcp"] as const) {
    it(`50 concurrent ${kind} clients each complete a session of their own, in either era, with no cross-talk`, async () => {
      const { catalog } = labCatalog();
      const requested: SocketAddress = kind === "unix"
        ? unixAddress()
        : { kind: "tcp", host: "127.0.0.1", port: 0 };
      const listener = await listenMcp(requested, { serverInfo, catalog });
      try {
        await Promise.all(Array.from({ length: 50 }, async (_, n) => {
          const c = await client(listener.address);
          const legacy = n % 2 === 0;
          if (legacy) assert.equal((await c.request(initialize(0))).result.serverInfo.name, "sockets");
          const call = (id: number, text: string) =>
            legacy
              ? { jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text } } }
              : modern(id, "tools/call", { name: "echo", arguments: { text } });
          for (let i = 1; i <= 5; i++) {
            const answer = await c.request(call(i, `client ${n} call ${i}`));
            assert.equal(answer.id, i);
            assert.equal(answer.result.content[0].text, `client ${n} call ${i}`);
            assert.equal("resultType" in answer.result, !legacy, "each connection keeps its own era");
          }
          await c.close();
        }));
      } finally {
        await listener.close();
      }
      assert.equal(listener.connections, 0);
    });
  }

  it("holds the per-connection and the global in-flight bounds", async () => {
    const { catalog, stats } = labCatalog();
    const listener = await listenMcp(unixAddress(), {
      serverInfo,
      catalog,
      maxInFlight: 3,
      maxInFlightTotal: 5,
    });
    try {
      const one = await client(listener.address);
      for (let i = 0; i < 8; i++) {
        await one.send(modern(i, "tools/call", { name: "wait", arguments: { ms: 30 } }));
      }
      for (let i = 0; i < 8; i++) await one.next();
      assert.equal(stats.peak, 3, "one connection runs at most --max-in-flight calls at once");
      stats.peak = 0;
      const many = await Promise.all(Array.from({ length: 4 }, () => client(listener.address)));
      await Promise.all(many.map(async (c) => {
        for (let i = 0; i < 6; i++) {
          await c.send(modern(i, "tools/call", { name: "wait", arguments: { ms: 30 } }));
        }
        for (let i = 0; i < 6; i++) await c.next();
      }));
      assert.equal(stats.peak, 5, "all connections together run at most the global bound");
      await Promise.all([one, ...many].map((c) => c.close()));
    } finally {
      await listener.close();
    }
  });

  it("a connection the client closes has its open calls cancelled", async () => {
    const { catalog, stats } = labCatalog();
    const listener = await listenMcp(unixAddress(), { serverInfo, catalog });
    try {
      const c = await client(listener.address);
      await c.send(modern(1, "tools/call", { name: "wait", arguments: { ms: 30_000 } }));
      while (stats.peak === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await c.close();
      while (listener.connections > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(stats.cancelled, 1);
    } finally {
      await listener.close();
    }
  });

  it("close() lets open calls finish within the grace period and cancels the rest", async () => {
    const { catalog, stats } = labCatalog();
    const listener = await listenMcp(unixAddress(), { serverInfo, catalog });
    const c = await client(listener.address);
    await c.send(modern(1, "tools/call", { name: "wait", arguments: { ms: 50 } }));
    await c.send(modern(2, "tools/call", { name: "wait", arguments: { ms: 30_000 } }));
    while (stats.peak < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await listener.close(300);
    const first = await c.next();
    assert.equal(first.id, 1);
    assert.equal(first.result.content[0].text, "waited", "a call that ends within the grace period answers");
    assert.equal(stats.cancelled, 1, "a call that outlives the grace period is cancelled");
    await assert.rejects(connectSocket(listener.address), "no more connections are accepted");
    await c.close();
  });
});
