/**
 * HTTP benchmark floor: no MCP at all. A `node:http` server on 127.0.0.1 (port 0) that reads each POST's
 * body, JSON.parses it and answers a request (a message with an `id`) with the same tools/call result as the
 * stdio floor, echo_bare.ts — content + structuredContent; a modern request (`_meta` in its params) also gets
 * `resultType` and `_meta.serverInfo` — as `application/json`; a notification gets 202. It checks no header.
 * Runs on Node and, as Deno's implementation of `node:http`, on Deno; the stderr line names the bound URL.
 *
 *   node dist/scripts/bench/http_bare.js
 *   deno run -A scripts/bench/http_bare.ts
 */
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "echo-bare", version: "1.0.0" } };
const decoder = new TextDecoder();

function answer(body: Uint8Array, response: ServerResponse): void {
  const message = JSON.parse(decoder.decode(body));
  if (message.id === undefined) {
    response.writeHead(202).end();
    return;
  }
  const params = message.params ?? {};
  const text = params.arguments?.text;
  const result: Record<string, unknown> = { content: [{ type: "text", text }], structuredContent: { text } };
  if (params._meta !== undefined) {
    result.resultType = "complete";
    result._meta = SERVER_META;
  }
  const reply = JSON.stringify({ jsonrpc: "2.0", id: message.id, result });
  response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
  response.end(reply);
}

function serve(request: IncomingMessage, response: ServerResponse): void {
  const parts: Uint8Array[] = [];
  request.on("data", (chunk: Uint8Array) => parts.push(chunk));
  request.on("end", () => answer(parts.length === 1 ? parts[0]! : Buffer.concat(parts), response));
}

const server = createServer(serve);
server.listen(0, "127.0.0.1", () => {
  console.error(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
