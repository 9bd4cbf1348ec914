/**
 * One `tools/call` through the core: the call checked, handed to the catalog with its context, and its
 * outcome made the era's answer — a serialised result spliced in as it is.
 * @module
 */
import type { CancelScope } from "../cancel_scope.ts";
import { errorResponse, type JsonRpcId, resultResponse, RpcErrorCode } from "../json_rpc.ts";
import { CallContext, type CallNotifier, progressToken } from "./call_context.ts";
import { auditLine, auditOutcome } from "./call_audit.ts";
import { type McpCaller, missingScopes, scopeRefusal } from "./caller.ts";
import type { Reply } from "./reply.ts";
import type { LogLevel } from "./request_meta.ts";
import type { JsonToolResult, ToolCallOutcome, ToolCatalog } from "./tool_catalog.ts";
import { isRecord } from "../../json.ts";

/**
 * What a call needs of its session: where its notifications go, and the server's catalog and `_meta`.
 *
 * @example
 * ```ts
 * import type { McpSession } from "./mcp_core.ts";
 *
 * declare const session: McpSession;
 * const host: CallHost = session;
 * ```
 */
export interface CallHost extends CallNotifier {
  /** The authenticated caller, when there is one: its scopes are checked and each call audited. */
  readonly caller: McpCaller | undefined;
  readonly core: CallNotifier["core"] & {
    readonly catalog: ToolCatalog;
    readonly serverMeta: Record<string, unknown>;
    readonly serverMetaJson: string;
    readonly log: ((message: string) => void) | undefined;
  };
}

/** A serialised tool result at least this long is answered in pieces rather than spliced into one string. */
const SPLICE_LIMIT = 64 * 1024;

/**
 * Answers one `tools/call` in an era: the catalog runs it; its progress and log go through the session. A call
 * of an authenticated caller runs only when its scopes cover the tool's, and leaves an audit line either way.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * declare const host: CallHost;
 * const reply = await callTool(host, 1, { name: "echo", arguments: {} }, new CancelScope(), "modern", {}, undefined);
 * ```
 */
export function callTool(
  session: CallHost,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
  scope: CancelScope,
  era: "modern" | "legacy",
  clientCapabilities: Record<string, unknown>,
  logLevel: LogLevel | undefined,
): Reply | Promise<Reply> {
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (typeof name !== "string") {
    return errorResponse(id, {
      code: RpcErrorCode.INVALID_PARAMS,
      message: "Invalid params: name must be a string",
    });
  }
  if (!isRecord(args)) {
    return errorResponse(id, {
      code: RpcErrorCode.INVALID_PARAMS,
      message: "Invalid params: arguments must be an object",
    });
  }
  const caller = session.caller;
  if (caller !== undefined) {
    const required = session.core.catalog.requiredScopes?.(name);
    if (required !== undefined && missingScopes(caller, required).length > 0) {
      session.core.log?.(auditLine(caller, name, "denied"));
      return errorResponse(id, scopeRefusal(name, required));
    }
  }
  const context = new CallContext(
    era,
    clientCapabilities,
    progressToken(params),
    logLevel,
    session,
    scope,
    caller,
  );
  const call = {
    name,
    arguments: args,
    requestState: params?.requestState,
    inputResponses: params?.inputResponses,
  };
  let outcome: Promise<ToolCallOutcome>;
  try {
    outcome = session.core.catalog.call(call, context);
  } catch (error) {
    outcome = Promise.reject(error);
  }
  return outcome.then(
    (ended) => {
      if (caller !== undefined) {
        session.core.log?.(auditLine(caller, name, auditOutcome(ended, scope.aborted)));
      }
      return callReply(session.core, id, name, context, ended);
    },
    (error: unknown) => {
      session.core.log?.(
        `mcp: tool ${name} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`,
      );
      if (caller !== undefined) session.core.log?.(auditLine(caller, name, "failed"));
      return callReply(session.core, id, name, context, { kind: "error", error: INTERNAL_ERROR });
    },
  );
}

const INTERNAL_ERROR = { code: RpcErrorCode.INTERNAL_ERROR, message: "Internal error" };

/** The answer to a finished call; the call is closed first, so no progress or log can follow the answer. */
function callReply(
  core: CallHost["core"],
  id: JsonRpcId,
  name: string,
  context: CallContext,
  outcome: ToolCallOutcome,
): Reply {
  context.answered = true;
  const era = context.era;
  switch (outcome.kind) {
    case "unknown_tool":
      return errorResponse(id, { code: RpcErrorCode.INVALID_PARAMS, message: `Unknown tool: ${name}` });
    case "error":
      return errorResponse(id, outcome.error);
    case "input_required":
      if (era === "legacy") {
        return errorResponse(id, {
          code: RpcErrorCode.INTERNAL_ERROR,
          message: "Internal error: input_required has no legacy form",
        });
      }
      return resultResponse(id, { resultType: "input_required", ...outcome.result });
    case "json_result":
      return jsonResultReply(core, id, era, outcome.result);
    default:
      return resultResponse(
        id,
        era === "modern"
          ? { resultType: "complete", ...outcome.result, _meta: core.serverMeta }
          : outcome.result,
      );
  }
}

/**
 * The answer to a call whose result came serialised: its text is spliced in twice, escaped once. A long
 * result is answered in pieces: joined, the answer would be one more string as long as both copies.
 */
function jsonResultReply(
  core: CallHost["core"],
  id: JsonRpcId,
  era: "modern" | "legacy",
  result: JsonToolResult,
): string | string[] {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${
    era === "modern" ? `"resultType":"complete",` : ""
  }"content":[{"type":"text","text":`;
  const tail = `,"isError":${result.isError}${era === "modern" ? `,"_meta":${core.serverMetaJson}` : ""}}}`;
  const escaped = JSON.stringify(result.json);
  if (result.json.length < SPLICE_LIMIT) {
    return `${head}${escaped}}],"structuredContent":${result.json}${tail}`;
  }
  return [head, escaped, `}],"structuredContent":`, result.json, tail];
}
