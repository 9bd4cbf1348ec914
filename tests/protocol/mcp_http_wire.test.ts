// MCP over Streamable HTTP, rule by rule, with raw `fetch` (and raw sockets for what fetch will not send)
// against `lab mcp listen http://127.0.0.1:0/mcp`, spawned for real: status codes and JSON-RPC errors before
// any method runs, both eras on one endpoint, JSON or an event stream, subscriptions/listen, cancellation by
// closing the stream, bounds and time limits, SIGTERM, and no stack trace whatever comes in.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import process from "node:process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { changingCli } from "../helpers/changing_cli.ts";
import { initialize, modern } from "../helpers/mcp_wire.ts";
import { type Loose, onlyEnvelope, programArgv, tempDir } from "../helpers/run.ts";
import {
  type HttpListener,
  legacyHeaders,
  modernHeaders,
  portOf,
  post,
  rawHttp,
  sseMessages,
  startHttpListener,
} from "../helpers/http_listener.ts";
import { execLine, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const lab = (flags: readonly string[]) => [...LAB, "mcp", "listen", ...flags];
const ORIGIN = "https://app.example.com";

const scratch = tempDir("toolwire-http-wire-");
after(() => scratch.cleanup());
let files = 0;
/** A fresh path for lab's `tally` to write: it exists only once a handler ran. */
const freshFile = () => join(scratch.path, `appended-${++files}`);

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The stderr of a listener must never show a stack trace. */
function assertNoStackTrace(listener: HttpListener): void {
  assert.doesNotMatch(listener.stderr(), /\n\s+at \S/, listener.stderr());
}

describe("MCP over HTTP: one endpoint, both eras, errors before any method runs", () => {
  let server: HttpListener;
  before(async () => {
    server = await startHttpListener(lab, { flags: ["--allow-origin", ORIGIN, "--keep-alive", "0.2"] });
  });
  after(async () => {
    const result = await server.stop();
    assert.equal(result.code, 143, result.stderr);
    assertNoStackTrace(server);
  });

  it("a 2026-07-28 request is answered application/json, with resultType, ttlMs and cacheScope; no session id", async () => {
    const answer = await post(server.url, modern(1, "tools/list"), modernHeaders("tools/list"));
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get("content-type")!, /^application\/json/);
    assert.equal(answer.headers.get("mcp-session-id"), null);
    assert.equal(answer.json.id, 1);
    assert.deepEqual(
      [answer.json.result.resultType, answer.json.result.ttlMs, answer.json.result.cacheScope],
      ["complete", 0, "private"],
    );
    assert.ok(answer.json.result.tools.some((tool: { name: string }) => tool.name === "echo"));
  });

  it("an idle keep-alive connection outlasts the 60 s of the proxies in front (Keep-Alive: timeout=65)", async () => {
    const answer = await post(server.url, modern(1, "tools/list"), modernHeaders("tools/list"));
    assert.equal(answer.headers.get("keep-alive"), "timeout=65");
  });

  it("a JSON answer's Content-Length is its length in UTF-8 bytes, for text beyond ASCII too", async () => {
    const text = "naïve 世界 🎉 ".repeat(20);
    const body = JSON.stringify(modern(3, "tools/call", { name: "echo", arguments: { text } }));
    const headers = {
      ...modernHeaders("tools/call", "echo"),
      "content-length": String(Buffer.byteLength(body)),
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
    const { reply } = await rawHttp(
      portOf(server.url),
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n${head}\r\n${body}`,
    );
    const [status, rest] = [
      reply.slice(0, reply.indexOf("\r\n")),
      reply.slice(reply.indexOf("\r\n\r\n") + 4),
    ];
    assert.match(status, / 200 /, reply);
    const length = /\r\ncontent-length: (\d+)\r\n/i.exec(reply);
    assert.ok(length !== null, reply);
    assert.equal(Number(length[1]), Buffer.byteLength(rest), reply);
    assert.ok(Buffer.byteLength(rest) > rest.length, "the answer holds multi-byte characters");
    assert.equal(JSON.parse(rest).result.structuredContent.data.text, text);
  });

  it("-32020 (400) for each missing or mismatched metadata header, and nothing runs", async () => {
    const file = freshFile();
    const call = modern(7, "tools/call", { name: "tally", arguments: { file } });
    const headers = modernHeaders("tools/call", "tally");
    const without = (name: string) =>
      Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
    const sentinel = (text: string) =>
      `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}?=`;
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ["no MCP-Protocol-Version", without("mcp-protocol-version"), /MCP-Protocol-Version header is missing/],
      ["a version unlike the body's", { ...headers, "mcp-protocol-version": "2025-11-25" }, /does not match/],
      ["no Mcp-Method", without("mcp-method"), /Mcp-Method header is missing/],
      ["another method", { ...headers, "mcp-method": "tools/list" }, /Mcp-Method header value 'tools\/list'/],
      ["the method in other case", { ...headers, "mcp-method": "TOOLS/CALL" }, /does not match/],
      ["no Mcp-Name", without("mcp-name"), /Mcp-Name header is missing/],
      ["another name", { ...headers, "mcp-name": "echo" }, /Mcp-Name header value 'echo'/],
      ["another name, Base64-encoded", { ...headers, "mcp-name": sentinel("écho") }, /value 'écho'/],
      ["a sentinel that is not Base64", { ...headers, "mcp-name": "=?base64?*?=" }, /not valid Base64/],
    ];
    for (const [what, sent, message] of cases) {
      const answer = await post(server.url, call, sent);
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      assert.equal(answer.json.id, 7, what);
      assert.equal(answer.json.error.code, -32020, what);
      assert.match(answer.json.error.message, message, what);
    }
    assert.equal(existsSync(file), false, "no refused call ran");
    // The sentinel is decoded first: the right name, Base64-encoded, is accepted.
    const encoded = await post(server.url, call, { ...headers, "mcp-name": sentinel("tally") });
    assert.equal(encoded.status, 200, encoded.text);
    assert.equal(encoded.json.result.isError, false, encoded.text);
    assert.equal(existsSync(file), true);
  });

  it("an unsupported version is 400 -32022 with the supported list, in either era", async () => {
    const request = modern(3, "tools/list", {}, { "io.modelcontextprotocol/protocolVersion": "1900-01-01" });
    const modernAnswer = await post(server.url, request, {
      ...modernHeaders("tools/list"),
      "mcp-protocol-version": "1900-01-01",
    });
    assert.equal(modernAnswer.status, 400, modernAnswer.text);
    assert.equal(modernAnswer.json.error.code, -32022);
    assert.equal(modernAnswer.json.error.data.requested, "1900-01-01");
    const discover = await post(server.url, modern(6, "server/discover"), modernHeaders("server/discover"));
    assert.deepEqual(
      modernAnswer.json.error.data.supported,
      discover.json.result.supportedVersions,
      "a modern client's -32022 names the versions server/discover lists",
    );
    const legacyAnswer = await post(
      server.url,
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      legacyHeaders("1900-01-01"),
    );
    assert.equal(legacyAnswer.status, 400, legacyAnswer.text);
    assert.deepEqual([legacyAnswer.json.id, legacyAnswer.json.error.code], [4, -32022]);
    assert.ok(legacyAnswer.json.error.data.supported.includes("2025-11-25"));
  });

  it("an unknown method is 404 -32601, a 2026-07-28 initialize too; a legacy one is answered", async () => {
    for (const method of ["no/such", "initialize", "logging/setLevel"]) {
      const answer = await post(server.url, modern(5, method), modernHeaders(method));
      assert.equal(answer.status, 404, `${method}: ${answer.text}`);
      assert.deepEqual([answer.json.id, answer.json.error.code], [5, -32601], method);
    }
    const legacy = await post(server.url, initialize(6), legacyHeaders());
    assert.equal(legacy.status, 200, legacy.text);
    assert.equal(legacy.json.result.protocolVersion, "2025-11-25");
    assert.equal(legacy.headers.get("mcp-session-id"), null, "no session id is minted");
  });

  it("403 for a foreign Origin or a Host that is not loopback; loopback origins on the port and --allow-origin pass", async () => {
    const body = modern(1, "tools/list");
    const foreign = await post(server.url, body, {
      ...modernHeaders("tools/list"),
      origin: "http://evil.example",
    });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.json.id, null);
    const otherPort = `http://localhost:${portOf(server.url) + 1}`;
    assert.equal(
      (await post(server.url, body, { ...modernHeaders("tools/list"), origin: otherPort })).status,
      403,
    );
    for (
      const origin of [
        `http://localhost:${portOf(server.url)}`,
        `http://127.0.0.1:${portOf(server.url)}`,
        ORIGIN,
      ]
    ) {
      const allowed = await post(server.url, body, { ...modernHeaders("tools/list"), origin });
      assert.equal(allowed.status, 200, `${origin}: ${allowed.text}`);
      assert.equal(allowed.headers.get("access-control-allow-origin"), origin);
    }
    const preflight = await post(server.url, "", { origin: ORIGIN }, { method: "OPTIONS" });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get("access-control-allow-headers")!, /mcp-method/);
    // A page whose name was rebound to 127.0.0.1 sends its own name as Host (fetch will not forge one).
    const text = JSON.stringify(body);
    const rebound = await rawHttp(
      portOf(server.url),
      `POST /mcp HTTP/1.1\r\nHost: evil.example:${portOf(server.url)}\r\nContent-Type: application/json\r\n` +
        `MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: ${text.length}\r\n` +
        `Connection: close\r\n\r\n${text}`,
    );
    assert.match(rebound.reply, /^HTTP\/1\.1 403 /, rebound.reply);
  });

  it("GET and DELETE are 405 (Allow: POST); Mcp-Session-Id and Last-Event-ID are ignored", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const answer = await post(server.url, "", { "mcp-session-id": "abc", accept: "text/event-stream" }, {
        method,
      });
      assert.equal(answer.status, 405, method);
      assert.match(answer.headers.get("allow")!, /POST/);
    }
    const ignored = await post(server.url, modern(8, "tools/list"), {
      ...modernHeaders("tools/list"),
      "mcp-session-id": "no-such-session",
      "last-event-id": "42",
    });
    assert.equal(ignored.status, 200, ignored.text);
    assert.equal(ignored.headers.get("mcp-session-id"), null);
    const legacy = await post(server.url, { jsonrpc: "2.0", id: 9, method: "tools/list" }, {
      ...legacyHeaders("2025-11-25"),
      "mcp-session-id": "from-another-server",
    });
    assert.equal(legacy.status, 200, legacy.text);
    assert.equal(legacy.headers.get("mcp-session-id"), null);
  });

  it("a notification is 202 with no body, in either era", async () => {
    const notifications: Array<[unknown, Record<string, string>]> = [
      [{ jsonrpc: "2.0", method: "notifications/initialized" }, legacyHeaders("2025-11-25")],
      [{ jsonrpc: "2.0", method: "notifications/initialized" }, legacyHeaders()],
      [
        {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 1, _meta: modern(0, "x").params },
        },
        modernHeaders("notifications/cancelled"),
      ],
    ];
    for (const [body, headers] of notifications) {
      const answer = await post(server.url, body, headers);
      assert.equal(answer.status, 202, answer.text);
      assert.equal(answer.text, "");
      assert.equal(answer.headers.get("content-length"), "0");
    }
  });

  it("a batch is 400 in 2026-07-28 and 2025-06-18; a 2025-03-26 batch is answered as one array", async () => {
    const modernBatch = await post(server.url, [modern(1, "tools/list"), modern(2, "tools/list")], {
      ...modernHeaders("tools/list"),
    });
    assert.equal(modernBatch.status, 400, modernBatch.text);
    const later = await post(
      server.url,
      [{ jsonrpc: "2.0", id: 1, method: "ping" }],
      legacyHeaders("2025-06-18"),
    );
    assert.equal(later.status, 400, later.text);
    const batch = await post(server.url, [
      { jsonrpc: "2.0", id: "a", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
      { jsonrpc: "2.0", id: "c", method: "no/such" },
    ], legacyHeaders("2025-03-26"));
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.json.map((reply: Loose) => reply.id), ["a", "b", "c"]);
    assert.deepEqual(batch.json[0].result, {});
    assert.equal(batch.json[1].result.structuredContent.data.text, "hi");
    assert.equal(batch.json[2].error.code, -32601);
    const onlyNotes = await post(
      server.url,
      [{ jsonrpc: "2.0", method: "notifications/initialized" }],
      legacyHeaders(),
    );
    assert.equal(onlyNotes.status, 202, onlyNotes.text);
  });

  it("a 2025-03-26 batch over 1000 messages is 400 with nothing run; while a big batch starts, other requests are answered", async () => {
    const file = freshFile();
    const pings = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
    const tooMany = await post(server.url, [
      { jsonrpc: "2.0", id: 0, method: "tools/call", params: { name: "tally", arguments: { file } } },
      ...pings(1000),
    ], legacyHeaders("2025-03-26"));
    assert.equal(tooMany.status, 400, tooMany.text);
    assert.deepEqual([tooMany.json.id, tooMany.json.error.code], [null, -32600]);
    assert.match(tooMany.json.error.message, /at most 1000 messages/);
    assert.equal(existsSync(file), false, "nothing of the refused batch ran");

    // 700 tool lists (~15 MB of answer): the batch starts them a few at a time, and the pings sent meanwhile
    // are answered before its answer's headers come (in one turn of the event loop, none could be).
    const lists = Array.from({ length: 700 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }));
    const batch = fetch(server.url, {
      method: "POST",
      headers: legacyHeaders("2025-03-26"),
      body: JSON.stringify(lists),
    });
    let headersCame = false;
    void batch.then(() => (headersCame = true), () => (headersCame = true));
    let answeredMeanwhile = 0;
    while (!headersCame) {
      const ping = await post(
        server.url,
        { jsonrpc: "2.0", id: "p", method: "ping" },
        legacyHeaders("2025-03-26"),
      );
      assert.equal(ping.status, 200, ping.text);
      if (!headersCame) answeredMeanwhile++;
    }
    const answers = await (await batch).json() as Loose[];
    assert.equal(answers.length, 700);
    assert.ok(answers.every((answer: Loose) => Array.isArray(answer.result?.tools)));
    assert.ok(answeredMeanwhile >= 3, `${answeredMeanwhile} pings answered while the batch started`);
  });

  it("a call with progress or log to send first is an event stream (X-Accel-Buffering: no) ending with its answer; else JSON", async () => {
    const meta = { progressToken: "p1", "io.modelcontextprotocol/logLevel": "info" };
    const counted = await post(
      server.url,
      modern(11, "tools/call", { name: "count", arguments: { to: 3 } }, meta),
      modernHeaders("tools/call", "count"),
    );
    assert.equal(counted.status, 200, counted.text);
    assert.equal(counted.headers.get("content-type"), "text/event-stream");
    assert.equal(counted.headers.get("x-accel-buffering"), "no");
    const { messages } = sseMessages(counted.text);
    assert.deepEqual(
      messages.map((message) => message.method ?? `answer ${message.id}`),
      [
        ...Array(3).fill(["notifications/progress", "notifications/message"]).flat(),
        "answer 11",
      ],
    );
    assert.deepEqual(
      messages.filter((m) => m.method === "notifications/progress").map((m) => m.params.progress),
      [
        1,
        2,
        3,
      ],
    );
    assert.equal(messages.at(-1).result.structuredContent.data.counted, 3);
    // Nothing asked for: the same call is one JSON answer.
    const quiet = await post(
      server.url,
      modern(12, "tools/call", { name: "count", arguments: { to: 3 } }),
      modernHeaders("tools/call", "count"),
    );
    assert.match(quiet.headers.get("content-type")!, /^application\/json/);
    assert.equal(quiet.json.result.structuredContent.data.counted, 3);
    // A client that takes JSON only gets the answer only.
    const jsonOnly = await post(
      server.url,
      modern(13, "tools/call", { name: "count", arguments: { to: 2 } }, meta),
      { ...modernHeaders("tools/call", "count"), accept: "application/json" },
    );
    assert.match(jsonOnly.headers.get("content-type")!, /^application\/json/);
    assert.equal(jsonOnly.json.id, 13);
  });

  it("subscriptions/listen: an event stream that opens with the acknowledgement and stays open with keep-alive comments", async () => {
    const aborter = new AbortController();
    const response = await fetch(server.url, {
      method: "POST",
      headers: modernHeaders("subscriptions/listen"),
      body: JSON.stringify(modern(21, "subscriptions/listen", { notifications: { toolsListChanged: true } })),
      signal: aborter.signal,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("x-accel-buffering"), "no");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const started = Date.now();
    while (sseMessages(text).comments < 2) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the stream stays open; got ${text}`);
      text += decoder.decode(value);
    }
    const { messages } = sseMessages(text);
    assert.equal(messages[0].method, "notifications/subscriptions/acknowledged");
    assert.equal(messages[0].params._meta["io.modelcontextprotocol/subscriptionId"], 21);
    assert.deepEqual(messages[0].params.notifications, {}, "lab's tools never change: nothing is honoured");
    assert.ok(Date.now() - started >= 300, "two comments 0.2 s apart");
    aborter.abort();
    await reader.cancel().catch(() => {});
  });

  it("bad bodies: 400 -32700 for invalid JSON, 400 -32600 for what is not a request, 415 for another type", async () => {
    const headers = modernHeaders("tools/list");
    const invalid = await post(server.url, '{"jsonrpc":"2.0",', headers);
    assert.deepEqual([invalid.status, invalid.json.id, invalid.json.error.code], [400, null, -32700]);
    for (const body of ['"a string"', "42", "[]", '{"jsonrpc":"1.0","id":1,"method":"ping"}']) {
      const answer = await post(server.url, body, headers);
      assert.equal(answer.status, 400, `${body}: ${answer.text}`);
      assert.equal(answer.json.error.code, -32600, body);
    }
    const typed = await post(server.url, JSON.stringify(modern(1, "tools/list")), {
      ...headers,
      "content-type": "text/plain",
    });
    assert.equal(typed.status, 415, typed.text);
  });
});

describe("MCP over HTTP: cancellation, bounds, time limits, SIGTERM", () => {
  it("closing the response cancels the request: the handler's signal fires, streaming or not", async () => {
    const server = await startHttpListener(lab);
    try {
      for (const streaming of [false, true]) {
        const marker = join(scratch.path, `cancelled-${streaming}`);
        const aborter = new AbortController();
        const meta = streaming ? { "io.modelcontextprotocol/logLevel": "debug" } : {};
        const response = fetch(server.url, {
          method: "POST",
          headers: modernHeaders("tools/call", "sleep"),
          body: JSON.stringify(
            modern(1, "tools/call", { name: "sleep", arguments: { ms: 60_000, marker } }, meta),
          ),
          signal: aborter.signal,
        });
        if (streaming) {
          // The handler logs "sleeping" first: the stream has begun.
          const reader = (await response).body!.getReader();
          const first = new TextDecoder().decode((await reader.read()).value);
          assert.match(first, /sleeping/);
        } else {
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        aborter.abort();
        await response.catch(() => {});
        await waitFor(() => existsSync(marker), `the ${streaming ? "streamed" : "JSON"} call's cleanup`);
      }
      const still = await post(server.url, modern(2, "tools/list"), modernHeaders("tools/list"));
      assert.equal(still.status, 200, "the server goes on serving");
    } finally {
      await server.stop();
      assertNoStackTrace(server);
    }
  });

  it("a body over --max-message-bytes is 413 and nothing runs, declared or chunked", async () => {
    const server = await startHttpListener(lab, { flags: ["--max-message-bytes", "1024"] });
    try {
      const file = freshFile();
      const body = JSON.stringify(
        // The padding is a `_meta` key nobody reads: without the bound, the call would run.
        modern(1, "tools/call", { name: "tally", arguments: { file } }, {
          "io.example/pad": "x".repeat(2_000),
        }),
      );
      const declared = await post(server.url, body, modernHeaders("tools/call", "tally"));
      assert.equal(declared.status, 413, declared.text);
      assert.match(declared.json.error.message, /1024-byte limit; nothing was run/);
      assert.equal(declared.headers.get("connection"), "close");
      const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
      const chunked = await rawHttp(
        portOf(server.url),
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n` +
          `Mcp-Method: tools/call\r\nMcp-Name: tally\r\nTransfer-Encoding: chunked\r\n\r\n` +
          chunk(body.slice(0, 1_000)) + chunk(body.slice(1_000)) + "0\r\n\r\n",
      );
      assert.match(chunked.reply, /^HTTP\/1\.1 413 /, chunked.reply);
      assert.equal(chunked.closed, true, "the connection is closed after the answer");
      assert.equal(existsSync(file), false, "nothing ran");
    } finally {
      await server.stop();
      assertNoStackTrace(server);
    }
  });

  it("a body that never finishes is 408 after --body-timeout; headers that never finish, or too large, close the connection", async () => {
    const server = await startHttpListener(lab, {
      flags: ["--body-timeout", "0.5", "--header-timeout", "0.5"],
    });
    try {
      const port = portOf(server.url);
      const body = await rawHttp(
        port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
      );
      assert.match(body.reply, /^HTTP\/1\.1 408 /, body.reply);
      assert.match(body.reply, /the body did not arrive in time; nothing was run/);
      assert.equal(body.closed, true);
      assert.ok(body.afterMs < 5_000, `answered after ${body.afterMs} ms`);
      const headers = await rawHttp(port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      assert.equal(headers.closed, true, "the connection is closed");
      assert.match(headers.reply, /^(HTTP\/1\.1 408 |$)/, headers.reply);
      assert.ok(headers.afterMs < 5_000, `closed after ${headers.afterMs} ms`);
      const huge = await rawHttp(
        port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"x".repeat(64 * 1024)}\r\n\r\n`,
      );
      assert.equal(huge.closed, true, "headers over the parser's limit close the connection");
      assert.match(huge.reply, /^(HTTP\/1\.1 431 |$)/, huge.reply);
    } finally {
      await server.stop();
      assertNoStackTrace(server);
    }
  });

  it("--header-timeout 0.0001 is a limit of 1 ms, not none: headers that never finish close the connection", async () => {
    const server = await startHttpListener(lab, { flags: ["--header-timeout", "0.0001"] });
    try {
      const headers = await rawHttp(portOf(server.url), "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n", 5_000);
      assert.equal(headers.closed, true, "the connection is closed");
      assert.match(headers.reply, /^(HTTP\/1\.1 408 |$)/, headers.reply);
    } finally {
      await server.stop();
      assertNoStackTrace(server);
    }
  });

  it("--max-in-flight-total bounds the calls that run at once; the rest wait for a slot", async () => {
    const server = await startHttpListener(lab, { flags: ["--max-in-flight-total", "2"] });
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, (_, n) =>
        post(
          server.url,
          modern(n, "tools/call", { name: "overlap", arguments: { ms: 300 } }),
          modernHeaders("tools/call", "overlap"),
        )));
      const peaks = answers.map((answer) => answer.json.result.structuredContent.data.peak);
      assert.deepEqual(answers.map((answer) => answer.json.id), [0, 1, 2, 3, 4, 5]);
      assert.equal(Math.max(...peaks), 2, `peaks: ${peaks}`);
    } finally {
      await server.stop();
    }
  });

  it("a request whose client left while it waited for a slot gives the slot back, subscriptions/listen too", async () => {
    const server = await startHttpListener(lab, { flags: ["--max-in-flight-total", "1"] });
    try {
      const busy = post(
        server.url,
        modern(1, "tools/call", { name: "sleep", arguments: { ms: 800 } }),
        modernHeaders("tools/call", "sleep"),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (
        const [id, method, params] of [[2, "subscriptions/listen", { notifications: {} }], [
          3,
          "tools/list",
          {},
        ]] as const
      ) {
        const aborter = new AbortController();
        const waiting = post(server.url, modern(id, method, params), modernHeaders(method), {
          signal: aborter.signal,
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        aborter.abort();
        await waiting.catch(() => {});
      }
      assert.equal((await busy).json.result.structuredContent.data.slept_ms, 800);
      const after = await Promise.race([
        post(server.url, modern(4, "tools/list"), modernHeaders("tools/list")),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000)),
      ]);
      assert.equal(after?.status, 200, "the slot came back");
    } finally {
      await server.stop();
    }
  });

  it("SIGTERM: open calls finish within --grace, a longer one is cancelled, nothing new is accepted; exit 143, CANCELLED", async () => {
    const server = await startHttpListener(lab, { flags: ["--grace", "1.5"] });
    const marker = join(scratch.path, "shutdown-marker");
    const short = post(
      server.url,
      modern(1, "tools/call", { name: "sleep", arguments: { ms: 700 } }),
      modernHeaders("tools/call", "sleep"),
    );
    const long = post(
      server.url,
      modern(2, "tools/call", { name: "sleep", arguments: { ms: 60_000, marker } }),
      modernHeaders("tools/call", "sleep"),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.terminate();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await post(server.url, modern(3, "tools/list"), modernHeaders("tools/list")).then(
      (answer) => answer.status,
      () => "refused",
    );
    assert.ok(refused === "refused" || refused === 503, `a request after SIGTERM: ${refused}`);
    const shortAnswer = await short;
    assert.equal(shortAnswer.json.result.structuredContent.data.slept_ms, 700, "finished within the grace");
    const longAnswer = await long.catch(() => undefined);
    if (longAnswer !== undefined) assert.notEqual(longAnswer.json?.result?.structuredContent?.ok, true);
    const result = await server.stop();
    assert.equal(result.code, 143, result.stderr);
    assert.equal(onlyEnvelope(result.stdout).error.code, "CANCELLED");
    assert.equal(existsSync(marker), true, "the long call was cancelled, and cleaned up");
    assertNoStackTrace(server);
  });
});

/** Reads an event stream's messages as they come. */
function streamReader(response: Response): { next(what: string): Promise<Loose>; cancel(): Promise<void> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let taken = 0;
  return {
    async next(what) {
      for (;;) {
        const { messages } = sseMessages(text);
        if (messages.length > taken) return messages[taken++];
        const { value, done } = await reader.read();
        if (done) assert.fail(`the stream ended before ${what}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

describe("MCP over HTTP: a bridged CLI (toolwire mcp listen --exec)", () => {
  it("subscriptions/listen hears list_changed when the CLI's manifest changes; tools/list then has the new tools", async () => {
    const dir = tempDir("toolwire-http-live-");
    const cli = changingCli(dir.path, ["alpha"]);
    const server = await startHttpListener(
      (
        flags,
      ) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(cli.argv), "--watch-interval", "0.1", ...flags],
    );
    const aborter = new AbortController();
    try {
      const response = await fetch(server.url, {
        method: "POST",
        headers: modernHeaders("subscriptions/listen"),
        body: JSON.stringify(
          modern("sub", "subscriptions/listen", { notifications: { toolsListChanged: true } }),
        ),
        signal: aborter.signal,
      });
      const stream = streamReader(response);
      const ack = await stream.next("the acknowledgement");
      assert.equal(ack.method, "notifications/subscriptions/acknowledged");
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true });
      cli.set(["alpha", "beta"]);
      cli.rewrite();
      const changed = await stream.next("list_changed");
      assert.equal(changed.method, "notifications/tools/list_changed");
      assert.equal(changed.params._meta["io.modelcontextprotocol/subscriptionId"], "sub");
      const listed = await post(server.url, modern(2, "tools/list"), modernHeaders("tools/list"));
      assert.deepEqual(listed.json.result.tools.map((tool: { name: string }) => tool.name).sort(), [
        "alpha",
        "beta",
        "manifest",
      ]);
      aborter.abort();
      await stream.cancel();
    } finally {
      await server.stop();
      dir.cleanup();
      assertNoStackTrace(server);
    }
  });

  it("closing the response stream kills the bridged call's process group, a grandchild ignoring SIGTERM too", async () => {
    const server = await startHttpListener(
      (flags) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(pyfix("family")), ...flags],
    );
    const pidFile = join(scratch.path, "family-pids");
    let pgid = 0;
    try {
      const aborter = new AbortController();
      const response = fetch(server.url, {
        method: "POST",
        headers: modernHeaders("tools/call", "fork"),
        body: JSON.stringify(
          modern(1, "tools/call", {
            name: "fork",
            arguments: { pid_file: pidFile, seconds: 60, stubborn: true },
          }),
        ),
        signal: aborter.signal,
      });
      await waitFor(
        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").split(" ").length === 3,
        "fork",
      );
      pgid = Number(readFileSync(pidFile, "utf8").split(" ")[2]);
      assert.equal(groupAlive(pgid), true);
      aborter.abort();
      await response.catch(() => {});
      await waitFor(() => !groupAlive(pgid), `process group ${pgid} to end`);
      const still = await post(server.url, modern(2, "tools/list"), modernHeaders("tools/list"));
      assert.equal(still.status, 200);
    } finally {
      if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
      await server.stop();
      assertNoStackTrace(server);
    }
  });
});

/** Whether any process of the group is alive (a zombie has ended: it only waits to be reaped). */
function groupAlive(pgid: number): boolean {
  if (!existsSync("/proc/self/stat")) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return readdirSync("/proc").some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return Number(group) === pgid && state !== "Z";
    } catch {
      return false;
    }
  });
}

/** A small seeded generator (mulberry32): the same seed, the same inputs. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("MCP over HTTP: whatever comes in", () => {
  it("no input, however malformed, gets a stack trace, a 5xx or a crash (seeded)", async () => {
    const seed = Number(process.env.HTTP_FUZZ_SEED ?? Date.now() % 1_000_000);
    console.log(`mcp_http_wire: random inputs with seed ${seed} (HTTP_FUZZ_SEED=${seed} to repeat)`);
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const server = await startHttpListener(lab, { flags: ["--max-message-bytes", "4096"] });
    try {
      const methods = ["tools/list", "tools/call", "initialize", "ping", "subscriptions/listen", "x", ""];
      const values = [
        null,
        1,
        -1e308,
        "s",
        true,
        [],
        {},
        [1, [2]],
        { _meta: 5 },
        { name: 7 },
        "\u0000",
        2 ** 60,
      ];
      const bodies = (): string => {
        switch (Math.floor(next() * 6)) {
          case 0:
            return Array.from({ length: Math.floor(next() * 64) }, () => String.fromCharCode(next() * 256))
              .join("");
          case 1:
            return JSON.stringify(pick(values));
          case 2:
            return JSON.stringify({
              jsonrpc: pick(["2.0", "1.0", 2]),
              id: pick(values),
              method: pick(methods),
            });
          case 3:
            return JSON.stringify(
              modern(pick([1, "x", -0.5]), pick(methods), {
                name: pick(["echo", "sleep", 3]),
                arguments: pick(values),
              }, {
                "io.modelcontextprotocol/protocolVersion": pick(["2026-07-28", "1900-01-01", 7]),
                "io.modelcontextprotocol/clientCapabilities": pick(values),
              }),
            );
          case 4:
            return JSON.stringify([modern(1, "ping"), pick(values)]);
          default:
            return "x".repeat(4_000 + Math.floor(next() * 200));
        }
      };
      const statuses = new Map<number, number>();
      for (let n = 0; n < 150; n++) {
        const method = pick(methods);
        const headers: Record<string, string> = pick([
          modernHeaders(method, pick(["echo", "=?base64?!?=", "=?base64?ZWNobw==?="])),
          legacyHeaders(pick([undefined, "2025-03-26", "2025-11-25", "bogus"])),
          { "content-type": pick(["application/json; charset=utf-8", "text/html", "APPLICATION/JSON"]) },
        ]);
        const answer = await post(server.url, bodies(), headers, {
          method: pick(["POST", "POST", "POST", "GET", "PATCH"]),
        });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        assert.ok(answer.status < 500, `seed ${seed}, input ${n}: ${answer.status} ${answer.text}`);
      }
      const still = await post(server.url, modern(1, "tools/list"), modernHeaders("tools/list"));
      assert.equal(still.status, 200, `seed ${seed}: the server still serves`);
      assert.ok(statuses.size > 3, `seed ${seed}: varied answers ${JSON.stringify([...statuses])}`);
    } finally {
      const result = await server.stop();
      assert.equal(result.code, 143, `seed ${seed}: ${result.stderr}`);
      assertNoStackTrace(server);
    }
  });
});
