// The `debug-adapter` fixture end to end: a DAP client through a whole session, malformed input, and the
// REQ-C-032 acceptance criteria that apply to a protocol command.
import { Buffer } from "node:buffer";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { DapClient } from "../helpers/dap_client.ts";
import { frame, FramedPeer, parseFrames } from "../helpers/framed.ts";
import {
  finished,
  lastLine,
  type Loose,
  onlyEnvelope,
  programArgv,
  run,
  sendSignal,
  start,
} from "../helpers/run.ts";

const FIXTURE = programArgv("tests/fixtures/dap_fixture.ts");
const ADAPTER = [...FIXTURE, "debug-adapter"];
const INITIALIZE_ARGS: DebugProtocol.InitializeRequestArguments = {
  adapterID: "dapfix",
  clientID: "tests",
  linesStartAt1: true,
};

function protocolMessages(stdout: string): Loose[] {
  const { messages, rest } = parseFrames(Buffer.from(stdout, "utf8"));
  assert.equal(rest.length, 0, `stdout ends with a partial frame: ${JSON.stringify(rest.toString("utf8"))}`);
  return messages;
}

/** Starts the adapter; `initialize` is answered before it returns when asked. */
async function startAdapter(args: string[] = [], initialize = true) {
  const child = start([...ADAPTER, ...args]);
  const done = finished(child);
  const peer = new FramedPeer(child);
  const client = new DapClient(peer);
  if (initialize) {
    assert.equal((await client.request("initialize", INITIALIZE_ARGS)).success, true);
    await client.event("initialized");
  }
  return { child, done, peer, client };
}

describe("debug-adapter: a whole session", () => {
  it("initialize, initialized, launch, configurationDone, threads, evaluate, cancel, disconnect → terminated, exit 0", async () => {
    const { done, peer, client } = await startAdapter([], false);
    client.send("initialize", INITIALIZE_ARGS);
    const initialized = (await client.next()) as DebugProtocol.InitializeResponse;
    assert.equal(initialized.type, "response", "the first message is the initialize response");
    assert.equal(initialized.seq, 1);
    assert.equal(initialized.success, true);
    assert.equal(initialized.body?.supportsConfigurationDoneRequest, true);
    assert.deepEqual(await client.next(), { seq: 2, type: "event", event: "initialized" });

    assert.equal((await client.request("launch", { stopOnEntry: true })).success, true);
    assert.equal((await client.request("configurationDone")).success, true);
    const stopped = await client.event<DebugProtocol.StoppedEvent>("stopped");
    assert.equal(stopped.body.reason, "entry");
    const threads = await client.request<DebugProtocol.ThreadsResponse>("threads");
    assert.deepEqual(threads.body.threads, [{ id: 1, name: "main" }]);
    const evaluated = await client.request<DebugProtocol.EvaluateResponse>("evaluate", {
      expression: "hello",
    });
    assert.equal(evaluated.body.result, "HELLO");
    const failed = await client.request("evaluate", { expression: "fail" });
    assert.equal(failed.success, false);
    assert.equal(failed.message, "cannot evaluate 'fail'");

    const waiting = client.send("evaluate", { expression: "wait" });
    const cancel = client.send("cancel", { requestId: waiting });
    const cancelled = await client.response(waiting);
    assert.deepEqual([cancelled.success, cancelled.message], [false, "cancelled"]);
    assert.equal((await client.response(cancel)).success, true);

    const unknown = await client.request("stepBack", { threadId: 1 });
    assert.equal(unknown.success, false);
    assert.equal(unknown.command, "stepBack");
    assert.match(unknown.message ?? "", /unrecognized request 'stepBack'/);

    const disconnect = await client.request("disconnect", { terminateDebuggee: true });
    assert.equal(disconnect.success, true);
    await client.event("terminated");
    peer.end();
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /"ok":/, "a clean end writes no envelope");
    assert.match(result.stderr, /launching the pretend program/, "console.log in a handler goes to stderr");
    const messages = protocolMessages(result.stdout);
    assert.deepEqual(
      messages.map((message) => message.seq),
      messages.map((_, index) => index + 1),
      "the adapter numbers its messages 1, 2, …",
    );
    assert.equal(messages.at(-1).event, "terminated");
  });
});

describe("debug-adapter: malformed input", () => {
  it("bad JSON gets an output event, a request without a command a failed response; the adapter keeps running", async () => {
    const { done, peer, client } = await startAdapter();
    peer.send("{oops");
    const output = await client.event<DebugProtocol.OutputEvent>("output");
    assert.equal(output.body.category, "stderr");
    assert.match(output.body.output, /Parse error/);
    peer.send({ seq: 50, type: "request" });
    const refused = await client.response(50);
    assert.equal(refused.success, false);
    assert.match(refused.message ?? "", /needs a command/);
    assert.equal((await client.request("threads")).success, true);
    peer.end();
    assert.equal((await done).code, 0);
  });

  it("a request before initialize fails and the session goes on", async () => {
    const { done, client } = await startAdapter([], false);
    const early = await client.request("threads");
    assert.equal(early.success, false);
    assert.match(early.message ?? "", /initialize/);
    assert.equal((await client.request("initialize", INITIALIZE_ARGS)).success, true);
    assert.equal((await client.request("disconnect")).success, true);
    assert.equal((await done).code, 0);
  });

  it("an oversized request is skipped and answered by its seq; the next one is served", async () => {
    const { done, peer, client } = await startAdapter(["--max-message-bytes", "2048"]);
    peer.send({
      seq: 90,
      type: "request",
      command: "evaluate",
      arguments: { expression: "x".repeat(1_000_000) },
    });
    const refused = await client.response(90);
    assert.equal(refused.success, false);
    assert.equal(refused.command, "evaluate");
    assert.match(refused.message ?? "", /over the limit of 2048/);
    assert.equal((await client.request("threads")).success, true);
    peer.end();
    assert.equal((await done).code, 0);
  });

  it("a header without Content-Length ends the session with exit 1 and the envelope last on stderr", async () => {
    const { done, peer, client } = await startAdapter(["--format", "json"]);
    peer.sendRaw('Content-Type: application/json\r\n\r\n{"seq":9,"type":"request","command":"threads"}');
    const output = await client.event<DebugProtocol.OutputEvent>("output");
    assert.match(output.body.output, /no Content-Length/);
    const result = await done;
    assert.equal(result.code, 1);
    assert.equal(JSON.parse(lastLine(result.stderr)).error.code, "PROTOCOL_FRAMING_ERROR");
  });
});

describe("debug-adapter: REQ-C-032 acceptance criteria", () => {
  it("an invalid flag exits 2 with stdout empty and the ARG_ERROR envelope last on stderr", async () => {
    const result = await run([...ADAPTER, "--format", "json", "--fail-prepare=maybe"]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, "");
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.error.code, "ARG_ERROR");
    assert.equal(envelope.error.message, "--fail-prepare expects a boolean, got 'maybe'");
  });

  it("a failure while preparing exits with its declared code, stdout empty, the envelope last on stderr", async () => {
    const result = await run([...ADAPTER, "--format", "json", "--fail-prepare"]);
    assert.equal(result.code, 5);
    assert.equal(result.stdout, "");
    assert.equal(JSON.parse(lastLine(result.stderr)).error.code, "NOT_FOUND");
  });

  it("does not accept --idempotency-key, --dry-run, --output or --confirm-destructive", async () => {
    for (const flag of ["--idempotency-key=k", "--dry-run", "--output=x.json", "--confirm-destructive"]) {
      const result = await run([...ADAPTER, "--format", "json", flag]);
      assert.equal(result.code, 2, flag);
      assert.equal(result.stdout, "", flag);
    }
  });

  it("--help prints help to stdout, exits 0 and never starts serving", async () => {
    const result = await run([...ADAPTER, "--help"], { timeoutMs: 10_000 });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Usage: dapfix debug-adapter/);
  });

  it("every byte on stdout is a framed message, the first response read without skipping anything", async () => {
    const child = start(ADAPTER);
    const done = finished(child);
    child.stdin!.end(Buffer.concat([
      frame({ seq: 1, type: "request", command: "initialize", arguments: INITIALIZE_ARGS }),
      frame({ seq: 2, type: "request", command: "launch", arguments: {} }),
    ]));
    const result = await done;
    assert.equal(result.code, 0);
    const messages = protocolMessages(result.stdout);
    assert.deepEqual(messages.map((message) => [message.type, message.request_seq ?? message.event]), [
      ["response", 1],
      ["event", "initialized"],
      ["response", 2],
    ]);
  });

  it("closing stdin ends the process with exit 0 and no envelope", async () => {
    const { done, peer } = await startAdapter(["--format", "json"]);
    peer.end();
    const result = await done;
    assert.equal(result.code, 0);
    assert.doesNotMatch(result.stderr, /"ok":/);
  });

  it("SIGTERM while serving exits 143 with the envelope last on stderr", async () => {
    const { child, done } = await startAdapter(["--format", "json"]);
    sendSignal(child, "SIGTERM");
    const result = await done;
    assert.equal(result.code, 143);
    assert.equal(JSON.parse(lastLine(result.stderr)).error.code, "CANCELLED");
    protocolMessages(result.stdout);
  });

  it("an idle adapter outlives --timeout once serving began", async () => {
    const { child, done, client } = await startAdapter(["--timeout", "0.5"]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(child.exitCode, null, "the adapter must still be running");
    assert.equal((await client.request("disconnect")).success, true);
    assert.equal((await done).code, 0);
  });

  it("the manifest shows stdout protocol with protocol dap on the debug-adapter command", async () => {
    const result = await run([...FIXTURE, "--format", "json", "manifest"]);
    const entry = onlyEnvelope(result.stdout).data.commands["debug-adapter"];
    assert.equal(entry.stdout, "protocol");
    assert.equal(entry.protocol, "dap");
  });
});
