/**
 * MCP over newline-delimited JSON-RPC — stdio, or one socket connection — on the transport-agnostic core
 * (mcp_core.ts). docs/mcp_wire.md describes every rule; these are the ones applied here:
 *
 * - Framing (#framing): one message per line; a line over the size limit is answered with -32600 and
 *   skipped; invalid UTF-8 or JSON is answered with -32700 and `id: null`; the server goes on.
 * - Batches (#batches): only legacy 2025-03-26 takes them (answered as one array); every other era gets -32600.
 * - Cancellation (#cancellation): `notifications/cancelled` aborts the call's scope and nothing more is sent
 *   for its id; it also ends a subscription, without a final result.
 * - Flow control (#flow-control): a request holds an in-flight slot until its answer is written; at the bound,
 *   reading pauses, so a client that stops reading stdout stops the server reading stdin. An error answer to
 *   a malformed line takes a slot too; each request of a batch takes one while it runs, and the batch's
 *   answer one while it is written. A call's progress and log notifications wait for the client up to a
 *   bound, then are dropped and counted on stderr.
 * - End of input (#end-of-input-and-shutdown): open requests finish and are flushed first; the end of the
 *   input is seen only after every earlier line was handed over, so no line is handled twice.
 * @module
 */
import type { ByteBudget } from "../../framing/byte_budget.ts";
import { DEFAULT_MAX_MESSAGE_BYTES, type LineFrame, LineSplitter } from "../../framing/line_splitter.ts";
import type { ByteChannel } from "../../runtime/byte_channel.ts";
import { FrameSession, type FrameStep } from "../frame_session.ts";
import { classifyMessage, decodeJson, errorResponse, type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import type { SlotPool } from "../slot_pool.ts";
import { McpCore, type McpCoreOptions, McpSession } from "./mcp_core.ts";
import { idInUse, isPieces, type Reply, replyText } from "./reply.ts";
import { BATCHING_VERSION } from "./versions.ts";

/**
 * Options of {@linkcode serveMcp}: what is served, and the session's bounds.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options: McpServerOptions = { serverInfo: { name: "notes", version: "1.0.0" }, catalog, maxInFlight: 16 };
 * ```
 */
export interface McpServerOptions extends McpCoreOptions {
  /** Longest accepted message in bytes. @default 67108864 (64 MiB) */
  maxMessageBytes?: number;
  /** Requests open at once before reading pauses. @default 64 */
  maxInFlight?: number;
  /**
   * A bound shared with other sessions (the connections of one listener): a request needs a slot of its own
   * session and one of this pool.
   */
  sharedInFlight?: SlotPool;
  /** Bytes of unfinished messages, shared with other sessions; a message that finds no room is skipped. */
  sharedBuffer?: ByteBudget;
  /** The session ends once nothing arrives for this long with nothing in flight and no subscription. 0: never. */
  idleTimeoutMs?: number;
}

/**
 * The bytes a session runs over, and when to stop.
 *
 * @example
 * ```ts
 * import { processChannel } from "../../runtime/byte_channel.ts";
 *
 * const io: McpServerIO = { channel: processChannel(), log: (line) => console.error(line) };
 * ```
 */
export interface McpServerIO {
  /** The client's messages in, the answers out: `processChannel()`, or `streamChannel(readable, writable)`. */
  channel: ByteChannel;
  /** Ends the session: reading stops and open calls are aborted. */
  signal?: AbortSignal;
  /** A diagnostic line (stderr). */
  log?(message: string): void;
}

/** A call's notifications not yet written beyond this many bytes are dropped (and counted on stderr). */
export const MAX_QUEUED_NOTIFICATION_BYTES = 4 * 1024 * 1024;

/**
 * Serves MCP until the input ends (resolving once every open request is answered and flushed), the signal
 * fires, or the output breaks.
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
  await serveLines(io, new McpCore(options, io.log), options);
}

/**
 * One line session on a core that may serve others too (a listener's connections share one).
 *
 * @example
 * ```ts
 * import { processChannel } from "../../runtime/byte_channel.ts";
 * import { McpCore } from "./mcp_core.ts";
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options = { serverInfo: { name: "notes", version: "1.0.0" }, catalog };
 * await serveLines({ channel: processChannel() }, new McpCore(options), options);
 * ```
 */
export async function serveLines(io: McpServerIO, core: McpCore, options: McpServerOptions): Promise<void> {
  await new LineSession(io, core, options).run();
}

class LineSession {
  readonly #frames: FrameSession<LineFrame, JsonRpcId, never>;
  readonly #mcp: McpSession;
  readonly #log: ((message: string) => void) | undefined;
  readonly #maxMessageBytes: number;
  #queuedNotificationBytes = 0;
  #droppedNotifications = 0;

  constructor(io: McpServerIO, core: McpCore, options: McpServerOptions) {
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#log = io.log;
    this.#frames = new FrameSession(io.channel, {
      name: "mcp",
      splitter: new LineSplitter({
        maxLineBytes: this.#maxMessageBytes,
        ...(options.sharedBuffer === undefined ? {} : { budget: options.sharedBuffer }),
      }),
      ...(options.idleTimeoutMs === undefined ? {} : { idleMs: options.idleTimeoutMs }),
      busy: () => this.#mcp.subscriptions.count > 0,
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      ...(options.sharedInFlight === undefined ? {} : { enclosing: options.sharedInFlight }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      answerAfterStop: true,
      ...(io.log === undefined ? {} : { log: io.log }),
    });
    this.#mcp = new McpSession(core, this.#notify);
  }

  async run(): Promise<void> {
    const unwatch = this.#mcp.core.catalog.watch?.(() => {
      if (!this.#frames.stopped) {
        for (const message of this.#mcp.toolsChanged()) void this.#write(message);
      }
    });
    await this.#frames.run(this.#frame, () => {
      unwatch?.();
      for (const result of this.#mcp.end()) void this.#write(result);
    });
  }

  readonly #frame = (frame: LineFrame): FrameStep<never> => {
    if (frame.kind === "oversized") {
      return this.#answerNow(errorResponse(null, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: frame.bufferFull === true
          ? `Invalid request: message of ${frame.size} bytes arrived while the server's buffer for unfinished messages was full; it was discarded`
          : `Invalid request: message of ${frame.size} bytes exceeds the ${this.#maxMessageBytes}-byte limit; it was discarded`,
      }));
    }
    const decoded = decodeJson(frame.bytes);
    // A whitespace-only line carries no message; anything else unreadable is answered.
    if (!decoded.ok) {
      return isBlank(frame.bytes) ? undefined : this.#answerNow(errorResponse(null, decoded.error));
    }
    const message = classifyMessage(decoded.value);
    switch (message.kind) {
      case "request":
        return this.#request(message.id, message.method, message.params);
      case "notification":
        if (message.method === "notifications/cancelled") this.#cancel(message.params);
        return undefined;
      case "batch":
        return this.#batch(message.items);
      case "invalid":
        return this.#answerNow(errorResponse(message.id, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: `Invalid request: ${message.reason}`,
        }));
      case "response":
        this.#log?.(
          `mcp: ignored a JSON-RPC response from the client (id ${
            JSON.stringify(message.id)
          }): this server sends no requests`,
        );
        return undefined;
    }
  };

  /** A request in a slot of its own, answered once its answer is ready unless it was cancelled first. */
  #request(
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> | undefined {
    const requests = this.#frames.requests;
    if (requests.has(id)) return this.#answerNow(idInUse(id));
    return requests.start(id, (scope, done) => {
      // Cancelled, or the session stopped, while it waited for its slot: it never runs.
      if (scope.aborted) return done();
      const reply = this.#mcp.request(id, method, params, scope);
      if (reply instanceof Promise) void reply.then((answer) => this.#answer(id, answer, done), done);
      else this.#answer(id, reply, done);
    });
  }

  /** Writes a request's answer unless it was cancelled first; `done` once it is written. */
  #answer(id: JsonRpcId, reply: Reply, done: () => void): void {
    try {
      afterWrite(this.#frames.requests.claim(id) ? this.#write(reply) : undefined, done);
    } catch {
      done();
    }
  }

  /** An answer that needs no handler (a malformed message): written in a slot of its own, like any answer. */
  #answerNow(reply: Reply): Promise<void> | undefined {
    return this.#frames.requests.start(undefined, (_scope, done) => afterWrite(this.#write(reply), done));
  }

  #cancel(params: Record<string, unknown> | undefined): void {
    const requestId = params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    // A cancelled subscription ends without a final result.
    if (this.#mcp.subscriptions.cancel(requestId)) return;
    this.#frames.requests.cancel(
      requestId,
      new DOMException(String(params?.reason ?? "cancelled by the client"), "AbortError"),
    );
  }

  /**
   * A legacy 2025-03-26 batch: its requests start in order, each in a slot of its own held while it runs,
   * so a batch never runs more requests at once than the bound allows; the answer, one array, takes a slot
   * while it is written. The promise settles once every request of the batch has started.
   */
  async #batch(items: unknown[]): Promise<void> {
    const era = this.#mcp.era;
    if (era.kind !== "legacy" || era.version !== BATCHING_VERSION || items.length === 0) {
      await this.#answerNow(errorResponse(null, {
        code: RpcErrorCode.INVALID_REQUEST,
        message: items.length === 0
          ? "Invalid request: empty batch"
          : "Invalid request: batching is not supported in this protocol version",
      }));
      return;
    }
    const requests = this.#frames.requests;
    // The batch's answer is owed from now on, so the end of the input waits for it.
    const settle = requests.owe();
    const replies: Array<Promise<Reply> | Reply> = [];
    for (const item of items) {
      const message = classifyMessage(item);
      if (message.kind === "notification") {
        if (message.method === "notifications/cancelled") this.#cancel(message.params);
      } else if (message.kind === "request") {
        const { id } = message;
        if (requests.has(id)) {
          replies.push(idInUse(id));
          continue;
        }
        if (this.#frames.stopped) break;
        const waiting = requests.start(id, (scope, done) => {
          if (scope.aborted) return done();
          const answer = Promise.resolve(this.#mcp.request(id, message.method, message.params, scope))
            .then((reply) => (requests.claim(id) ? reply : null));
          replies.push(answer);
          void answer.then(done, done);
        });
        if (waiting !== undefined) await waiting;
      } else if (message.kind === "invalid" || message.kind === "batch") {
        replies.push(errorResponse(message.kind === "invalid" ? message.id : null, {
          code: RpcErrorCode.INVALID_REQUEST,
          message: `Invalid request: ${message.kind === "batch" ? "a batch cannot nest" : message.reason}`,
        }));
      }
    }
    void Promise.all(replies).then((all) => {
      const answered = all.filter((reply): reply is Exclude<Reply, null> => reply !== null);
      if (answered.length > 0 && !this.#frames.stopped) {
        void this.#answerNow(`[${answered.map((reply) => replyText(reply, this.#log)).join(",")}]`);
      }
      settle();
    });
  }

  /** Writes one answer whole, on a line of its own; `null` writes nothing. */
  #write(reply: Reply): Promise<void> | undefined {
    if (reply === null) return undefined;
    if (!isPieces(reply)) return this.#frames.send(`${replyText(reply, this.#log)}\n`);
    // Queued in one go, so nothing is written between the pieces.
    const last = reply.length - 1;
    for (let i = 0; i < last; i++) void this.#frames.send(reply[i]!);
    return this.#frames.send(`${reply[last]}\n`);
  }

  /**
   * A call's progress or log notification: written when the client reads, dropped once too much waits for it
   * (a client that asked for logs and stopped reading must not grow the server without bound).
   */
  readonly #notify = (message: Record<string, unknown>): void => {
    if (this.#queuedNotificationBytes > MAX_QUEUED_NOTIFICATION_BYTES) {
      this.#droppedNotifications++;
      return;
    }
    const text = `${replyText(message, this.#log)}\n`;
    this.#queuedNotificationBytes += text.length;
    void this.#frames.send(text).then(() => {
      this.#queuedNotificationBytes -= text.length;
      if (this.#droppedNotifications > 0 && this.#queuedNotificationBytes === 0) {
        this.#log?.(
          `mcp: dropped ${this.#droppedNotifications} progress or log notification(s): the client did not read them`,
        );
        this.#droppedNotifications = 0;
      }
    });
  };
}

/**
 * Calls `done` once a write is handed on, from the write's own reaction: returned from another promise's
 * reaction instead, the write would cost that promise two reactions more to adopt it.
 */
function afterWrite(written: Promise<void> | undefined, done: () => void): void {
  if (written === undefined) done();
  else void written.then(done, done);
}

function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09);
}
