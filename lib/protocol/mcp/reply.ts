/**
 * An MCP answer as the core hands it to a transport, and its JSON text.
 * @module
 */
import { errorResponse, type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";

/**
 * An answer: a message object, its JSON text when already serialised — whole, or in pieces to be written
 * back to back (a long tool result, see `jsonResultReply`) — or `null` for none.
 */
export type Reply = Record<string, unknown> | string | readonly string[] | null;

/**
 * An answer as JSON text: pieces joined, an object serialised — or, when it cannot be (a cycle, a BigInt), an
 * internal error for its id, so the client never waits forever.
 *
 * @example
 * ```ts
 * replyText({ jsonrpc: "2.0", id: 1, result: { size: 10n } }, console.error); // an internal error for id 1
 * ```
 */
export function replyText(reply: Exclude<Reply, null>, log?: (message: string) => void): string {
  if (typeof reply === "string") return reply;
  if (isPieces(reply)) return reply.join("");
  try {
    return JSON.stringify(reply);
  } catch (error) {
    log?.(`mcp: a reply could not be serialised: ${String(error)}`);
    const id = (reply.id as JsonRpcId | null | undefined) ?? null;
    return JSON.stringify(
      errorResponse(id, {
        code: RpcErrorCode.INTERNAL_ERROR,
        message: "Internal error: the result is not serialisable",
      }),
    );
  }
}

/** Whether an answer came in pieces. */
export function isPieces(reply: Exclude<Reply, null>): reply is readonly string[] {
  return Array.isArray(reply);
}

/**
 * The answer to a request whose id names one still open.
 *
 * @example
 * ```ts
 * idInUse(7); // {"jsonrpc":"2.0","id":7,"error":{"code":-32600,...}}
 * ```
 */
export function idInUse(id: JsonRpcId): Reply {
  return errorResponse(id, {
    code: RpcErrorCode.INVALID_REQUEST,
    message: `Invalid request: id ${JSON.stringify(id)} is already in use`,
  });
}
