import type { JsonToolResult } from "../../protocol/mcp/mod.ts";
import type { ResponseEnvelope } from "../envelope.ts";

/**
 * A command's envelope as an MCP tool result (SPEC §6): `structuredContent` is the envelope, `content` its
 * JSON text, `isError` is `!ok`. The envelope is serialised once, here; the server splices the text into
 * both places.
 *
 * @example
 * ```ts
 * envelopeResult(envelope).isError; // false when envelope.ok
 * ```
 */
export function envelopeResult(envelope: ResponseEnvelope): JsonToolResult {
  return { json: JSON.stringify(envelope), isError: !envelope.ok };
}
