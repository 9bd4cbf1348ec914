// serveDap in process, with handlers written for each rule: numbering, ordering, cancellation, bad input.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { type DapHandlers, serveDap } from "../../lib/protocol/dap/mod.ts";
import { DapClient } from "../helpers/dap_client.ts";
import { delay, InMemoryPeer } from "../helpers/protocol_io.ts";

/** Starts serveDap and completes initialize. */
async function serving(handlers: Partial<DapHandlers> = {}, options = {}) {
  const peer = new InMemoryPeer();
  const ended = serveDap(
    peer.io,
    { initialize: () => ({ supportsCancelRequest: true }), ...handlers },
    options,
  );
  const client = new DapClient(peer);
  const response = await client.request<DebugProtocol.InitializeResponse>("initialize", {
    adapterID: "test",
  });
  assert.deepEqual(response.body, { supportsCancelRequest: true });
  await client.event("initialized");
  return { peer, client, ended };
}

describe("serveDap: the session", () => {
  it("numbers its messages 1, 2, … and answers with request_seq and command", async () => {
    const { peer, client, ended } = await serving({ requests: { threads: () => ({ threads: [] }) } });
    const seq = client.send("threads");
    assert.deepEqual(await client.next(), {
      seq: 3,
      type: "response",
      request_seq: seq,
      command: "threads",
      success: true,
      body: { threads: [] },
    });
    peer.end();
    assert.equal(await ended, undefined);
    assert.deepEqual(client.seen.map((message) => message.seq), [1, 2, 3]);
  });

  it("a failed initialize sends no initialized event and leaves the session uninitialized", async () => {
    const peer = new InMemoryPeer();
    const ended = serveDap(peer.io, {
      initialize: () => {
        throw new Error("adapter not installed");
      },
    });
    const client = new DapClient(peer);
    const response = await client.request("initialize", { adapterID: "test" });
    assert.deepEqual([response.success, response.message], [false, "adapter not installed"]);
    assert.equal((await client.request("threads")).success, false);
    peer.end();
    assert.equal(await ended, undefined);
    assert.equal(client.seen.some((message) => message.type === "event"), false);
  });

  it("disconnect aborts requests in progress, runs the hook, answers, then sends terminated", async () => {
    let aborted = false;
    let hookRan = false;
    const { client, ended } = await serving({
      requests: {
        hang: (_args, context) =>
          new Promise(() => context.signal.addEventListener("abort", () => (aborted = true))),
      },
      disconnect: () => void (hookRan = true),
    });
    client.send("hang");
    const disconnect = client.send("disconnect");
    assert.equal((await client.response(disconnect)).success, true);
    assert.equal((await client.next() as DebugProtocol.Event).event, "terminated");
    assert.equal(await ended, undefined);
    assert.deepEqual([aborted, hookRan], [true, true]);
  });

  it("a failing disconnect hook is reported, and the session still terminates", async () => {
    const { client, ended } = await serving({
      disconnect: () => {
        throw new Error("debuggee would not stop");
      },
    });
    const response = await client.request("disconnect");
    assert.deepEqual([response.success, response.message], [false, "debuggee would not stop"]);
    await client.event("terminated");
    assert.equal(await ended, undefined);
  });

  it("a throw String cannot convert, in a handler or a body's toJSON, still fails the request", async () => {
    const unprintable = () => Object.create(null);
    const { peer, client, ended } = await serving({
      requests: {
        crash: () => {
          throw unprintable();
        },
        body: () => ({
          toJSON() {
            throw unprintable();
          },
        }),
      },
    });
    const crashed = await client.request("crash");
    assert.deepEqual([crashed.success, crashed.message], [false, "a value that cannot be shown as text"]);
    const unserialisable = await client.request("body");
    assert.deepEqual([unserialisable.success, unserialisable.message], [
      false,
      "the response body cannot be serialised as JSON: a value that cannot be shown as text",
    ]);
    assert.deepEqual(client.seen.map((message) => message.seq), [1, 2, 3, 4], "numbering has no gap");
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("a limit that is not a whole number of bytes ≥ 1 rejects the session before stdin is read", async () => {
    const peer = new InMemoryPeer();
    const ended = serveDap(peer.io, { initialize: () => ({}) }, { maxMessageBytes: 2.5 });
    peer.end();
    await assert.rejects(ended, RangeError);
  });

  it("stdin EOF waits for requests in progress, then resolves undefined", async () => {
    const { peer, client, ended } = await serving({
      requests: { slow: async () => (await delay(100), { done: true }) },
    });
    const seq = client.send("slow");
    peer.end();
    assert.equal(await ended, undefined);
    assert.deepEqual((await client.response(seq)).body, { done: true });
  });

  it("requests run concurrently; cancel answers the cancelled one first, then itself", async () => {
    const { peer, client, ended } = await serving({
      requests: {
        wait: (_args, context) =>
          new Promise((resolve) => context.signal.addEventListener("abort", () => resolve({ late: true }))),
        quick: () => ({ quick: true }),
      },
    });
    const waiting = client.send("wait");
    assert.deepEqual((await client.request("quick")).body, { quick: true });
    const cancel = client.send("cancel", { requestId: waiting });
    const first = (await client.next()) as DebugProtocol.Response;
    assert.deepEqual([first.request_seq, first.success, first.message], [waiting, false, "cancelled"]);
    const second = (await client.next()) as DebugProtocol.Response;
    assert.deepEqual([second.request_seq, second.success], [cancel, true]);
    await delay(20);
    assert.deepEqual(peer.unread(), [], "the late result of the cancelled request is dropped");
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("handlers send events", async () => {
    const { peer, client, ended } = await serving({
      requests: { continue: (_args, context) => context.sendEvent("continued", { threadId: 1 }) },
    });
    client.send("continue", { threadId: 1 });
    assert.deepEqual(await client.next(), {
      seq: 3,
      type: "event",
      event: "continued",
      body: { threadId: 1 },
    });
    peer.end();
    assert.equal(await ended, undefined);
  });
});

describe("serveDap: messages that are not readable requests", () => {
  it("each gets a failed response when its seq is known, else an output event, and the session goes on", async () => {
    const { peer, client, ended } = await serving({ requests: { threads: () => ({ threads: [] }) } });
    const cases: Array<[object | string, RegExp, "response" | "event"]> = [
      [[1, 2], /a DAP message is a JSON object/, "event"],
      [
        { type: "request", command: "threads" },
        /needs seq, an integer from 0 to 2\^53 - 1; got none/,
        "event",
      ],
      [{ seq: 2 ** 53, type: "request", command: "threads" }, /needs seq, .*; got 9007199254740992/, "event"],
      ['{"seq":1e309,"type":"request","command":"threads"}', /needs seq, .*; got Infinity/, "event"],
      [{ seq: -1, type: "request", command: "threads" }, /needs seq, .*; got -1/, "event"],
      [{ seq: 7, type: "event", event: "x" }, /sends requests only/, "response"],
      [
        { seq: 8, type: "request", command: "threads", arguments: [1] },
        /arguments must be an object/,
        "response",
      ],
      ["\u00ff", /Parse error/, "event"],
    ];
    for (const [message, problem, kind] of cases) {
      peer.send(message);
      const answer = await client.next();
      assert.equal(answer.type, kind, JSON.stringify(message));
      const text = kind === "event"
        ? (answer as DebugProtocol.OutputEvent).body.output
        : (answer as DebugProtocol.Response).message;
      assert.match(text ?? "", problem);
    }
    peer.send({ seq: 9, type: "response", request_seq: 1, command: "runInTerminal", success: true });
    assert.equal((await client.request("threads")).success, true, "a response from the client is ignored");
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("an oversized request whose seq comes last cannot be answered by seq, so an output event reports it", async () => {
    const { peer, client, ended } = await serving({}, { maxMessageBytes: 200 });
    peer.send({ command: "evaluate", arguments: { expression: "x".repeat(2000) }, type: "request", seq: 5 });
    const output = (await client.next()) as DebugProtocol.OutputEvent;
    assert.equal(output.event, "output");
    assert.match(output.body.output, /over the limit of 200/);
    peer.end();
    assert.equal(await ended, undefined);
  });

  it("inherited names are not commands; a seq still in progress is refused", async () => {
    const { peer, client, ended } = await serving({ requests: { slow: async () => (await delay(50), {}) } });
    assert.equal((await client.request("toString")).success, false);
    peer.send({ seq: 40, type: "request", command: "slow" });
    peer.send({ seq: 40, type: "request", command: "slow" });
    const refused = (await client.next()) as DebugProtocol.Response;
    assert.match(refused.message ?? "", /still in progress/);
    assert.equal((await client.response(40)).success, true);
    peer.end();
    assert.equal(await ended, undefined);
  });
});
