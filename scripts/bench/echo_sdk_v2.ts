/**
 * Benchmark server: `@modelcontextprotocol/server` 2.x, dual-era (2026-07-28 modern + legacy initialize)
 * through `serveStdio`, one tool `echo {text}`.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod/v4";

serveStdio(() => {
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
