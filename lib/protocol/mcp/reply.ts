/**
 * An MCP answer as the core hands it to a transport: its JSON text, made here and nowhere else — an object
 * serialised, a serialised tool result spliced in, a batch's answers joined.
 * @module
 */
import { errorResponse, type JsonRpcId, type RpcError, RpcErrorCode } from "../json_rpc.ts";

/**
 * One answer, serialised: its text in pieces to be written back to back (one piece, but for a long tool
 * result), and its error when it is an error answer (HTTP takes its status from it).
 *
 * @example
 * ```ts
 * const reply: Reply = { pieces: ['{"jsonrpc":"2.0","id":1,"result":{}}'] };
 * ```
 */
export interface Reply {
  /** The JSON text, in pieces; joined, one JSON-RPC message or a batch's array. */
  readonly pieces: readonly string[];
  /** The error of an error answer. */
  readonly error?: RpcError;
}

/** A serialised tool result at least this long is answered in pieces rather than spliced into one string. */
const SPLICE_LIMIT = 64 * 1024;

/**
 * A message as a reply — or, when it cannot be serialised (a cycle, a BigInt), an internal error for its id,
 * so the client never waits forever.
 *
 * @example
 * ```ts
 * messageReply({ jsonrpc: "2.0", id: 1, result: { size: 10n } }, console.error); // an internal error for id 1
 * ```
 */
export function messageReply(message: Record<string, unknown>, log?: (message: string) => void): Reply {
  const error = message.error as RpcError | undefined;
  try {
    return error === undefined
      ? { pieces: [JSON.stringify(message)] }
      : { pieces: [JSON.stringify(message)], error };
  } catch (thrown) {
    log?.(`mcp: a reply could not be serialised: ${String(thrown)}`);
    const id = (message.id as JsonRpcId | null | undefined) ?? null;
    return errorReply(id, {
      code: RpcErrorCode.INTERNAL_ERROR,
      message: "Internal error: the result is not serialisable",
    });
  }
}

/**
 * An error answer.
 *
 * @example
 * ```ts
 * errorReply(7, { code: -32601, message: "Method not found: x" }).error?.code; // -32601
 * ```
 */
export function errorReply(id: JsonRpcId | null, error: RpcError): Reply {
  return { pieces: [JSON.stringify(errorResponse(id, error))], error };
}

/**
 * The answer to a call whose result came serialised (`json`, the output of `JSON.stringify`): the text is
 * spliced in twice, escaped once — as the text item and as `structuredContent`. A long result stays in
 * pieces: joined, the answer would be one more string as long as both copies.
 *
 * @example
 * ```ts
 * toolResultReply({ id: 1, json: '{"ok":true}', isError: false }).pieces.join("");
 * // '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"ok\":true}"}],...}}'
 * ```
 */
export function toolResultReply(
  result: { id: JsonRpcId; json: string; isError: boolean; modernMetaJson?: string },
): Reply {
  const modern = result.modernMetaJson !== undefined;
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(result.id)},"result":{${
    modern ? `"resultType":"complete",` : ""
  }"content":[{"type":"text","text":`;
  const tail = `,"isError":${result.isError}${modern ? `,"_meta":${result.modernMetaJson}` : ""}}}`;
  const escaped = JSON.stringify(result.json);
  if (result.json.length < SPLICE_LIMIT) {
    return { pieces: [`${head}${escaped}}],"structuredContent":${result.json}${tail}`] };
  }
  return { pieces: [head, escaped, `}],"structuredContent":`, result.json, tail] };
}

/**
 * A batch's answers as one array.
 *
 * @example
 * ```ts
 * batchReply([{ pieces: ['{"jsonrpc":"2.0","id":1,"result":{}}'] }]).pieces.join(""); // '[{...}]'
 * ```
 */
export function batchReply(replies: readonly Reply[]): Reply {
  return { pieces: [`[${replies.map(replyText).join(",")}]`] };
}

/**
 * A reply's whole text.
 *
 * @example
 * ```ts
 * replyText({ pieces: ['{"jsonrpc":', '"2.0"}'] }); // '{"jsonrpc":"2.0"}'
 * ```
 */
export function replyText(reply: Reply): string {
  return reply.pieces.length === 1 ? reply.pieces[0]! : reply.pieces.join("");
}
