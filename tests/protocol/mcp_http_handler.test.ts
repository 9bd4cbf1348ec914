// The HTTP handler API of `toolwire/mcp`, mounted the ways docs/mcp_http.md shows, with a catalog of its own:
// `nodeListener(endpoint.handle)` in a node:http server of one's own, and the web-standard `mcpHttpHandler`
// (`endpoint.fetch`) — under `Deno.serve` on Deno, called with `Request`s on both runtimes — each driven by
// the SDK v2 client or raw requests: a call's progress streams, and cancelling the response body fires the
// call's signal.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  McpHttpEndpoint,
  mcpHttpHandler,
  type McpHttpOptions,
  nodeListener,
  type ToolCatalog,
} from "../../lib/protocol/mcp/mod.ts";
import { modernHeaders, sseMessages } from "../helpers/http_listener.ts";
import { modern } from "../helpers/mcp_wire.ts";

/** Two tools: `count` reports progress to 3; `wait` waits until cancelled, and says so. */
function catalog(cancelled: string[]): ToolCatalog {
  return {
    tools: () => [
      { name: "count", inputSchema: { type: "object" } },
      { name: "wait", inputSchema: { type: "object" } },
    ],
    call: async (call, context) => {
      if (call.name === "count") {
        for (let step = 1; step <= 3; step++) context.progress({ progress: step, total: 3 });
        return { kind: "result", result: { content: [{ type: "text", text: "counted" }] } };
      }
      if (call.name !== "wait") return { kind: "unknown_tool" };
      context.log("info", "waiting");
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
      cancelled.push(String(context.signal.reason));
      return { kind: "result", result: { content: [{ type: "text", text: "cancelled" }] } };
    },
  };
}

const options = (cancelled: string[]): McpHttpOptions => ({
  serverInfo: { name: "handler-test", version: "1.0.0" },
  catalog: catalog(cancelled),
});

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The SDK v2 client, pinned to 2026-07-28, through list and a call with progress. */
async function driveWithSdk(url: string): Promise<void> {
  const client = new Client({ name: "handler-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["count", "wait"]);
    const progress: number[] = [];
    const result = await client.callTool({ name: "count", arguments: {} }, {
      onprogress: (update) => void progress.push(update.progress),
    });
    assert.deepEqual(result.content, [{ type: "text", text: "counted" }]);
    assert.deepEqual(progress, [1, 2, 3]);
  } finally {
    await client.close();
  }
}

const deno = (globalThis as {
  Deno?: {
    serve(
      options: { port: number; hostname: string; onListen(): void },
      handler: (request: Request) => Promise<Response>,
    ): { addr: { port: number }; shutdown(): Promise<void> };
  };
}).Deno;

describe("mounting the MCP HTTP handler in a server of one's own", () => {
  it("nodeListener(endpoint.handle) in a node:http server", async () => {
    const endpoint = new McpHttpEndpoint(options([]));
    const server = createServer(nodeListener(endpoint.handle));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      await driveWithSdk(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    } finally {
      await endpoint.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it(
    "mcpHttpHandler under Deno.serve",
    { skip: deno === undefined ? "Deno.serve is Deno's" : false },
    async () => {
      const server = deno!.serve(
        { port: 0, hostname: "127.0.0.1", onListen: () => {} },
        mcpHttpHandler(options([])),
      );
      try {
        await driveWithSdk(`http://127.0.0.1:${server.addr.port}/mcp`);
      } finally {
        await server.shutdown();
      }
    },
  );

  it("endpoint.fetch tells clients apart by the remoteAddr Deno.serve passes: a listen stream over a client's bound is 429", async () => {
    const endpoint = new McpHttpEndpoint({
      ...options([]),
      maxSubscriptions: 3,
      maxSubscriptionsPerClient: 1,
    });
    const listen = (id: number, hostname?: string) =>
      endpoint.fetch(
        new Request("http://127.0.0.1:7010/mcp", {
          method: "POST",
          headers: modernHeaders("subscriptions/listen"),
          body: JSON.stringify(modern(id, "subscriptions/listen", { notifications: {} })),
        }),
        hostname === undefined ? undefined : { remoteAddr: { hostname } },
      );
    const open: Response[] = [];
    try {
      open.push(await listen(1, "10.0.0.1"));
      const refused = await listen(2, "10.0.0.1");
      open.push(await listen(3, "10.0.0.2"));
      open.push(await listen(4));
      const full = await listen(5, "10.0.0.3");
      assert.deepEqual(open.map((response) => response.status), [200, 200, 200]);
      assert.deepEqual([refused.status, refused.headers.get("retry-after")], [429, "5"]);
      assert.match(
        ((await refused.json()) as { error: { message: string } }).error.message,
        /10\.0\.0\.1 has 1/,
      );
      assert.equal(full.status, 503, await full.text());
    } finally {
      for (const response of open) await response.body?.cancel();
      await endpoint.close();
    }
  });

  it("endpoint.fetch answers Requests: JSON, a progress stream, and a cancelled body fires the call's signal", async () => {
    const cancelled: string[] = [];
    const endpoint = new McpHttpEndpoint(options(cancelled));
    const ask = (body: unknown, method: string, name?: string) =>
      endpoint.fetch(
        new Request("http://127.0.0.1:7010/mcp", {
          method: "POST",
          headers: modernHeaders(method, name),
          body: JSON.stringify(body),
        }),
      );
    const listed = await ask(modern(1, "tools/list"), "tools/list");
    assert.equal(listed.status, 200);
    assert.equal(((await listed.json()) as { result: { tools: unknown[] } }).result.tools.length, 2);
    const counted = await ask(
      modern(2, "tools/call", { name: "count", arguments: {} }, { progressToken: "t" }),
      "tools/call",
      "count",
    );
    assert.equal(counted.headers.get("x-accel-buffering"), "no");
    const { messages } = sseMessages(await counted.text());
    assert.deepEqual(messages.map((message) => message.method ?? message.id), [
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      2,
    ]);
    const waiting = await ask(
      modern(3, "tools/call", { name: "wait", arguments: {} }, {
        "io.modelcontextprotocol/logLevel": "info",
      }),
      "tools/call",
      "wait",
    );
    const reader = waiting.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /waiting/);
    await reader.cancel();
    await waitFor(() => cancelled.length === 1, "the call's signal");
    assert.match(cancelled[0]!, /closed/);
    assert.equal((await endpoint.fetch(new Request("http://127.0.0.1:7010/mcp"))).status, 405);
    await endpoint.close();
  });
});
