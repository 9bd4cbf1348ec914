// What a few clients can hold of an HTTP endpoint, `notes mcp listen` spawned for real and driven over raw
// sockets: subscriptions/listen streams stay within half the connections and within a bound per client
// address (429 over an address's, 503 over the endpoint's, each with Retry-After and a JSON-RPC error), so
// that requests are still answered; connections whose headers trickle in byte by byte give way to a new
// connection at the connection bound; and when every connection is working, one more is answered 503, not
// reset. Each client address is a 127.x.y.z address of its own (Linux routes all of 127/8 to loopback).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { modern } from "../helpers/mcp_wire.ts";
import {
  HTTP_SERVERS,
  type HttpListener,
  modernHeaders,
  openListen,
  portOf,
  post,
  rawHttp,
  type RawListen,
  startHttpListener,
} from "../helpers/http_listener.ts";

/** 8 connections: at most 4 listen streams, 2 per client address. */
const FLAGS = ["--max-connections", "8"];

/** A `tools/list`'s status; a 200 must list tools. */
async function toolsList(url: string): Promise<number> {
  const answer = await post(url, modern(1, "tools/list"), modernHeaders("tools/list"));
  if (answer.status === 200) assert.ok(Array.isArray(answer.json.result.tools), answer.text);
  return answer.status;
}

function assertRefused(listen: RawListen, status: number, id: number): void {
  assert.equal(listen.status, status, listen.body);
  assert.match(listen.headers["content-type"] ?? "", /^application\/json/);
  assert.ok(Number(listen.headers["retry-after"]) >= 1, JSON.stringify(listen.headers));
  const body = JSON.parse(listen.body);
  assert.equal(body.id, id);
  assert.equal(body.error.code, -32603);
  assert.match(body.error.message, /Too many listen streams/);
}

function assertOpen(listen: RawListen): void {
  assert.equal(listen.status, 200, listen.body);
  assert.equal(listen.headers["content-type"], "text/event-stream");
  assert.match(listen.body, /notifications\/subscriptions\/acknowledged/);
}

describe("listen streams without authentication: per client address, and half the connections", () => {
  let listener: HttpListener;
  const open: RawListen[] = [];
  before(async () => {
    listener = await startHttpListener(HTTP_SERVERS[0].argv, { flags: FLAGS });
  });
  after(async () => {
    await Promise.all(open.map((listen) => listen.close()));
    const result = await listener.stop();
    assert.equal(result.code, 143, result.stderr);
    assert.doesNotMatch(listener.stderr(), /\n\s+at \S/, listener.stderr());
  });

  it("an address gets 2 streams then 429; another address 2 more; then 503 for anyone; requests still answered", async () => {
    for (const id of [1, 2]) {
      const listen = await openListen(listener.url, { id });
      open.push(listen);
      assertOpen(listen);
    }
    const refused = await openListen(listener.url, { id: 3 });
    open.push(refused);
    assertRefused(refused, 429, 3);
    for (const id of [4, 5]) {
      const listen = await openListen(listener.url, { id, localAddress: "127.0.0.2" });
      open.push(listen);
      assertOpen(listen);
    }
    const unavailable = await openListen(listener.url, { id: 6, localAddress: "127.0.0.3" });
    open.push(unavailable);
    assertRefused(unavailable, 503, 6);
    for (let i = 0; i < 10; i++) assert.equal(await toolsList(listener.url), 200);
    // A closed stream gives its place back.
    await open.shift()!.close();
    let reopened: RawListen | undefined;
    for (let tries = 0; tries < 50 && reopened?.status !== 200; tries++) {
      if (reopened !== undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      reopened = await openListen(listener.url, { id: 7 });
      open.push(reopened);
    }
    assertOpen(reopened!);
  });
});

/** Opens a connection from 127.0.0.2 that sends its headers one byte at a time, and never finishes them. */
function trickle(port: number, onClose: () => void): Socket {
  const socket = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.2" });
  const text = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-slow: " +
    "a".repeat(4096);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < text.length) socket.write(text[sent++]!);
  }, 50);
  socket.on("error", () => {});
  socket.on("close", () => {
    clearInterval(timer);
    onClose();
  });
  return socket;
}

describe("connections whose headers trickle in", () => {
  let listener: HttpListener;
  before(async () => {
    // A header limit far beyond the test: what frees the slots is not the limit.
    listener = await startHttpListener(HTTP_SERVERS[0].argv, { flags: [...FLAGS, "--header-timeout", "60"] });
  });
  after(async () => {
    const result = await listener.stop();
    assert.equal(result.code, 143, result.stderr);
  });

  it("3x the connection bound trickling headers from one address, reconnecting when closed: every request from another is answered", async () => {
    const port = portOf(listener.url);
    const sockets = new Set<Socket>();
    let stopped = false;
    let closedByServer = 0;
    const attack = () => {
      const socket = trickle(port, () => {
        sockets.delete(socket);
        if (stopped) return;
        closedByServer++;
        setTimeout(attack, 5);
      });
      sockets.add(socket);
    };
    for (let i = 0; i < 24; i++) attack();
    await new Promise((resolve) => setTimeout(resolve, 500));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push(await toolsList(listener.url));
      assert.deepEqual(statuses, Array(30).fill(200));
      assert.ok(closedByServer > 0, "trickling connections gave way");
    } finally {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe("every connection working", () => {
  let listener: HttpListener;
  before(async () => {
    listener = await startHttpListener(HTTP_SERVERS[0].argv, { flags: FLAGS });
  });
  after(async () => {
    const result = await listener.stop();
    assert.equal(result.code, 143, result.stderr);
  });

  it("4 streams and 4 requests whose body is on its way hold all 8 connections: one more is answered 503", async () => {
    const streams: RawListen[] = [];
    for (
      const [id, localAddress] of [[1, "127.0.0.1"], [2, "127.0.0.1"], [3, "127.0.0.2"], [4, "127.0.0.2"]]
    ) {
      streams.push(
        await openListen(listener.url, { id: id as number, localAddress: localAddress as string }),
      );
    }
    for (const listen of streams) assertOpen(listen);
    const port = portOf(listener.url);
    const pending: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
      );
      pending.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      const refused = await rawHttp(
        port,
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n",
      );
      assert.match(refused.reply, /^HTTP\/1\.1 503 /, JSON.stringify(refused));
      assert.match(refused.reply, /\r\nRetry-After: 1\r\n/i);
      assert.ok(refused.closed);
    } finally {
      for (const socket of pending) socket.destroy();
      await Promise.all(streams.map((listen) => listen.close()));
    }
    // Once the server has seen their connections close (until then: 503), requests are answered again.
    let status = await toolsList(listener.url);
    for (let tries = 0; tries < 50 && status === 503; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await toolsList(listener.url);
    }
    assert.equal(status, 200);
  });
});
