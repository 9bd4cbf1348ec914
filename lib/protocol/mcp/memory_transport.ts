/**
 * MCP in memory: messages in as values, every message the server sends out as a value — one session of
 * the pipeline (mcp_session.ts) with no bytes in between. For tests, and for a program of your own that
 * serves its tools to an agent running in the same process.
 * @module
 */
import { InFlight } from "../in_flight.ts";
import type { JsonRpcId } from "../json_rpc.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "../slot_pool.ts";
import { McpCore, type McpCoreOptions } from "./mcp_core.ts";
import { type Answer, McpSession } from "./mcp_session.ts";
import { messageReply, replyText } from "./reply.ts";

/**
 * Options of an {@linkcode McpMemoryTransport}: what is served, where the server's messages go, and the
 * session's bound.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options: McpMemoryOptions = {
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 *   onMessage: (message) => console.log(message),
 * };
 * ```
 */
export interface McpMemoryOptions extends McpCoreOptions {
  /**
   * Gets each message the server sends — answers, progress and log notifications, list changes — as a
   * client decodes it off the wire: a fresh JSON value, in the order the server sends them.
   */
  onMessage(message: unknown): void;
  /** Requests open at once; `send` waits beyond them. @default 64 */
  maxInFlight?: number;
  /** A diagnostic line. */
  log?(message: string): void;
}

/**
 * One MCP session in memory, in both eras, with the wire's rules: `send` a request, a notification or a
 * batch; the answers come to `onMessage`.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * const server = new McpMemoryTransport({
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 *   onMessage: (message) => console.log(JSON.stringify(message)),
 * });
 * await server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } });
 * await server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
 * await server.close();
 * ```
 */
export class McpMemoryTransport {
  readonly #session: McpSession;
  readonly #onMessage: (message: unknown) => void;
  readonly #unwatch: (() => void) | undefined;
  /** Settles once the last message sent was taken: the next one waits for it. */
  #taken: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: McpMemoryOptions) {
    const core = new McpCore(options, options.log);
    this.#onMessage = options.onMessage;
    this.#session = new McpSession(core, {
      requests: new InFlight<JsonRpcId>(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT),
      notify: (text) => this.#deliver(text),
    });
    this.#unwatch = options.catalog.watch?.(() => {
      for (const message of this.#session.toolsChanged()) this.#deliver(replyText(messageReply(message)));
    });
  }

  /**
   * Hands the server one decoded message (a batch is an array); resolves once the server has taken it,
   * which waits while `maxInFlight` requests are open. Messages are taken in the order they are sent.
   */
  send(message: unknown): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("mcp: the in-memory session is closed"));
    const taken = this.#taken.then(() => this.#session.receive(message, this.#delivery));
    this.#taken = taken;
    return taken;
  }

  /**
   * Ends the session: nothing more is taken, the open requests are answered, and each open subscription
   * gets its final result.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#taken;
    await this.#session.requests.answered();
    this.#unwatch?.();
    for (const result of this.#session.end()) this.#deliver(replyText(messageReply(result)));
  }

  readonly #delivery = {
    respond: (answer: Answer): undefined => {
      if ("reply" in answer) this.#deliver(replyText(answer.reply));
      return undefined;
    },
  };

  /** A message as its receiver decodes it: a value of its own, shared with nothing of the server's. */
  #deliver(text: string): undefined {
    this.#onMessage(JSON.parse(text));
    return undefined;
  }
}
