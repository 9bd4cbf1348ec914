// serveLsp in process, with handlers written for each rule: cancellation, concurrency, ordering, errors.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type LspHandlers, LspResponseError, serveLsp } from "../../lib/protocol/lsp/mod.ts";
import { delay, InMemoryPeer } from "../helpers/protocol_io.ts";

const INITIALIZE = { jsonrpc: "2.0", id: 0, method: "initialize", params: { capabilities: {} } };
const request = (id: number | string, method: string, params?: object) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params ? { params } : {}),
});
const notification = (method: string, params?: object) => ({
  jsonrpc: "2.0",
  method,
  ...(params ? { params } : {}),
});

/** Starts serveLsp and answers initialize. */
async function serving(handlers: Partial<LspHandlers> = {}, options = {}) {
  const peer = new InMemoryPeer();
  const ended = serveLsp(peer.io, {
    initialize: () => ({ capabilities: { hoverProvider: true } }),
    ...handlers,
  }, options);
  peer.send(INITIALIZE);
  assert.deepEqual((await peer.next()).result, { capabilities: { hoverProvider: true } });
  return { peer, ended };
}

describe("serveLsp: lifecycle", () => {
  it("shutdown runs the hook and answers null; exit then resolves undefined", async () => {
    let hookRan = false;
    const { peer, ended } = await serving({ shutdown: () => void (hookRan = true) });
    peer.send(request(1, "shutdown"));
    assert.deepEqual(await peer.next(), { jsonrpc: "2.0", id: 1, result: null });
    assert.equal(hookRan, true);
    peer.send(notification("exit"));
    assert.equal(await ended, undefined);
  });

  it("a second initialize is an InvalidRequest", async () => {
    const { peer, ended } = await serving();
    peer.send(INITIALIZE);
    assert.equal((await peer.next()).error.code, -32600);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("exit before initialize ends with exit code 1: no shutdown came first", async () => {
    const peer = new InMemoryPeer();
    const ended = serveLsp(peer.io, { initialize: () => ({ capabilities: {} }) });
    peer.send(notification("exit"));
    assert.deepEqual(await ended, {
      exitCode: 1,
      code: "PROTOCOL_EXIT_WITHOUT_SHUTDOWN",
      message:
        "the client sent exit without a shutdown request first, so the server exits with 1 as LSP specifies",
    });
  });

  it("a failed initialize leaves the server uninitialized", async () => {
    const peer = new InMemoryPeer();
    let calls = 0;
    const ended = serveLsp(peer.io, {
      initialize: () => {
        if (++calls === 1) throw new LspResponseError(-32803, "not yet");
        return { capabilities: {} };
      },
    });
    peer.send(INITIALIZE);
    assert.equal((await peer.next()).error.message, "not yet");
    peer.send(request(1, "textDocument/hover"));
    assert.equal((await peer.next()).error.code, -32002);
    peer.send(INITIALIZE);
    assert.deepEqual((await peer.next()).result, { capabilities: {} });
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("stdin EOF waits for requests in progress, then resolves undefined", async () => {
    const { peer, ended } = await serving({ requests: { slow: async () => (await delay(100), "done") } });
    peer.send(request(1, "slow"));
    peer.end();
    assert.equal(await ended, undefined);
    assert.equal((await peer.next()).result, "done");
  });

  it("stdin EOF does not wait for a cancelled handler that ignores its signal", async () => {
    const { peer, ended } = await serving({ requests: { stubborn: () => new Promise(() => {}) } });
    peer.send(request(1, "stubborn"));
    peer.send(notification("$/cancelRequest", { id: 1 }));
    assert.equal((await peer.next()).error.code, -32800);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("the loop's signal ends the session at once and aborts every handler", async () => {
    let aborted = false;
    const { peer, ended } = await serving({
      requests: {
        hang: (_params, context) =>
          new Promise(() => context.signal.addEventListener("abort", () => (aborted = true))),
      },
    });
    peer.send(request(1, "hang"));
    await delay(20);
    peer.abort();
    assert.equal(await ended, undefined);
    assert.equal(aborted, true);
  });
});

describe("serveLsp: requests", () => {
  it("$/cancelRequest aborts the handler's signal and answers -32800 at once; the late result is dropped", async () => {
    let sawAbort = false;
    const { peer, ended } = await serving({
      requests: {
        slow: async (_params, context) => {
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
          sawAbort = true;
          return "late";
        },
      },
    });
    peer.send(request("a", "slow"));
    peer.send(notification("$/cancelRequest", { id: "a" }));
    assert.deepEqual(await peer.next(), {
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32800, message: "Request cancelled" },
    });
    peer.send(request(2, "shutdown"));
    assert.equal((await peer.next()).id, 2, "no second answer for the cancelled request");
    assert.equal(sawAbort, true);
    peer.send(notification("exit"));
    assert.equal(await ended, undefined);
  });

  it("requests run concurrently: a fast one is answered while a slow one is still running", async () => {
    const { peer, ended } = await serving({
      requests: { slow: async () => (await delay(200), "slow"), fast: () => "fast" },
    });
    peer.send(request(1, "slow"));
    peer.send(request(2, "fast"));
    assert.equal((await peer.next()).result, "fast");
    assert.equal((await peer.next()).result, "slow");
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("at maxInFlight, reading pauses until a request is answered", async () => {
    let running = 0;
    let most = 0;
    const { peer, ended } = await serving({
      requests: {
        work: async () => {
          most = Math.max(most, ++running);
          await delay(20);
          running--;
          return null;
        },
      },
    }, { maxInFlight: 2 });
    for (let id = 1; id <= 6; id++) peer.send(request(id, "work"));
    for (let id = 1; id <= 6; id++) await peer.next();
    assert.equal(most, 2);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("notifications are handled in order, each before a later request starts", async () => {
    let text = "";
    const { peer, ended } = await serving({
      notifications: {
        change: async (params) => {
          await delay(30);
          text = (params as { text: string }).text;
        },
      },
      requests: { read: () => text },
    });
    peer.send(notification("change", { text: "one" }));
    peer.send(notification("change", { text: "two" }));
    peer.send(request(1, "read"));
    assert.equal((await peer.next()).result, "two");
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("handlers send notifications with notify", async () => {
    const { peer, ended } = await serving({
      notifications: {
        "textDocument/didOpen": (_params, context) =>
          context.notify("textDocument/publishDiagnostics", { uri: "u", diagnostics: [] }),
      },
    });
    peer.send(notification("textDocument/didOpen", { textDocument: {} }));
    assert.deepEqual(await peer.next(), {
      jsonrpc: "2.0",
      method: "textDocument/publishDiagnostics",
      params: { uri: "u", diagnostics: [] },
    });
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("errors: LspResponseError keeps its code and data; anything else is -32603 and logged", async () => {
    const { peer, ended } = await serving({
      requests: {
        refuse: () => {
          throw new LspResponseError(-32602, "bad position", { line: 9 });
        },
        crash: () => {
          throw new TypeError("boom");
        },
        bigint: () => 1n,
      },
    });
    peer.send(request(1, "refuse"));
    assert.deepEqual((await peer.next()).error, { code: -32602, message: "bad position", data: { line: 9 } });
    peer.send(request(2, "crash"));
    assert.deepEqual((await peer.next()).error, { code: -32603, message: "Internal error: boom" });
    assert.match(peer.logs.join("\n"), /request crash failed: TypeError: boom/);
    peer.send(request(3, "bigint"));
    const unserialisable = await peer.next();
    assert.equal(unserialisable.id, 3);
    assert.equal(unserialisable.error.code, -32603);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("a throw String cannot convert, in a handler or a result's toJSON, is still answered -32603", async () => {
    const unprintable = () => Object.create(null);
    const { peer, ended } = await serving({
      requests: {
        crash: () => {
          throw unprintable();
        },
        result: () => ({
          toJSON() {
            throw unprintable();
          },
        }),
      },
    });
    peer.send(request(1, "crash"));
    assert.deepEqual(await peer.next(), {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error: a value that cannot be shown as text" },
    });
    peer.send(request(2, "result"));
    assert.deepEqual((await peer.next()).error, {
      code: -32603,
      message:
        "Internal error: the result cannot be serialised as JSON: a value that cannot be shown as text",
    });
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("inherited names are not methods; a batch and an invalid message are InvalidRequest", async () => {
    const { peer, ended } = await serving({ requests: { known: () => 1 } });
    peer.send(request(1, "constructor"));
    assert.equal((await peer.next()).error.code, -32601);
    peer.send([request(2, "known")]);
    assert.deepEqual(await peer.next(), {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request: LSP does not use JSON-RPC batches" },
    });
    peer.send({ id: 3, method: "known" });
    const invalid = await peer.next();
    assert.equal(invalid.id, 3);
    assert.equal(invalid.error.code, -32600);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("a second request with an id still in progress is refused", async () => {
    const { peer, ended } = await serving({ requests: { slow: async () => (await delay(100), "first") } });
    peer.send(request(1, "slow"));
    peer.send(request(1, "slow"));
    const refused = await peer.next();
    assert.equal(refused.error.code, -32600);
    assert.equal((await peer.next()).result, "first");
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("an oversized request is answered by the id in its first bytes", async () => {
    const { peer, ended } = await serving({}, { maxMessageBytes: 100 });
    peer.send(request(5, "known", { padding: "z".repeat(500) }));
    const refused = await peer.next();
    assert.equal(refused.id, 5);
    assert.equal(refused.error.code, -32600);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("a limit that is not a whole number of bytes ≥ 1 rejects the session before stdin is read", async () => {
    for (const options of [{ maxMessageBytes: 0 }, { maxMessageBytes: Number.NaN }, { maxHeaderBytes: -1 }]) {
      const peer = new InMemoryPeer();
      const ended = serveLsp(peer.io, { initialize: () => ({ capabilities: {} }) }, options);
      peer.send(INITIALIZE);
      peer.end();
      await assert.rejects(ended, RangeError, JSON.stringify(options));
      assert.deepEqual(peer.unread(), [], "nothing was answered");
    }
  });

  it("a header block too long to be a header ends the session with exit 1", async () => {
    const { peer, ended } = await serving({}, { maxHeaderBytes: 32 });
    peer.sendRaw(`X-Pad: ${"p".repeat(100)}\r\n\r\n`);
    assert.equal((await peer.next()).error.code, -32700);
    const end = await ended;
    assert.equal(end?.exitCode, 1);
    assert.equal(end?.code, "PROTOCOL_FRAMING_ERROR");
  });
});
