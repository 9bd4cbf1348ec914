import type { CallToolResult } from "../../protocol/mcp/mod.ts";
import type { ResponseEnvelope } from "../envelope.ts";

/**
 * A command's envelope as an MCP tool result (SPEC §6): `structuredContent` is the envelope, `content` its
 * JSON text, `isError` is `!ok`.
 *
 * @example
 * ```ts
 * envelopeResult(envelope).isError; // false when envelope.ok
 * ```
 */
export function envelopeResult(envelope: ResponseEnvelope): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(envelope) }], structuredContent: envelope, isError: !envelope.ok };
}
