/**
 * HTTP benchmark server: `@modelcontextprotocol/server` 2.x's stateless handler (`createMcpHandler`: the
 * 2026-07-28 era, and the stateless legacy fallback for 2025-era requests) on `node:http`, the way the SDK's
 * documentation mounts it: the localhost Host and Origin guards of `@modelcontextprotocol/node`, then
 * `toNodeHandler(handler)`. One tool `echo {text}`, as in echo_sdk_v2.ts; the stderr line names the bound URL.
 *
 *   node dist/scripts/bench/http_sdk_v2.js
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import * as z from "zod/v4";

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "echo-v2", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Echo the given text",
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ text: z.string() }),
    },
    ({ text }) =>
      Promise.resolve({ content: [{ type: "text" as const, text }], structuredContent: { text } }),
  );
  return server;
});
const serve = toNodeHandler(handler);
const validHost = localhostHostValidation();
const validOrigin = localhostOriginValidation();

const server = createServer((request, response) => {
  if (!validHost(request, response) || !validOrigin(request, response)) return;
  void serve(request, response);
});
server.listen(0, "127.0.0.1", () => {
  console.error(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
