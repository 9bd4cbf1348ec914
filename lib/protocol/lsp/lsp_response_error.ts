/**
 * A failure an LSP request handler reports on purpose: the JSON-RPC error `code` and `message` (and optional
 * `data`) the client receives. Anything else a handler throws is answered as InternalError (-32603) and its
 * stack goes to stderr.
 *
 * @example
 * ```ts
 * import { RpcErrorCode } from "@toolwire/toolwire/mcp";
 *
 * throw new LspResponseError(RpcErrorCode.INVALID_PARAMS, "position is outside the document");
 * ```
 */
export class LspResponseError extends Error {
  /** The JSON-RPC error code, e.g. -32602 InvalidParams or LSP's -32803 RequestFailed. */
  readonly code: number;
  /** Extra detail for the client, sent as the error's `data`. */
  readonly data: unknown;

  /** A failure with a JSON-RPC error code, a message for the client, and optional `data`. */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "LspResponseError";
    this.code = code;
    this.data = data;
  }
}
