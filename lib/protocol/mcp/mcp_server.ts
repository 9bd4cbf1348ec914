/**
 * A dual-era MCP server over newline-delimited JSON-RPC. docs/mcp_wire.md describes every rule; the headings
 * below are its sections, in the order this file applies them:
 *
 * - Framing (docs/mcp_wire.md#framing): one message per line; a line over the size limit is answered with
 *   -32600 and skipped; invalid UTF-8 or JSON is answered with -32700 and `id: null`; the server goes on.
 * - Era detection (#era-detection): the opening message decides. `initialize` pins the legacy era; a
 *   request claiming a version in `_meta` pins the modern era — except `server/discover`, which is answered
 *   without pinning; a claim-less `ping` is answered without pinning; any other claim-less request is served
 *   as legacy.
 * - Request metadata (#request-metadata): the `_meta` envelope is validated on EVERY modern request, also
 *   once pinned: -32602 for a missing or malformed key, -32022 with `supported`/`requested` for a version not
 *   served.
 * - Results and paging (#results, #paging): modern results carry `resultType` and `serverInfo` in `_meta`;
 *   list results carry `ttlMs` and `cacheScope`; `tools/list` pages by an opaque cursor.
 * - Cancellation and progress (#cancellation, #progress): `notifications/cancelled` aborts the call's signal
 *   and nothing more is sent for that id; progress only when asked, increasing, never after the response.
 * - Subscriptions (#subscriptions-and-list_changed): a modern `subscriptions/listen` is acknowledged first
 *   (`notifications/subscriptions/acknowledged` with the honoured subset: `toolsListChanged` when the catalog
 *   can change), then each `notifications/tools/list_changed` on it carries its id in `_meta`. It ends on
 *   `notifications/cancelled` (nothing more is sent), or when the session ends (its final `complete` result).
 *   It holds no in-flight slot once acknowledged and does not keep the session open. Legacy clients get the
 *   `listChanged` capability and unsolicited `notifications/tools/list_changed`.
 * - Batches (#batches): only legacy 2025-03-26 takes them (answered as an array); every other era gets -32600.
 * - No requests from the server (#no-requests-from-the-server): the server never writes a JSON-RPC request.
 * - Flow control (#flow-control): at most `maxInFlight` slots are taken; reading pauses until one is free. A
 *   request takes a slot and holds it until its response is written, so a client that stops reading stdout
 *   stops the server reading stdin, and memory stays bounded; an error answer to a malformed line takes one
 *   too. Each request of a batch takes a slot while it runs, and the batch's answer one while it is written.
 * - End of input (#end-of-input-and-shutdown): open requests finish and are flushed first; the end of the
 *   input is seen only after every earlier line was handed over, so no line is handled twice.
 */
import { DEFAULT_MAX_MESSAGE_BYTES, type LineFrame, LineSplitter } from "../../framing/line_framer.ts";
import { SerialWriter } from "../../framing/serial_writer.ts";
import { type ByteChannel, readChunks } from "../../runtime/byte_channel.ts";
import {
  classifyMessage,
  decodeJson,
  errorResponse,
  type JsonRpcId,
  notification,
  resultResponse,
  RpcErrorCode,
} from "../json_rpc.ts";
import { CallContext, type Notifier, progressToken } from "./call_context.ts";
import { type Era, type LegacyEra, routeRequest } from "./era.ts";
import { LOG_LEVELS, type LogLevel, type RequestMeta } from "./request_meta.ts";
import { DEFAULT_MAX_IN_FLIGHT, SlotPool } from "../slot_pool.ts";
import { Subscriptions } from "./subscriptions.ts";
import type { JsonToolResult, ToolCallOutcome, ToolCatalog } from "./tool_catalog.ts";
import { type ToolsPage, toolsPage } from "./tools_page.ts";
import { BATCHING_VERSION, MODERN_VERSIONS, negotiateLegacyVersion } from "./versions.ts";
import { isRecord } from "../../json.ts";

/** Options of {@linkcode serveMcp}. */
export interface McpServerOptions {
  /** The server's name and version, sent in `serverInfo`. */
  serverInfo: { name: string; version: string; title?: string };
  /** Guidance for the client's model. */
  instructions?: string;
  /** The tools served. */
  catalog: ToolCatalog;
  /** Longest accepted message in bytes. @default 67108864 (64 MiB) */
  maxMessageBytes?: number;
  /** Requests open at once before reading pauses. @default 64 */
  maxInFlight?: number;
  /**
   * A bound shared with other sessions (the connections of one listener): a request needs a slot of its own
   * session and one of this pool.
   */
  sharedInFlight?: SlotPool;
  /** Tools per `tools/list` page. @default 100 */
  pageSize?: number;
}

/** The bytes a session runs over, and when to stop. */
export interface McpServerIO {
  /** The client's messages in, the answers out: `processChannel()`, or `streamChannel(readable, writable)`. */
  channel: ByteChannel;
  /** Ends the session: reading stops and open calls are aborted. */
  signal?: AbortSignal;
  /** A diagnostic line (stderr). */
  log?(message: string): void;
}

const MODERN: Era = { kind: "modern" };

/**
 * A response: a message object, its JSON text when already serialised — whole, or in pieces that are
 * written back to back (see `#jsonResult`) — or `null` for no answer.
 */
type Reply = Record<string, unknown> | string | readonly string[] | null;

/** A serialised tool result at least this long is written in pieces rather than spliced into one string. */
const SPLICE_LIMIT = 64 * 1024;

/**
 * Serves MCP until stdin ends (resolving once every open request is answered and flushed), the signal fires,
 * or stdout breaks.
 *
 * @example
 * ```ts
 * import { processChannel } from "@toolwire/toolwire/framing";
 * import { type ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * // The process's own stdin and stdout; `streamChannel(readable, writable)` serves anything else.
 * await serveMcp({ channel: processChannel() }, { serverInfo: { name: "notes", version: "1.0.0" }, catalog });
 * ```
 */
export async function serveMcp(io: McpServerIO, options: McpServerOptions): Promise<void> {
  await new McpSession(io, options).run();
}

class McpSession {
  readonly #io: McpServerIO;
  readonly #options: McpServerOptions;
  readonly #out: SerialWriter;
  readonly #open = new Map<JsonRpcId, CallContext>();
  readonly #subscriptions: Subscriptions;
  readonly #capabilities: Record<string, unknown>;
  readonly #notifier: Notifier;
  readonly #serverMeta: Record<string, unknown>;
  readonly #serverMetaJson: string;
  #era: Era = { kind: "opening" };
  /** Slots: requests running or answers being written, of this session and, when shared, of all. */
  readonly #slots: SlotPool;
  readonly #sharedSlots: SlotPool | undefined;
  /** Answers owed: taken requests, malformed lines and batches not yet answered (or dropped). */
  #unanswered = 0;
  #settled: (() => void) | undefined;

  constructor(io: McpServerIO, options: McpServerOptions) {
    this.#io = io;
    this.#options = options;
    this.#out = new SerialWriter(io.channel);
    this.#slots = new SlotPool(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    this.#sharedSlots = options.sharedInFlight;
    this.#serverMeta = {
      "io.modelcontextprotocol/serverInfo": {
        name: options.serverInfo.name,
        version: options.serverInfo.version,
      },
    };
    this.#serverMetaJson = JSON.stringify(this.#serverMeta);
    this.#notifier = { logger: options.serverInfo.name, send: (message) => void this.#reply(message) };
    const toolsCanChange = options.catalog.watch !== undefined;
    this.#capabilities = { tools: toolsCanChange ? { listChanged: true } : {}, logging: {} };
    this.#subscriptions = new Subscriptions(toolsCanChange);
  }

  async run(): Promise<void> {
    // Input is split here, synchronously, chunk by chunk — not piped through a LineFramer, whose
    // per-message enqueue and read promise were a measurable share of a small call's cost.
    const splitter = new LineSplitter({
      maxLineBytes: this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
    const frames: LineFrame[] = [];
    const reading = new AbortController();
    const stop = () => reading.abort();
    const shutdown = () => {
      stop();
      this.#abortOpen(new DOMException("the server is shutting down", "AbortError"));
    };
    this.#io.signal?.addEventListener("abort", shutdown, { once: true });
    if (this.#io.signal?.aborted) shutdown();
    void this.#out.failed.then(stop);
    const unwatch = this.#options.catalog.watch?.(() => this.#toolsChanged());
    try {
      // readChunks reads the next chunk, or sees the end, only once the dispatch of this one has settled.
      await readChunks(this.#io.channel, (chunk) => {
        splitter.push(chunk, frames);
        return this.#dispatch(frames);
      }, reading.signal);
      if (!this.#stopped()) {
        splitter.end(frames);
        await this.#dispatch(frames);
      }
    } catch (error) {
      // A failed read ends the session like EOF, except that a partial last line is not delivered.
      this.#io.log?.(`mcp: reading stdin failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (this.#stopped()) this.#abortOpen();
    // Open requests finish first; the signal still cancels them while they do.
    if (this.#unanswered > 0) await new Promise<void>((resolve) => (this.#settled = resolve));
    this.#io.signal?.removeEventListener("abort", shutdown);
    unwatch?.();
    for (const result of this.#subscriptions.end(this.#serverMeta)) void this.#reply(result);
    await this.#out.flush();
    this.#io.channel.release();
  }

  /**
   * Handles the frames in order and empties the list. A frame that must wait — for a slot, or for a batch's
   * requests to start — returns a promise; the rest of the list waits for it, and so does reading.
   */
  #dispatch(frames: LineFrame[]): Promise<void> | undefined {
    let next = 0;
    const resume = (): Promise<void> | undefined => {
      while (next < frames.length && !this.#stopped()) {
        const waiting = this.#frame(frames[next++]!);
        if (waiting !== undefined) return waiting.then(resume);
      }
      frames.length = 0;
    };
    return resume();
  }

  #stopped(): boolean {
    return this.#out.broken || this.#io.signal?.aborted === true;
  }

  #abortOpen(reason?: unknown): void {
    for (const open of this.#open.values()) open.cancellation.abort(reason);
  }

  // ---- flow control ----

  /** Takes a slot — the session's, then the shared one — at once (`undefined`) or once freed (the promise). */
  #acquire(): Promise<void> | undefined {
    const shared = this.#sharedSlots;
    const own = this.#slots.take();
    if (shared === undefined) return own;
    return own === undefined ? shared.take() : own.then(() => shared.take());
  }

  /** Gives a slot back: the shared one first, so the other sessions' waiters move on too. */
  readonly #release = (): void => {
    this.#sharedSlots?.give();
    this.#slots.give();
  };

  /**
   * Answers one message in a slot: `start` runs once a slot is taken, and its reply holds the slot until it
   * is written. Returns a promise only when it had to wait for the slot.
   */
  #answer(start: () => Promise<Reply> | Reply): Promise<void> | undefined {
    const waiting = this.#acquire();
    if (waiting === undefined) {
      this.#track(start());
      return undefined;
    }
    return waiting.then(() => {
      if (this.#stopped()) return this.#release();
      this.#track(start());
    });
  }

  /** Writes a reply made in a taken slot, then frees the slot; a `null` reply (a cancelled call) writes nothing. */
  #track(reply: Promise<Reply> | Reply): void {
    this.#unanswered++;
    if (reply instanceof Promise) reply.then(this.#send, this.#failed);
    else this.#send(reply);
  }

  // One closure each per session, not per request.
  readonly #send = (reply: Reply): void => {
    if (reply === null) return this.#answered();
    this.#reply(reply).then(this.#answered, this.#answered);
  };

  readonly #failed = (error: unknown): void => {
    this.#internalError(error);
    this.#send(null);
  };

  /** A reply is written (or dropped): its slot is free and one fewer answer is owed. */
  readonly #answered = (): void => {
    this.#release();
    this.#owed();
  };

  #owed(): void {
    if (--this.#unanswered === 0) this.#settled?.();
  }

  #internalError(error: unknown): void {
    this.#io.log?.(
      `mcp: internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`,
    );
  }

  #reply(message: Record<string, unknown> | string | readonly string[]): Promise<void> {
    if (!isPieces(message)) return this.#out.write(`${this.#text(message)}\n`);
    // Queued in one go, so nothing is written between the pieces.
    const last = message.length - 1;
    for (let i = 0; i < last; i++) void this.#out.write(message[i]!);
    return this.#out.write(`${message[last]}\n`);
  }

  #text(message: Record<string, unknown> | string | readonly string[]): string {
    if (typeof message === "string") return message;
    if (isPieces(message)) return message.join("");
    try {
      return JSON.stringify(message);
    } catch (error) {
      // A result that cannot be serialised still gets an answer, so the client never waits forever.
      this.#io.log?.(`mcp: a reply could not be serialised: ${String(error)}`);
      const id = (message.id as JsonRpcId | null | undefined) ?? null;
      return JSON.stringify(
        errorResponse(id, {
          code: RpcErrorCode.INTERNAL_ERROR,
          message: "Internal error: the result is not serialisable",
        }),
      );
    }
  }

  // ---- framing and classification ----

  #frame(frame: LineFrame): Promise<void> | undefined {
    if (frame.kind === "oversized") {
      const limit = this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
      return this.#answer(() =>
        errorResponse(null, {
          code: RpcErrorCode.INVALID_REQUEST,
          message:
            `Invalid request: message of ${frame.size} bytes exceeds the ${limit}-byte limit; it was discarded`,
        })
      );
    }
    const decoded = decodeJson(frame.bytes);
    if (!decoded.ok) {
      // A whitespace-only line carries no message; anything else unreadable is answered.
      return isBlank(frame.bytes) ? undefined : this.#answer(() => errorResponse(null, decoded.error));
    }
    return this.#message(decoded.value);
  }

  #message(value: unknown): Promise<void> | undefined {
    const message = classifyMessage(value);
    switch (message.kind) {
      case "request":
        return this.#answer(() => this.#request(message.id, message.method, message.params));
      case "notification":
        this.#notification(message.method, message.params);
        return undefined;
      case "batch":
        return this.#batch(message.items);
      case "invalid":
        return this.#answer(() =>
          errorResponse(message.id, {
            code: RpcErrorCode.INVALID_REQUEST,
            message: `Invalid request: ${message.reason}`,
          })
        );
      case "response":
        this.#io.log?.(
          `mcp: ignored a JSON-RPC response from the client (id ${
            JSON.stringify(message.id)
          }): this server sends no requests`,
        );
        return undefined;
    }
  }

  /**
   * A legacy 2025-03-26 batch: its requests start in order, each in a slot of its own held while it runs,
   * so a batch never runs more requests at once than the bound allows; the answer, one array, takes a slot
   * while it is written. The promise settles once every request of the batch has started.
   */
  #batch(items: unknown[]): Promise<void> | undefined {
    const era = this.#era;
    if (era.kind !== "legacy" || era.version !== BATCHING_VERSION || items.length === 0) {
      return this.#answer(() =>
        errorResponse(null, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: items.length === 0
            ? "Invalid request: empty batch"
            : "Invalid request: batching is not supported in this protocol version",
        })
      );
    }
    this.#unanswered++;
    const replies: Array<Promise<Reply> | Reply> = [];
    const started = this.#startBatch(items, replies);
    void started
      .then(() => Promise.all(replies))
      .then((all) => {
        const answered = all.filter((reply) => reply !== null);
        if (answered.length === 0 || this.#stopped()) return this.#owed();
        const text = `[${answered.map((reply) => this.#text(reply)).join(",")}]`;
        const write = () => void this.#reply(text).then(this.#answered, this.#answered);
        const waiting = this.#acquire();
        if (waiting === undefined) write();
        else void waiting.then(write);
      });
    return started;
  }

  async #startBatch(items: unknown[], replies: Array<Promise<Reply> | Reply>): Promise<void> {
    for (const item of items) {
      const message = classifyMessage(item);
      if (message.kind === "notification") {
        this.#notification(message.method, message.params);
      } else if (message.kind === "request") {
        const waiting = this.#acquire();
        if (waiting !== undefined) await waiting;
        if (this.#stopped()) return this.#release();
        replies.push(
          Promise.resolve(this.#request(message.id, message.method, message.params))
            .catch((error: unknown) => (this.#internalError(error), null))
            .finally(this.#release),
        );
      } else if (message.kind === "invalid" || message.kind === "batch") {
        const reason = message.kind === "batch" ? "a batch cannot nest" : message.reason;
        replies.push(errorResponse(message.kind === "invalid" ? message.id : null, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: `Invalid request: ${reason}`,
        }));
      }
    }
  }

  // ---- notifications ----

  #notification(method: string, params: Record<string, unknown> | undefined): void {
    if (method !== "notifications/cancelled") return;
    const requestId = params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    // A cancelled subscription ends without a final result.
    if (this.#subscriptions.cancel(requestId)) return;
    const open = this.#open.get(requestId);
    if (open === undefined) return;
    open.cancelled = true;
    open.cancellation.abort(
      new DOMException(String(params?.reason ?? "cancelled by the client"), "AbortError"),
    );
  }

  // ---- requests, by era ----

  #request(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<Reply> | Reply {
    if (this.#open.has(id) || this.#subscriptions.has(id)) {
      return errorResponse(id, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: `Invalid request: id ${JSON.stringify(id)} is already in use`,
      });
    }
    const route = routeRequest(this.#era, method, params);
    switch (route.kind) {
      case "error":
        return errorResponse(id, route.error);
      case "initialize":
        return this.#initialize(id, params);
      case "ping":
        return resultResponse(id, {});
      case "modern":
        if (route.pins) this.#era = MODERN;
        return this.#modern(id, method, params, route.meta);
      case "legacy":
        if (route.pins) this.#era = route.era;
        return this.#legacy(route.era, id, method, params);
    }
  }

  #modern(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
    meta: RequestMeta,
  ): Promise<Reply> | Reply {
    switch (method) {
      case "server/discover":
        return resultResponse(id, {
          resultType: "complete",
          supportedVersions: [...MODERN_VERSIONS],
          capabilities: this.#capabilities,
          ...(this.#options.instructions === undefined ? {} : { instructions: this.#options.instructions }),
          ttlMs: 0,
          cacheScope: "private",
          _meta: this.#serverMeta,
        });
      case "tools/list": {
        const page = this.#toolsPage(params);
        if ("error" in page) return errorResponse(id, page.error);
        return resultResponse(id, {
          resultType: "complete",
          ...page,
          ttlMs: 0,
          cacheScope: "private",
          _meta: this.#serverMeta,
        });
      }
      case "tools/call":
        return this.#callTool(id, params, "modern", meta.clientCapabilities, meta.logLevel);
      case "subscriptions/listen":
        // The answer now is the acknowledgement; the subscription's result comes when the session ends.
        return this.#subscriptions.open(id, params);
      default:
        return errorResponse(id, {
          code: RpcErrorCode.METHOD_NOT_FOUND,
          message: `Method not found: ${method}`,
        });
    }
  }

  #legacy(
    era: LegacyEra,
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<Reply> | Reply {
    switch (method) {
      case "initialize":
        if (era.initialized) {
          return errorResponse(id, {
            code: RpcErrorCode.INVALID_REQUEST,
            message: "Invalid request: already initialized",
          });
        }
        return this.#initialize(id, params);
      case "ping":
        return resultResponse(id, {});
      case "tools/list": {
        const page = this.#toolsPage(params);
        return "error" in page ? errorResponse(id, page.error) : resultResponse(id, page);
      }
      case "tools/call":
        return this.#callTool(id, params, "legacy", era.capabilities, era.logLevel);
      case "logging/setLevel": {
        const level = params?.level;
        if (!(LOG_LEVELS as readonly unknown[]).includes(level)) {
          return errorResponse(id, {
            code: RpcErrorCode.INVALID_PARAMS,
            message: `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`,
          });
        }
        era.logLevel = level as LogLevel;
        return resultResponse(id, {});
      }
      default:
        return errorResponse(id, {
          code: RpcErrorCode.METHOD_NOT_FOUND,
          message: `Method not found: ${method}`,
        });
    }
  }

  #initialize(id: JsonRpcId, params: Record<string, unknown> | undefined): Reply {
    const capabilities = params?.capabilities;
    const version = negotiateLegacyVersion(params?.protocolVersion);
    this.#era = {
      kind: "legacy",
      version,
      initialized: true,
      capabilities: typeof capabilities === "object" && capabilities !== null
        ? (capabilities as Record<string, unknown>)
        : {},
    };
    return resultResponse(id, {
      protocolVersion: version,
      capabilities: this.#capabilities,
      serverInfo: this.#options.serverInfo,
      ...(this.#options.instructions === undefined ? {} : { instructions: this.#options.instructions }),
    });
  }

  // ---- subscriptions ----

  /** The catalog's tools changed: every subscriber hears it, and so does an initialized legacy client. */
  #toolsChanged(): void {
    if (this.#stopped()) return;
    for (const message of this.#subscriptions.toolsChanged()) void this.#reply(message);
    const era = this.#era;
    if (era.kind === "legacy" && era.initialized) {
      void this.#reply(notification("notifications/tools/list_changed"));
    }
  }

  // ---- tools ----

  #toolsPage(params: Record<string, unknown> | undefined): ToolsPage {
    return toolsPage(this.#options.catalog.tools(), params?.cursor, this.#options.pageSize ?? 100);
  }

  #callTool(
    id: JsonRpcId,
    params: Record<string, unknown> | undefined,
    era: "modern" | "legacy",
    clientCapabilities: Record<string, unknown>,
    logLevel: LogLevel | undefined,
  ): Promise<Reply> | Reply {
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
    // No listener on the session's signal per call: run() aborts every open call when the session stops.
    const context = new CallContext(era, clientCapabilities, progressToken(params), logLevel, this.#notifier);
    this.#open.set(id, context);
    const call = {
      name,
      arguments: args,
      requestState: params?.requestState,
      inputResponses: params?.inputResponses,
    };
    let outcome: Promise<ToolCallOutcome>;
    try {
      outcome = this.#options.catalog.call(call, context);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    return outcome.then(
      (ended) => this.#callReply(id, name, context, ended),
      (error: unknown) => {
        this.#io.log?.(
          `mcp: tool ${name} failed: ${
            error instanceof Error ? error.stack ?? error.message : String(error)
          }`,
        );
        return this.#callReply(id, name, context, {
          kind: "error",
          error: { code: RpcErrorCode.INTERNAL_ERROR, message: "Internal error" },
        });
      },
    );
  }

  /** The answer to a finished call; it closes the call first, so no progress or log can follow the answer. */
  #callReply(id: JsonRpcId, name: string, context: CallContext, outcome: ToolCallOutcome): Reply {
    context.answered = true;
    this.#open.delete(id);
    // Nothing more is sent for a cancelled request (docs/mcp_wire.md#cancellation).
    if (context.cancelled) return null;
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
        return this.#jsonResult(id, era, outcome.result);
      default:
        return resultResponse(
          id,
          era === "modern"
            ? { resultType: "complete", ...outcome.result, _meta: this.#serverMeta }
            : outcome.result,
        );
    }
  }

  /**
   * The reply to a call whose result came serialised: the text is spliced in twice, escaped once. A long
   * result is answered in pieces: joined, the reply would be one more string as long as both copies.
   */
  #jsonResult(id: JsonRpcId, era: "modern" | "legacy", result: JsonToolResult): string | string[] {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${
      era === "modern" ? `"resultType":"complete",` : ""
    }"content":[{"type":"text","text":`;
    const tail = `,"isError":${result.isError}${
      era === "modern" ? `,"_meta":${this.#serverMetaJson}` : ""
    }}}`;
    const escaped = JSON.stringify(result.json);
    if (result.json.length < SPLICE_LIMIT) {
      return `${head}${escaped}}],"structuredContent":${result.json}${tail}`;
    }
    return [head, escaped, `}],"structuredContent":`, result.json, tail];
  }
}

function isPieces(
  message: Record<string, unknown> | string | readonly string[],
): message is readonly string[] {
  return Array.isArray(message);
}

function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09);
}
