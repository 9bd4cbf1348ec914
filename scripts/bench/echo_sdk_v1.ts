/**
 * Benchmark server: `@modelcontextprotocol/sdk` 1.x `McpServer` + `StdioServerTransport` (legacy era only),
 * one tool `echo {text}`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "echo-v1", version: "1.0.0" });
server.registerTool(
  "echo",
  {
    description: "Echo the given text",
    inputSchema: { text: z.string() },
    outputSchema: { text: z.string() },
  },
  ({ text }) => Promise.resolve({ content: [{ type: "text" as const, text }], structuredContent: { text } }),
);
await server.connect(new StdioServerTransport());
