// MCP on a listening socket (listenMcp): many clients at once, each its own session and era, with no
// cross-talk; the per-connection and the global in-flight bounds; a half-closed connection is answered, a reset
// one cancelled; the bytes of unfinished messages bounded over all connections; idle connections closed; close()
// lets open calls finish within the grace period and cancels the rest, saying why. Real sockets, Unix and TCP.
import { createConnection, type Socket } from "node:net";
import { join } from "node:path";
import process from "node:process";
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
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw TCP client: its socket, and everything the server sent once the server closed its side. */
function rawSocket(port: number): Promise<{ socket: Socket; ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("utf8")));
    socket.on("error", () => {});
    const ended = new Promise<string>((done) => socket.once("close", () => done(received)));
    socket.once("connect", () => resolve({ socket, ended }));
    socket.once("error", reject);
  });
}
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

  it("a client that half-closes still gets the answers to what it sent; one that resets has its calls cancelled", async () => {
    const { catalog, stats } = labCatalog();
    const listener = await listenMcp({ kind: "tcp", host: "127.0.0.1", port: 0 }, { serverInfo, catalog });
    try {
      const port = (listener.address as { port: number }).port;
      // Half-close, as `nc -N` and socat do: the request, then shutdown(SHUT_WR).
      const half = await rawSocket(port);
      half.socket.end(
        `${JSON.stringify(modern(1, "tools/call", { name: "wait", arguments: { ms: 200 } }))}\n`,
      );
      const answer = JSON.parse((await half.ended).trim());
      assert.equal(answer.id, 1);
      assert.equal(
        answer.result.content[0].text,
        "waited",
        "the call sent before the half-close is answered",
      );
      assert.equal(stats.cancelled, 0);
      // A reset: the client is gone, so its call is cancelled rather than answered to nobody.
      const reset = await rawSocket(port);
      reset.socket.write(
        `${JSON.stringify(modern(2, "tools/call", { name: "wait", arguments: { ms: 30_000 } }))}\n`,
      );
      while (stats.peak < 1 || listener.connections < 1) await delay(5);
      await delay(50);
      reset.socket.resetAndDestroy();
      const deadline = Date.now() + 10_000;
      while (stats.cancelled < 1 && Date.now() < deadline) await delay(10);
      assert.equal(stats.cancelled, 1, "the reset connection's call is cancelled");
    } finally {
      await listener.close();
    }
  });

  it("bounds the bytes of unfinished messages over all connections", async () => {
    const { catalog } = labCatalog();
    const listener = await listenMcp({ kind: "tcp", host: "127.0.0.1", port: 0 }, {
      serverInfo,
      catalog,
      maxBufferedBytes: 1024 * 1024,
    });
    try {
      const port = (listener.address as { port: number }).port;
      const text = "x".repeat(700 * 1024);
      const line = JSON.stringify(modern(1, "tools/call", { name: "echo", arguments: { text } }));
      const first = await rawSocket(port);
      const second = await rawSocket(port);
      // The first connection holds ~700 KiB of an unfinished line; the second's as long a line finds no room.
      first.socket.write(line.slice(0, line.length - 10));
      await delay(200);
      second.socket.end(`${line}\n`);
      const refused = JSON.parse((await second.ended).trim());
      assert.equal(refused.error?.code, -32600);
      assert.match(refused.error.message, /buffer for unfinished messages was full/);
      // Its bytes given back, the first connection's line is served whole.
      first.socket.end(`${line.slice(line.length - 10)}\n`);
      const served = JSON.parse((await first.ended).trim());
      assert.equal(served.result.content[0].text.length, text.length);
    } finally {
      await listener.close();
    }
  });

  it("closes a connection that sends nothing for the idle time, unless a call is in flight", async () => {
    const { catalog } = labCatalog();
    const log: string[] = [];
    const listener = await listenMcp({ kind: "tcp", host: "127.0.0.1", port: 0 }, {
      serverInfo,
      catalog,
      idleTimeoutMs: 300,
      log: (line) => log.push(line),
    });
    try {
      const port = (listener.address as { port: number }).port;
      const idle = await rawSocket(port);
      const busy = await rawSocket(port);
      busy.socket.write(
        `${JSON.stringify(modern(1, "tools/call", { name: "wait", arguments: { ms: 900 } }))}\n`,
      );
      const started = Date.now();
      assert.equal(await idle.ended, "", "the idle connection is closed with nothing sent");
      assert.ok(Date.now() - started < 3_000);
      const answer = JSON.parse((await busy.ended).split("\n")[0]!);
      assert.equal(answer.result.content[0].text, "waited", "a connection with a call in flight is not idle");
      assert.ok(log.some((line) => /nothing arrived for 0.3 s/.test(line)), log.join(" | "));
    } finally {
      await listener.close();
    }
  });

  it("many connections raise no MaxListenersExceededWarning, and a closing listener says why calls end", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    const { catalog } = labCatalog();
    const reasons: string[] = [];
    let started = 0;
    const listener = await listenMcp(unixAddress(), {
      serverInfo,
      catalog: {
        ...catalog,
        call: (call, context) => {
          started++;
          context.cancellation.addEventListener(
            "abort",
            () => reasons.push(String(context.cancellation.reason)),
          );
          return catalog.call(call, context);
        },
      },
    });
    const clients = await Promise.all(Array.from({ length: 24 }, () => client(listener.address)));
    await Promise.all(
      clients.map((c, n) => c.send(modern(n, "tools/call", { name: "wait", arguments: { ms: 30_000 } }))),
    );
    // A connection the kernel queued but the listener had not accepted when it closes is refused (reset):
    // close only once every call runs.
    while (started < 24) await delay(5);
    await listener.close(50);
    process.off("warning", onWarning);
    assert.deepEqual(warnings.filter((w) => /MaxListeners/.test(w)), []);
    assert.equal(reasons.length, 24);
    assert.ok(reasons.every((reason) => /the server is shutting down/.test(reason)), reasons[0]);
    // Each client hears its call end: answered once, as a cancelled tool call.
    const answers = await Promise.all(clients.map((c) => c.next()));
    assert.deepEqual(
      answers.map((answer) => [answer.id, answer.result?.isError]),
      answers.map((_, n) => [n, true]),
    );
    await Promise.all(clients.map((c) => c.close()));
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
