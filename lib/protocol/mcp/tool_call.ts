/**
 * One `tools/call` through the core: the call checked, handed to the catalog with its context, and its
 * outcome made the era's answer (a serialised result spliced in by reply.ts). The caller's scopes were
 * checked before (scope_check.ts); here each call an authenticated caller makes leaves its audit line.
 * @module
 */
import type { CancelScope } from "../cancel_scope.ts";
import { type JsonRpcId, resultResponse, RpcErrorCode } from "../json_rpc.ts";
import { CallContext, type CallNotifier, progressToken } from "./call_context.ts";
import { auditLine, auditOutcome } from "./call_audit.ts";
import type { McpCaller } from "./caller.ts";
import { errorReply, messageReply, type Reply, toolResultReply } from "./reply.ts";
import type { LogLevel } from "./request_meta.ts";
import type { ToolCallOutcome, ToolCatalog } from "./tool_catalog.ts";
import { isRecord } from "../../json.ts";

/**
 * What a call needs of its session: where its notifications go, who called, and the server's catalog and
 * `_meta`.
 *
 * @example
 * ```ts
 * import type { McpSession } from "./mcp_session.ts";
 *
 * declare const session: McpSession;
 * const host: CallHost = session;
 * ```
 */
export interface CallHost extends CallNotifier {
  /** The authenticated caller, when there is one: each of its calls is audited. */
  readonly caller: McpCaller | undefined;
  readonly core: CallNotifier["core"] & {
    readonly catalog: ToolCatalog;
    readonly serverMeta: Record<string, unknown>;
    readonly serverMetaJson: string;
    readonly log: ((message: string) => void) | undefined;
  };
}

/**
 * One `tools/call` request as its era's method hands it on.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * declare const session: CallHost;
 * const request: ToolCallRequest = {
 *   session,
 *   id: 1,
 *   params: { name: "echo", arguments: {} },
 *   scope: new CancelScope(),
 *   era: "modern",
 *   clientCapabilities: {},
 * };
 * ```
 */
export interface ToolCallRequest {
  session: CallHost;
  id: JsonRpcId;
  params: Record<string, unknown> | undefined;
  /** The request's cancellation. */
  scope: CancelScope;
  era: "modern" | "legacy";
  /** What the client declared: in the request's `_meta` (modern) or in `initialize` (legacy). */
  clientCapabilities: Record<string, unknown>;
  /** The level the client opted in to for log notifications; absent: none. */
  logLevel?: LogLevel | undefined;
}

/**
 * Answers one `tools/call`: the catalog runs it; its progress and log go through the session.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * declare const session: CallHost;
 * const scope = new CancelScope();
 * const params = { name: "echo", arguments: {} };
 * const reply = await callTool({ session, id: 1, params, scope, era: "modern", clientCapabilities: {} });
 * ```
 */
export function callTool(request: ToolCallRequest): Promise<Reply> {
  const { session, id, params, scope } = request;
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (typeof name !== "string") {
    return Promise.resolve(errorReply(id, {
      code: RpcErrorCode.INVALID_PARAMS,
      message: "Invalid params: name must be a string",
    }));
  }
  if (!isRecord(args)) {
    return Promise.resolve(errorReply(id, {
      code: RpcErrorCode.INVALID_PARAMS,
      message: "Invalid params: arguments must be an object",
    }));
  }
  const caller = session.caller;
  const context = new CallContext({
    era: request.era,
    clientCapabilities: request.clientCapabilities,
    progressToken: progressToken(params),
    logLevel: request.logLevel,
    session,
    cancellation: scope,
    caller,
  });
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
  const log = session.core.log;
  return outcome.then(
    (ended) => {
      if (caller !== undefined) log?.(auditLine(caller, name, auditOutcome(ended, scope.aborted)));
      return callReply(session.core, id, name, context, ended);
    },
    (error: unknown) => {
      log?.(
        `mcp: tool ${name} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`,
      );
      if (caller !== undefined) log?.(auditLine(caller, name, "failed"));
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
      return errorReply(id, { code: RpcErrorCode.INVALID_PARAMS, message: `Unknown tool: ${name}` });
    case "error":
      return errorReply(id, outcome.error);
    case "input_required":
      if (era === "legacy") {
        return errorReply(id, {
          code: RpcErrorCode.INTERNAL_ERROR,
          message: "Internal error: input_required has no legacy form",
        });
      }
      return messageReply(resultResponse(id, { resultType: "input_required", ...outcome.result }), core.log);
    case "json_result": {
      const { json, isError } = outcome.result;
      return era === "modern"
        ? toolResultReply({ id, json, isError, modernMetaJson: core.serverMetaJson })
        : toolResultReply({ id, json, isError });
    }
    default:
      return messageReply(
        resultResponse(
          id,
          era === "modern"
            ? { resultType: "complete", ...outcome.result, _meta: core.serverMeta }
            : outcome.result,
        ),
        core.log,
      );
  }
}
