import type { CallToolResult } from "../../protocol/mcp/mod.ts";
import { makeEnvelope, type ResponseEnvelope } from "../envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import type { InputIssue } from "../input_values.ts";

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

/**
 * The ARG_ERROR envelope of tool arguments that failed validation; nothing ran.
 *
 * @example
 * ```ts
 * argumentErrorEnvelope([{ field: "limit", message: "limit expects an integer, got 'x'" }], performance.now());
 * ```
 */
export function argumentErrorEnvelope(issues: InputIssue[], startedAt: number): ResponseEnvelope {
  return makeEnvelope({
    exitCode: ExitCode.ARG_ERROR,
    error: {
      code: "ARG_ERROR",
      message: issues.map((issue) => issue.message).join("; "),
      retryable: false,
      phase: "validation",
      ...(issues.some((issue) => issue.suggestion) ? { suggestion: issues.find((issue) => issue.suggestion)!.suggestion } : {}),
      issues,
    },
    startedAt,
  });
}
