import type { JsonToolResult } from "../../protocol/mcp/tool_catalog.ts";
import { unserialisableJson } from "../cli/cli_output.ts";
import type { ResponseEnvelope } from "../contract/envelope.ts";

/**
 * A command's envelope as an MCP tool result: `structuredContent` is the envelope, `content` its
 * JSON text, `isError` is `!ok`. The envelope is serialised once, here; the server splices the text into
 * both places. Data that cannot be serialised (a cycle, a BigInt, nesting too deep for the runtime's
 * stringifier — a bridged CLI may print any of these) becomes a GENERAL_ERROR envelope, as on the CLI.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope;
 * envelopeResult(envelope).isError; // false when envelope.ok
 * ```
 */
export function envelopeResult(envelope: ResponseEnvelope): JsonToolResult {
  // Not through envelopeJson: its result would be one more object per call, only to be copied into this one.
  let json: string;
  try {
    json = JSON.stringify(envelope);
  } catch (error) {
    return { json: unserialisableJson(envelope, error), isError: true };
  }
  return { json, isError: envelope.meta.exit_code !== 0 };
}
