// nodeWrite, the write function of stdout, stderr and sockets on Node: it settles once the bytes left the
// process, whether the OS took them at once (no callback is asked for then) or they waited behind a full
// socket, and it rejects a write that fails. Real TCP sockets on both runtimes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import { nodeWrite } from "../../lib/runtime/stdio.ts";

/** A connected pair of sockets on the loopback interface; `close` ends both and the server. */
async function socketPair(): Promise<{ client: Socket; peer: Socket; close: () => Promise<void> }> {
  const { connect } = await import("node:net");
  const server: Server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const client = connect(port, "127.0.0.1");
  client.on("error", () => {});
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  const peer = await accepted;
  peer.on("error", () => {});
  return {
    client,
    peer,
    close: async () => {
      client.destroy();
      peer.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether `promise` has settled after the pending I/O callbacks have run. */
async function settledSoon(promise: Promise<unknown>, ms = 200): Promise<boolean> {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

function collect(socket: Socket): () => number {
  let bytes = 0;
  socket.on("data", (chunk: Uint8Array) => (bytes += chunk.length));
  return () => bytes;
}

describe("nodeWrite", () => {
  it("settles a small write at once and the peer gets every byte", async () => {
    const { client, peer, close } = await socketPair();
    try {
      const received = collect(peer);
      const write = nodeWrite(client);
      for (let i = 0; i < 100; i++) await write(`line ${i}\n`);
      await write(new Uint8Array([0x61, 0x0a]));
      const expected = Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join("").length + 2;
      while (received() < expected) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(received(), expected);
    } finally {
      await close();
    }
  });

  it("settles a write queued behind a full socket only once the peer has read it", async () => {
    const { client, peer, close } = await socketPair();
    try {
      peer.pause();
      const write = nodeWrite(client);
      const big = "x".repeat(16 * 1024 * 1024);
      const first = write(big);
      // The peer reads nothing: 16 MiB cannot all be in the kernel's buffers, so the write is still queued.
      assert.equal(await settledSoon(first), false, "a queued write settled before the peer read it");
      const second = write("tail\n");
      assert.equal(await settledSoon(second, 50), false);
      const received = collect(peer);
      peer.resume();
      await first;
      await second;
      const expected = big.length + 5;
      while (received() < expected) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(received(), expected);
    } finally {
      await close();
    }
  });

  it("rejects a write to a socket that was destroyed, and every write after it", async () => {
    const { client, close } = await socketPair();
    try {
      const write = nodeWrite(client);
      await write("before\n");
      client.destroy();
      await assert.rejects(write("after\n"));
      await assert.rejects(write("again\n"));
    } finally {
      await close();
    }
  });

  it("rejects a write the stream fails, whether it fails at once or later", async () => {
    const failAt = (sync: boolean) =>
      new Writable({
        write(_chunk, _encoding, callback) {
          const fail = () => callback(new Error("disk full"));
          if (sync) fail();
          else setTimeout(fail, 10);
        },
      }).on("error", () => {});
    await assert.rejects(nodeWrite(failAt(true))("a\n"), /disk full/);
    await assert.rejects(nodeWrite(failAt(false))("a\n"), /disk full/);
  });

  it("waits for the callback of a stream that does not report what it holds", async () => {
    const calls: string[] = [];
    let finish!: () => void;
    const stream = {
      write(data: string, callback: (error?: Error | null) => void) {
        calls.push(data);
        finish = () => callback();
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const written = nodeWrite(stream)("only\n");
    assert.equal(await settledSoon(written, 20), false);
    finish();
    await written;
    assert.deepEqual(calls, ["only\n"]);
  });
});
