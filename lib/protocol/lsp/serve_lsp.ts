/**
 * The LSP lifecycle over stdio (LSP 3.17 "Lifecycle Messages", "Base Protocol"), one rule at a time:
 * - Framing: Content-Length headers. A body that is not JSON (or not UTF-8) is answered with -32700 and id
 *   null; an oversized body is skipped and answered -32600 with its id when its first bytes show one. A header
 *   block without a usable Content-Length loses the message boundary: -32700 with id null, then the session
 *   ends with exit 1 ({@linkcode ProtocolEndCode.FRAMING_ERROR}).
 * - Before `initialize` is answered, a request gets -32002 ServerNotInitialized and a notification is dropped,
 *   except `exit`. `initialize` is answered once; a second one is an InvalidRequest.
 * - `shutdown` runs the shutdown hook and answers null; afterwards a request is an InvalidRequest and a
 *   notification other than `exit` is dropped.
 * - `exit` ends the session: clean (exit 0, no envelope) after `shutdown`, else exit 1 with
 *   {@linkcode ProtocolEndCode.EXIT_WITHOUT_SHUTDOWN}.
 * - stdin EOF ends the session cleanly once the requests in progress are answered (REQ-C-032: exit 0).
 * - Requests run concurrently, up to a bound; notifications run in arrival order, each finished before the
 *   next message is dispatched, so a `didChange` is applied before a later request reads the document.
 * - `$/cancelRequest` aborts the request's AbortSignal and answers it -32800 RequestCancelled at once; the
 *   handler's late result is dropped. Unknown requests get -32601; unknown notifications are ignored.
 * - Every response and notification is written whole, never interleaved. The server sends no requests, so a
 *   response from the client matches nothing and is ignored.
 */
import type { ProtocolFailure, ProtocolIO } from "../protocol_io.ts";
import { ExitCode } from "../../exit_code.ts";
import { encodeContentLength } from "../../framing/content_length_framer.ts";
import {
  ContentLengthServer,
  errorText,
  type FrameAnswers,
  type FrameOutcome,
  frameResponse,
} from "../content_length_server.ts";
import { whenSettled } from "../in_flight.ts";
import { peekTopLevelMembers } from "../peek_members.ts";
import {
  classifyMessage,
  decodeJson,
  errorResponse,
  isJsonRpcId,
  type JsonRpcId,
  resultResponse,
  type RpcError,
  RpcErrorCode,
} from "../json_rpc.ts";
import { ProtocolEndCode } from "../session_end.ts";
import { LspResponseError } from "./lsp_response_error.ts";
import type { LspContext, LspHandlers, LspOptions } from "./lsp_handlers.ts";

/**
 * Serves the Language Server Protocol on a protocol command's stdin and stdout until the client ends the
 * session. Resolves `undefined` for a clean end (`shutdown` then `exit`, or stdin EOF: exit 0, no
 * envelope), or a {@linkcode ProtocolFailure} with exit code 1 (`exit` without `shutdown`, or input that
 * cannot be framed) — so the command declares "0" and "1". See the module comment for every rule.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 * import type { LspHandlers } from "./lsp_handlers.ts";
 *
 * declare const handlers: LspHandlers;
 * const tool = createTool({ name: "notes", version: "1.0.0", description: "Keep notes" });
 * tool.command("lsp", {
 *   description: "Serve the Language Server Protocol over stdio",
 *   danger_level: "safe",
 *   required_scopes: [],
 *   stdout: "protocol",
 *   protocol: "lsp",
 *   exit_codes: {
 *     "0": {
 *       name: "SUCCESS",
 *       description: "shutdown then exit, or stdin closed",
 *       retryable: false,
 *       side_effects: "none",
 *     },
 *     "1": { name: "GENERAL_ERROR", description: "exit without shutdown", retryable: false, side_effects: "none" },
 *   },
 *   serve: () => (io) => serveLsp(io, handlers),
 * });
 * ```
 */
export async function serveLsp(
  io: ProtocolIO,
  handlers: LspHandlers,
  options: LspOptions = {},
): Promise<void | ProtocolFailure> {
  return await new LspServer(io, handlers, options).run();
}

type Lifecycle = "uninitialized" | "running" | "shut-down";

const EXIT_WITHOUT_SHUTDOWN: ProtocolFailure = {
  exitCode: ExitCode.GENERAL_ERROR,
  code: ProtocolEndCode.EXIT_WITHOUT_SHUTDOWN,
  message:
    "the client sent exit without a shutdown request first, so the server exits with 1 as LSP specifies",
};

class LspServer {
  readonly #io: ProtocolIO;
  readonly #handlers: LspHandlers;
  /** Its `ended` is the signal of initialize, shutdown and notification handlers. */
  readonly #loop: ContentLengthServer<JsonRpcId>;
  #state: Lifecycle = "uninitialized";

  constructor(io: ProtocolIO, handlers: LspHandlers, options: LspOptions) {
    this.#io = io;
    this.#handlers = handlers;
    this.#loop = new ContentLengthServer(io, "lsp", options);
  }

  run(): Promise<void | ProtocolFailure> {
    const answers: FrameAnswers = {
      name: "lsp",
      message: (bytes) => this.#onMessage(bytes),
      oversized: (head, problem) => {
        const { id } = peekTopLevelMembers(head, ["id"]);
        return this.#reply(isJsonRpcId(id) ? id : null, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: `Invalid request: ${problem}`,
        });
      },
      framingLost: (problem) =>
        this.#reply(null, { code: RpcErrorCode.PARSE_ERROR, message: `Parse error: ${problem}` }),
    };
    return this.#loop.run(answers);
  }

  async #onMessage(bytes: Uint8Array): Promise<FrameOutcome> {
    const decoded = decodeJson(bytes);
    if (!decoded.ok) {
      await this.#reply(null, decoded.error);
      return undefined;
    }
    const message = classifyMessage(decoded.value);
    switch (message.kind) {
      case "batch":
        await this.#reply(null, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: "Invalid request: LSP does not use JSON-RPC batches",
        });
        return undefined;
      case "invalid":
        await this.#reply(message.id, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: `Invalid request: ${message.reason}`,
        });
        return undefined;
      case "response":
        return undefined;
      case "notification":
        return await this.#onNotification(message.method, message.params);
      case "request":
        await this.#onRequest(message.id, message.method, message.params);
        return undefined;
    }
  }

  async #onNotification(method: string, params: unknown): Promise<FrameOutcome> {
    if (method === "exit") return { end: this.#state === "shut-down" ? undefined : EXIT_WITHOUT_SHUTDOWN };
    if (this.#state !== "running") return undefined;
    if (method === "$/cancelRequest") {
      this.#cancel((params as { id?: unknown } | undefined)?.id);
      return undefined;
    }
    const handler = ownHandler(this.#handlers.notifications, method);
    if (handler === undefined) return undefined;
    try {
      await handler(params, this.#context(this.#loop.ended.signal));
    } catch (error) {
      this.#logFailure(`notification ${method}`, error);
    }
    return undefined;
  }

  async #onRequest(id: JsonRpcId, method: string, params: unknown): Promise<void> {
    if (method === "initialize") return await this.#initialize(id, params);
    if (this.#state === "uninitialized") {
      return await this.#reply(id, {
        code: RpcErrorCode.SERVER_NOT_INITIALIZED,
        message: `Server not initialized: send initialize before ${method}`,
      });
    }
    if (this.#state === "shut-down") {
      return await this.#reply(id, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: `Invalid request: the server is shut down; only the exit notification is accepted`,
      });
    }
    if (method === "shutdown") return await this.#shutdown(id);
    const handler = ownHandler(this.#handlers.requests, method);
    if (handler === undefined) {
      return await this.#reply(id, {
        code: RpcErrorCode.METHOD_NOT_FOUND,
        message: `Method not found: ${method}`,
      });
    }
    const requests = this.#loop.requests;
    if (requests.has(id)) {
      return await this.#reply(id, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: `Invalid request: id ${JSON.stringify(id)} belongs to a request still in progress`,
      });
    }
    await requests.start(
      id,
      whenSettled(async (scope) => {
        const response = await this.#settle(id, method, () => handler(params, this.#context(scope.signal)));
        if (requests.claim(id)) await this.#respond(id, response);
      }),
    );
  }

  async #initialize(id: JsonRpcId, params: unknown): Promise<void> {
    if (this.#state !== "uninitialized") {
      return await this.#reply(id, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: "Invalid request: initialize may be sent only once",
      });
    }
    const response = await this.#settle(
      id,
      "initialize",
      () => this.#handlers.initialize(params, this.#context(this.#loop.ended.signal)),
    );
    if ("result" in response) this.#state = "running";
    await this.#respond(id, response);
  }

  async #shutdown(id: JsonRpcId): Promise<void> {
    // Refuse requests from here on, also those arriving while the hook runs.
    this.#state = "shut-down";
    const response = await this.#settle(
      id,
      "shutdown",
      () => this.#handlers.shutdown?.(this.#context(this.#loop.ended.signal)),
    );
    await this.#respond(id, response);
  }

  #cancel(id: unknown): void {
    if (!isJsonRpcId(id)) return;
    if (!this.#loop.requests.cancel(id, new DOMException("The client cancelled the request", "AbortError"))) {
      return;
    }
    void this.#reply(id, { code: RpcErrorCode.REQUEST_CANCELLED, message: "Request cancelled" });
  }

  /** Runs a handler and turns its outcome into a response. */
  async #settle(id: JsonRpcId, method: string, call: () => unknown): Promise<Record<string, unknown>> {
    try {
      return resultResponse(id, (await call()) ?? null);
    } catch (error) {
      if (error instanceof LspResponseError) {
        return errorResponse(id, {
          code: error.code,
          message: error.message,
          ...(error.data === undefined ? {} : { data: error.data }),
        });
      }
      this.#logFailure(`request ${method}`, error);
      return errorResponse(id, {
        code: RpcErrorCode.INTERNAL_ERROR,
        message: `Internal error: ${errorText(error)}`,
      });
    }
  }

  #reply(id: JsonRpcId | null, error: RpcError): Promise<void> {
    return this.#respond(id, errorResponse(id, error));
  }

  #respond(id: JsonRpcId | null, response: Record<string, unknown>): Promise<void> {
    const bytes = frameResponse(encodeContentLength, response, (reason) =>
      errorResponse(id, {
        code: RpcErrorCode.INTERNAL_ERROR,
        message: `Internal error: the result ${reason}`,
      }));
    return this.#loop.send(bytes);
  }

  #context(signal: AbortSignal): LspContext {
    return {
      signal,
      notify: (method, params) =>
        this.#loop.send(
          encodeContentLength({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }),
        ),
      log: (message) => this.#io.log(message),
    };
  }

  #logFailure(what: string, error: unknown): void {
    this.#io.log(
      `lsp: ${what} failed: ${error instanceof Error && error.stack ? error.stack : errorText(error)}`,
    );
  }
}

/** A handler by method name; inherited members (`constructor`, `toString`) are never handlers. */
function ownHandler<H>(table: Readonly<Record<string, H>> | undefined, method: string): H | undefined {
  return table !== undefined && Object.hasOwn(table, method) ? table[method] : undefined;
}
