/**
 * MCP on a listening socket: the stdio transport's framing and message rules over a Unix domain socket or
 * TCP, many clients at once. Each connection is a session of its own — its own era, its own in-flight bound
 * — over one shared catalog (so one confirmation key) and one bound over all connections. A connection the
 * client closes has its open calls cancelled; {@linkcode McpListener.close} stops accepting, lets open calls
 * finish within a grace period, then cancels what is left.
 * @module
 */
import type { ByteChannel } from "../../runtime/byte_channel.ts";
import { listenSocket, type SocketAddress, type SocketConnection } from "../../runtime/socket.ts";
import { type McpServerOptions, serveLines } from "./line_transport.ts";
import { McpCore } from "./mcp_core.ts";
import { SlotPool } from "../slot_pool.ts";

/** Options of {@linkcode listenMcp}: those of a session, plus the bounds over all connections. */
export interface McpListenerOptions extends Omit<McpServerOptions, "sharedInFlight"> {
  /** Requests open at once over all connections. @default 256 */
  maxInFlightTotal?: number;
  /** Connections open at once; a connection beyond it is closed at once, with a line on the log. @default 128 */
  maxConnections?: number;
  /** A diagnostic line (stderr). */
  log?(message: string): void;
}

/** A listening MCP server. */
export interface McpListener {
  /** Where it listens (the chosen port for TCP port 0). */
  readonly address: SocketAddress;
  /** Connections open now. */
  readonly connections: number;
  /**
   * Stops accepting, stops reading every connection, lets open calls finish for up to `graceMs`, then
   * cancels the rest; resolves once every session has ended and every connection is closed.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Serves MCP on `address` until closed.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * const listener = await listenMcp({ kind: "tcp", host: "127.0.0.1", port: 0 }, {
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 * });
 * // ... later
 * await listener.close(1_000);
 * ```
 */
export async function listenMcp(address: SocketAddress, options: McpListenerOptions): Promise<McpListener> {
  const shared = new SlotPool(options.maxInFlightTotal ?? 256);
  // One core for every connection: one catalog, so one confirmation key.
  const core = new McpCore(options, options.log);
  const maxConnections = Math.max(1, options.maxConnections ?? 128);
  const sessions = new Set<Promise<void>>();
  const draining = new AbortController();
  const cancelling = new AbortController();
  let open = 0;

  const accept = (connection: SocketConnection) => {
    if (draining.signal.aborted || open >= maxConnections) {
      options.log?.(
        `mcp: refused a connection from ${connection.peer}: ${
          draining.signal.aborted ? "shutting down" : `${maxConnections} connections are open`
        }`,
      );
      connection.close();
      return;
    }
    open++;
    const session = serveConnection(connection, core, options, shared, draining.signal, cancelling.signal)
      .catch((error: unknown) =>
        options.log?.(`mcp: a session from ${connection.peer} failed: ${String(error)}`)
      )
      .finally(() => {
        open--;
        sessions.delete(session);
      });
    sessions.add(session);
  };
  const listener = await listenSocket(address, accept);

  return {
    address: listener.address,
    get connections() {
      return open;
    },
    async close(graceMs = 1_000) {
      draining.abort();
      await listener.close();
      const ended = Promise.all([...sessions]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs))));
      await Promise.race([ended, grace]);
      clearTimeout(timer);
      cancelling.abort();
      await Promise.all([...sessions]);
    },
  };
}

/**
 * One connection's session. Its input ends when the client closes the connection — which cancels the
 * session's open calls — or when the listener drains, which only stops reading: open calls still answer.
 */
async function serveConnection(
  connection: SocketConnection,
  core: McpCore,
  options: McpListenerOptions,
  shared: SlotPool,
  draining: AbortSignal,
  cancelling: AbortSignal,
): Promise<void> {
  const ended = new AbortController();
  const cancel = () => ended.abort();
  cancelling.addEventListener("abort", cancel, { once: true });
  const channel: ByteChannel = {
    async read(signal) {
      const stop = signal === undefined ? draining : AbortSignal.any([signal, draining]);
      const chunk = await connection.read(stop);
      if (chunk === null && !draining.aborted) cancel();
      return chunk;
    },
    write: (data) => connection.write(data),
    release: () => connection.release(),
  };
  const log = options.log;
  try {
    await serveLines({ channel, signal: ended.signal, ...(log === undefined ? {} : { log }) }, core, {
      ...options,
      sharedInFlight: shared,
    });
  } finally {
    cancelling.removeEventListener("abort", cancel);
    connection.close();
    await connection.closed;
  }
}
