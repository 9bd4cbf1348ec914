// `notes lsp` end to end: a real LSP client (vscode-jsonrpc) through a whole session, raw bytes for the
// lifecycle and framing edges, and the REQ-C-032 acceptance criteria that apply to a protocol command.
import { Buffer } from "node:buffer";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { frame, FramedPeer, parseFrames } from "../helpers/framed.ts";
import {
  finished,
  lastLine,
  type Loose,
  NOTES,
  onlyEnvelope,
  run,
  sendSignal,
  start,
  tempDir,
} from "../helpers/run.ts";

const LSP = [...NOTES, "lsp"];
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { processId: null, rootUri: null, capabilities: {} },
};

let home: { path: string; cleanup: () => void };
let env: Record<string, string>;

before(async () => {
  home = tempDir();
  env = { NOTES_HOME: home.path };
  for (const [title, body] of [["Buy milk", "Two litres, organic"], ["Call Ana", "About the trip"]]) {
    const added = await run([...NOTES, "add", "--title", title!, "--body", body!], { env });
    assert.equal(added.code, 0, added.stderr);
  }
});

after(() => home.cleanup());

/** Every byte of a finished server's stdout is a framed message; returns them. */
function protocolMessages(stdout: string): Loose[] {
  const { messages, rest } = parseFrames(Buffer.from(stdout, "utf8"));
  assert.equal(rest.length, 0, `stdout ends with a partial frame: ${JSON.stringify(rest.toString("utf8"))}`);
  return messages;
}

/** Starts `notes lsp` with a raw framed client; `initialize` is answered before it returns when asked. */
async function startLsp(args: string[] = [], initialize = true) {
  const child = start([...LSP, ...args], { env });
  const done = finished(child);
  const peer = new FramedPeer(child);
  if (initialize) {
    peer.send(INITIALIZE);
    assert.equal((await peer.next()).id, 1);
  }
  return { child, done, peer };
}

describe("notes lsp: a whole session with vscode-jsonrpc", () => {
  it("initialize, didOpen, diagnostics, completion, hover, shutdown, exit → exit 0 and no envelope", async () => {
    const child = start(LSP, { env });
    const done = finished(child);
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    const diagnostics = new Promise<Loose>((resolve) =>
      connection.onNotification("textDocument/publishDiagnostics", resolve)
    );
    connection.listen();
    try {
      const initialized: Loose = await connection.sendRequest("initialize", {
        processId: null,
        rootUri: null,
        capabilities: {},
      });
      assert.equal(initialized.capabilities.hoverProvider, true);
      assert.deepEqual(initialized.capabilities.completionProvider.triggerCharacters, [":"]);
      assert.deepEqual(initialized.capabilities.textDocumentSync, { openClose: true, change: 1 });
      await connection.sendNotification("initialized", {});

      const uri = "file:///tmp/plan.md";
      const text = "# Plan\nSee note:1 and note:42.\nAlso note:";
      await connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: "markdown", version: 1, text },
      });

      const published = await diagnostics;
      assert.equal(published.uri, uri);
      assert.equal(published.version, 1);
      assert.equal(published.diagnostics.length, 1, "note:1 exists; only note:42 is missing");
      assert.equal(published.diagnostics[0].message, "note 42 does not exist");
      assert.deepEqual(published.diagnostics[0].range, {
        start: { line: 1, character: 15 },
        end: { line: 1, character: 22 },
      });

      const completion: Loose = await connection.sendRequest("textDocument/completion", {
        textDocument: { uri },
        position: { line: 2, character: 10 },
      });
      assert.deepEqual(completion.map((item: Loose) => [item.label, item.detail]), [["1", "Buy milk"], [
        "2",
        "Call Ana",
      ]]);
      const elsewhere: Loose = await connection.sendRequest("textDocument/completion", {
        textDocument: { uri },
        position: { line: 0, character: 3 },
      });
      assert.deepEqual(elsewhere, []);

      const hover: Loose = await connection.sendRequest("textDocument/hover", {
        textDocument: { uri },
        position: { line: 1, character: 8 },
      });
      assert.equal(hover.contents.kind, "markdown");
      assert.match(hover.contents.value, /Buy milk/);
      assert.match(hover.contents.value, /Two litres, organic/);
      assert.deepEqual(hover.range, { start: { line: 1, character: 4 }, end: { line: 1, character: 10 } });

      assert.equal(await connection.sendRequest("shutdown"), null);
      await connection.sendNotification("exit");
      const result = await done;
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /"ok":/, "a clean shutdown writes no envelope");
      const messages = protocolMessages(result.stdout);
      assert.equal(messages[0].id, 0, "the first message on stdout is the initialize response");
    } finally {
      connection.dispose();
    }
  });
});

describe("notes lsp: lifecycle and bad input on raw bytes", () => {
  it("a request before initialize gets -32002 and the session goes on", async () => {
    const { done, peer } = await startLsp([], false);
    peer.send({ jsonrpc: "2.0", id: 7, method: "textDocument/hover", params: {} });
    peer.send({ jsonrpc: "2.0", method: "textDocument/didOpen", params: {} });
    peer.send(INITIALIZE);
    const refused = await peer.next();
    assert.equal(refused.id, 7);
    assert.equal(refused.error.code, -32002);
    assert.equal((await peer.next()).id, 1, "the notification before initialize is dropped, not answered");
    peer.end();
    assert.equal((await done).code, 0);
  });

  it("exit without shutdown exits 1 with the envelope last on stderr", async () => {
    const { done, peer } = await startLsp(["--format", "json"]);
    peer.send({ jsonrpc: "2.0", method: "exit" });
    const result = await done;
    assert.equal(result.code, 1);
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.ok, false);
    assert.equal(envelope.error.code, "PROTOCOL_EXIT_WITHOUT_SHUTDOWN");
    assert.equal(envelope.meta.exit_code, 1);
    protocolMessages(result.stdout);
  });

  it("requests after shutdown are InvalidRequest; an unknown method is -32601", async () => {
    const { done, peer } = await startLsp();
    peer.send({ jsonrpc: "2.0", id: 2, method: "workspace/symbol", params: { query: "x" } });
    assert.equal((await peer.next()).error.code, -32601);
    peer.send({ jsonrpc: "2.0", id: 3, method: "shutdown" });
    assert.equal((await peer.next()).result, null);
    peer.send({ jsonrpc: "2.0", id: 4, method: "textDocument/hover", params: {} });
    assert.equal((await peer.next()).error.code, -32600);
    peer.send({ jsonrpc: "2.0", method: "exit" });
    assert.equal((await done).code, 0);
  });

  it("a garbage body and invalid UTF-8 are answered -32700 with id null, and the server keeps running", async () => {
    const { done, peer } = await startLsp();
    peer.send("{not json");
    peer.sendRaw(Buffer.concat([Buffer.from("Content-Length: 3\r\n\r\n"), Buffer.from([0x22, 0xff, 0x22])]));
    peer.send({ jsonrpc: "2.0", id: 2, method: "shutdown" });
    for (const _ of [1, 2]) {
      const parseError = await peer.next();
      assert.equal(parseError.id, null);
      assert.equal(parseError.error.code, -32700);
    }
    assert.equal((await peer.next()).id, 2);
    peer.send({ jsonrpc: "2.0", method: "exit" });
    assert.equal((await done).code, 0);
  });

  it("a header without Content-Length ends the session with exit 1 and the envelope last on stderr", async () => {
    const { done, peer } = await startLsp(["--format", "json"]);
    peer.sendRaw(
      'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{"jsonrpc":"2.0","id":2,"method":"shutdown"}',
    );
    const parseError = await peer.next();
    assert.equal(parseError.id, null);
    assert.equal(parseError.error.code, -32700);
    assert.match(parseError.error.message, /no Content-Length/);
    const result = await done;
    assert.equal(result.code, 1);
    assert.equal(JSON.parse(lastLine(result.stderr)).error.code, "PROTOCOL_FRAMING_ERROR");
  });

  it("an oversized message is skipped without being read and answered with its id; the next one is served", async () => {
    const { done, peer } = await startLsp(["--max-message-bytes", "1024"]);
    const huge = {
      jsonrpc: "2.0",
      id: 2,
      method: "textDocument/hover",
      params: { padding: "x".repeat(4 * 1024 * 1024) },
    };
    peer.send(huge);
    peer.send({ jsonrpc: "2.0", id: 3, method: "shutdown" });
    const refused = await peer.next();
    assert.equal(refused.id, 2);
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.message, /over the limit of 1024/);
    assert.equal((await peer.next()).id, 3);
    peer.send({ jsonrpc: "2.0", method: "exit" });
    assert.equal((await done).code, 0);
  });
});

describe("notes lsp: REQ-C-032 acceptance criteria", () => {
  it("an invalid flag exits 2 with stdout empty and the ARG_ERROR envelope last on stderr", async () => {
    const result = await run([...LSP, "--format", "json", "--max-message-bytes=lots"], { env });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, "");
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.error.code, "ARG_ERROR");
    assert.equal(envelope.error.message, "--max-message-bytes expects an integer, got 'lots'");
  });

  it("does not accept --idempotency-key, --dry-run, --output or --confirm-destructive", async () => {
    for (const flag of ["--idempotency-key=k", "--dry-run", "--output=x.json", "--confirm-destructive"]) {
      const result = await run([...LSP, "--format", "json", flag], { env });
      assert.equal(result.code, 2, flag);
      assert.equal(result.stdout, "", flag);
      assert.equal(JSON.parse(lastLine(result.stderr)).error.code, "ARG_ERROR", flag);
    }
  });

  it("--help prints help to stdout, exits 0 and never starts serving", async () => {
    const result = await run([...LSP, "--help"], { env, timeoutMs: 10_000 });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Usage: notes lsp/);
  });

  it("every byte on stdout is a framed message, the first response read without skipping anything", async () => {
    const child = start(LSP, { env });
    const done = finished(child);
    child.stdin!.end(
      Buffer.concat([frame(INITIALIZE), frame({ jsonrpc: "2.0", id: 2, method: "shutdown" })]),
    );
    const result = await done;
    assert.equal(result.code, 0);
    const messages = protocolMessages(result.stdout);
    assert.deepEqual(messages.map((message) => message.id), [1, 2]);
  });

  it("closing stdin ends the process with exit 0 and no envelope", async () => {
    const { done, peer } = await startLsp(["--format", "json"]);
    peer.end();
    const result = await done;
    assert.equal(result.code, 0);
    assert.doesNotMatch(result.stderr, /"ok":/);
  });

  it("SIGTERM while serving exits 143 with the envelope last on stderr", async () => {
    const { child, done } = await startLsp(["--format", "json"]);
    sendSignal(child, "SIGTERM");
    const result = await done;
    assert.equal(result.code, 143);
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.error.code, "CANCELLED");
    assert.equal(envelope.error.context.signal, "SIGTERM");
    protocolMessages(result.stdout);
  });

  it("an idle server outlives --timeout once serving began", async () => {
    const { child, done, peer } = await startLsp(["--timeout", "0.5"]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(child.exitCode, null, "the server must still be running");
    peer.send({ jsonrpc: "2.0", id: 2, method: "shutdown" });
    assert.equal((await peer.next()).result, null);
    peer.send({ jsonrpc: "2.0", method: "exit" });
    assert.equal((await done).code, 0);
  });
});

describe("notes manifest: protocol fields", () => {
  it("shows stdout protocol with protocol lsp on exactly the lsp command", async () => {
    const result = await run([...NOTES, "--format", "json", "manifest"], { env });
    assert.equal(result.code, 0);
    const commands: Record<string, Loose> = onlyEnvelope(result.stdout).data.commands;
    const lsp = Object.entries(commands).filter(([, entry]) => entry.protocol === "lsp").map(([path]) =>
      path
    );
    assert.deepEqual(lsp, ["lsp"]);
    assert.equal(commands.lsp.stdout, "protocol");
    assert.deepEqual(Object.keys(commands.lsp.exit_codes).filter((code) => ["0", "1"].includes(code)), [
      "0",
      "1",
    ]);
    for (const [path, entry] of Object.entries(commands)) {
      assert.equal(
        entry.stdout === "protocol",
        entry.protocol !== undefined,
        `${path}: stdout and protocol come together`,
      );
    }
    assert.equal(commands.add.stdout, undefined);
    assert.equal(commands.add.protocol, undefined);
  });
});
