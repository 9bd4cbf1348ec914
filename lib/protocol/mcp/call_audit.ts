/**
 * The audit trail of authenticated calls: one stderr line per `tools/call` an authenticated caller makes —
 * when, who, which tool, how it ended (docs/auth.md#the-audit-line). The line is JSON after a fixed prefix, so
 * a subject or tool name cannot break it into two, and it holds no argument, result or token.
 * @module
 */
import type { McpCaller } from "./caller.ts";
import type { ToolCallOutcome } from "./tool_catalog.ts";

/**
 * How an audited call ended: it ran and succeeded (`ok`) or failed as a command (`error`), it asks the client
 * first (`input_required`), it was refused for want of scopes (`denied`), the tool is unknown, the call was
 * answered with a JSON-RPC error (`rpc_error`), the client or the server cancelled it, or it broke (`failed`).
 *
 * @example
 * ```ts
 * const outcome: AuditOutcome = "denied";
 * ```
 */
export type AuditOutcome =
  | "ok"
  | "error"
  | "input_required"
  | "denied"
  | "unknown_tool"
  | "rpc_error"
  | "cancelled"
  | "failed";

/**
 * The audit outcome of a catalog's answer.
 *
 * @example
 * ```ts
 * auditOutcome({ kind: "json_result", result: { json: "{}", isError: true } }, false); // "error"
 * ```
 */
export function auditOutcome(outcome: ToolCallOutcome, cancelled: boolean): AuditOutcome {
  if (cancelled) return "cancelled";
  switch (outcome.kind) {
    case "result":
    case "json_result":
      return outcome.result.isError === true ? "error" : "ok";
    case "input_required":
      return "input_required";
    case "unknown_tool":
      return "unknown_tool";
    case "error":
      return "rpc_error";
  }
}

/**
 * One audit line: `mcp audit: {"time":…,"subject":…,"client_id":…,"tool":…,"outcome":…}`.
 *
 * @example
 * ```ts
 * auditLine({ subject: "ci", scopes: [], claims: {} }, "remove", "denied");
 * // 'mcp audit: {"time":"2026-07-28T10:00:00.000Z","subject":"ci","client_id":null,"tool":"remove","outcome":"denied"}'
 * ```
 */
export function auditLine(caller: McpCaller, tool: string, outcome: AuditOutcome): string {
  return `mcp audit: ${
    JSON.stringify({
      time: new Date().toISOString(),
      subject: caller.subject,
      client_id: caller.clientId ?? null,
      tool,
      outcome,
    })
  }`;
}
