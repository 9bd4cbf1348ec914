/**
 * MCP over newline-delimited JSON-RPC — stdio, or one socket connection: the lines cut and decoded, each
 * message handed to the connection's session (mcp_session.ts, the pipeline every transport shares), and its
 * answers written back as lines. docs/mcp_wire.md describes every rule; these are the ones applied here:
 *
 * - Framing (#framing): one message per line; a line over the size limit is answered with -32600 and
 *   skipped; invalid UTF-8 or JSON is answered with -32700 and `id: null`; the server goes on.
 * - Flow control (#flow-control): while the session's requests are at their bound, reading pauses, so a
 *   client that stops reading stdout stops the server reading stdin; an error answer to a malformed line
 *   takes a slot too.
 * - End of input (#end-of-input-and-shutdown): open requests finish and are flushed first; the end of the
 *   input is seen only after every earlier line was handed over, so no line is handled twice.
 * @module
 */
import type { ByteBudget } from "../../framing/byte_budget.ts";
import { DEFAULT_MAX_MESSAGE_BYTES, type LineFrame, LineSplitter } from "../../framing/line_splitter.ts";
import type { ByteChannel } from "../../runtime/byte_channel.ts";
import { FrameSession, type FrameStep } from "../frame_session.ts";
import { decodeJson, type JsonRpcId, RpcErrorCode } from "../json_rpc.ts";
import type { SlotPool } from "../slot_pool.ts";
import { McpCore, type McpCoreOptions } from "./mcp_core.ts";
import { type Answer, McpSession } from "./mcp_session.ts";
import { messageReply, type Reply } from "./reply.ts";

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
    this.#mcp = new McpSession(core, {
      requests: this.#frames.requests,
      notify: (text) => this.#frames.send(`${text}\n`),
      stopped: () => this.#frames.stopped,
    });
  }

  async run(): Promise<void> {
    const unwatch = this.#mcp.core.catalog.watch?.(() => {
      if (!this.#frames.stopped) {
        for (const message of this.#mcp.toolsChanged()) void this.#write(messageReply(message, this.#log));
      }
    });
    await this.#frames.run(this.#frame, () => {
      unwatch?.();
      for (const result of this.#mcp.end()) void this.#write(messageReply(result, this.#log));
    });
  }

  readonly #frame = (frame: LineFrame): FrameStep<never> => {
    if (frame.kind === "oversized") {
      return this.#mcp.unreadable({
        code: RpcErrorCode.INVALID_REQUEST,
        message: frame.bufferFull === true
          ? `Invalid request: message of ${frame.size} bytes arrived while the server's buffer for unfinished messages was full; it was discarded`
          : `Invalid request: message of ${frame.size} bytes exceeds the ${this.#maxMessageBytes}-byte limit; it was discarded`,
      }, this.#delivery);
    }
    const decoded = decodeJson(frame.bytes);
    if (decoded.ok) return this.#mcp.receive(decoded.value, this.#delivery);
    // A whitespace-only line carries no message; anything else unreadable is answered.
    return isBlank(frame.bytes) ? undefined : this.#mcp.unreadable(decoded.error, this.#delivery);
  };

  /** Every message's answer, written as a line. */
  readonly #delivery = {
    respond: (answer: Answer) => ("reply" in answer ? this.#write(answer.reply) : undefined),
  };

  /** Writes one answer whole, on a line of its own, its pieces queued in one go so nothing comes between. */
  #write(reply: Reply): Promise<void> {
    const { pieces } = reply;
    const last = pieces.length - 1;
    for (let i = 0; i < last; i++) void this.#frames.send(pieces[i]!);
    return this.#frames.send(`${pieces[last]}\n`);
  }
}

function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09);
}
