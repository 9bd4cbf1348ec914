// A client that does not read its event stream, over HTTP: the writes that wait for it share one wait per
// stream, not a listener each (Node and Deno printed MaxListenersExceededWarning … memory leak), and what the
// stream holds for it stays within MAX_QUEUED_NOTIFICATION_BYTES, even when the handler logs before the stream
// begins. `lab mcp listen` spawned for real, driven by a raw socket that reads nothing until the server is
// stuck; and the web-standard handler, whose writes waiting at once must all go on once the client reads.
import { readFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { connect } from "node:net";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type HttpHandler, webHandler } from "../../lib/runtime/http_exchange.ts";
import { MAX_QUEUED_NOTIFICATION_BYTES } from "../../lib/protocol/mcp/notification_budget.ts";
import { modern } from "../helpers/mcp_wire.ts";
import { modernHeaders, portOf, startHttpListener } from "../helpers/http_listener.ts";
import { programArgv } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const LINES = 20_000; // 20 MB of log lines, five times the bound

/** A process's peak resident memory in bytes (Linux), or undefined elsewhere. */
function peakRss(pid: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return found === null ? undefined : Number(found[1]) * 1024;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("a client that does not read its event stream", () => {
  it("lab mcp listen: no listener piles up, the stream holds at most the bound, the call is answered", async () => {
    const server = await startHttpListener((flags) => [...LAB, "mcp", "listen", ...flags]);
    try {
      const before = peakRss(server.child.pid!);
      const body = JSON.stringify(
        modern(1, "tools/call", { name: "chatter", arguments: { lines: LINES, bytes: 1_000 } }, {
          "io.modelcontextprotocol/logLevel": "info",
        }),
      );
      const headers = Object.entries({
        ...modernHeaders("tools/call", "chatter"),
        host: "127.0.0.1",
        "content-length": String(Buffer.byteLength(body)),
      }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
      const socket = connect(portOf(server.url), "127.0.0.1");
      socket.on("error", () => {});
      socket.pause();
      socket.write(`POST /mcp HTTP/1.1\r\n${headers}\r\n${body}`);
      // Not read for a while: the socket fills, and the server's writes wait for the client.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      let received = 0;
      let text = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.length;
        text = (text + chunk.toString("latin1")).slice(-4_096);
      });
      socket.resume();
      await waitFor(() => /"logged":20000/.test(text), "the call's answer");
      socket.destroy();
      assert.doesNotMatch(server.stderr(), /MaxListenersExceeded|memory leak/, server.stderr());
      // The count is logged before the answer is written, but stderr and the socket race to this process.
      await waitFor(
        () => /dropped \d+ progress or log notification/.test(server.stderr()),
        "the drop counted on stderr",
      );
      assert.ok(
        received < MAX_QUEUED_NOTIFICATION_BYTES + 256 * 1024,
        `at most the bound was held for the client: ${received} bytes sent`,
      );
      const after = peakRss(server.child.pid!);
      if (before !== undefined && after !== undefined) {
        // 20 MB of events held for the client would be ~100 MiB more, as UTF-16 strings and their bytes.
        assert.ok(after - before < 64 * 1024 * 1024, `the server's peak memory grew ${after - before} bytes`);
      }
    } finally {
      await server.stop();
    }
  });

  it("webHandler: every write that waited goes on once the client reads, and the stream ends", async () => {
    const written: number[] = [];
    const handler: HttpHandler = () =>
      Promise.resolve({
        status: 200,
        headers: { "content-type": "text/event-stream" },
        // 200 writes at once, 200 KB: most wait for the client, all on one wait.
        events: (sink) =>
          Promise.all(Array.from({ length: 200 }, (_, n) =>
            sink.write(`: ${"x".repeat(1_000)}\n\n`).then(() =>
              void written.push(n)
            ))).then(() => {}),
      });
    const response = await webHandler(handler)(new Request("http://127.0.0.1/mcp"));
    const read = response.text();
    const late = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 10_000));
    const text = await Promise.race([read, late]);
    assert.notEqual(text, "late", `the stream did not end: ${written.length} of 200 writes went on`);
    assert.equal(written.length, 200);
    assert.equal((text as string).length, 200 * 1_004);
  });
});
