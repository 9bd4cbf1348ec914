/**
 * MCP on a listening socket: the line transport over a Unix domain socket or TCP, many clients at once. Each
 * connection is a session of its own — its own era, its own in-flight bound — over one shared core (so one
 * catalog and one confirmation key), within bounds over all connections: requests in flight, connections,
 * and the bytes of unfinished messages. A client that half-closes (no more requests) has its open calls
 * answered, then the connection closes; one that resets the connection has them cancelled; one that sends
 * nothing for the idle time, with nothing in flight, is disconnected. {@linkcode McpListener.close} stops
 * accepting, lets open calls finish within a grace period, then cancels what is left.
 * @module
 */
import { ByteBudget } from "../../framing/byte_budget.ts";
import type { ByteChannel } from "../../runtime/byte_channel.ts";
import { listenSocket, type SocketAddress, type SocketConnection } from "../../runtime/socket.ts";
import { CancelScope } from "../cancel_scope.ts";
import { SlotPool } from "../slot_pool.ts";
import { type McpServerOptions, serveLines } from "./line_transport.ts";
import { McpCore } from "./mcp_core.ts";
import { LISTENER_DEFAULTS } from "./listener_defaults.ts";

/**
 * Options of {@linkcode listenMcp}: those of a session, plus the bounds over all connections.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const options: McpListenerOptions = {
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 *   maxConnections: 32,
 *   idleTimeoutMs: 60_000,
 * };
 * ```
 */
export interface McpListenerOptions extends Omit<McpServerOptions, "sharedInFlight" | "sharedBuffer"> {
  /** Requests open at once over all connections. @default 256 */
  maxInFlightTotal?: number;
  /** Connections open at once; a connection beyond it is closed at once, with a line on the log. @default 128 */
  maxConnections?: number;
  /**
   * Bytes of unfinished messages held over all connections; a message that finds no room is answered as too
   * long and skipped. @default 268435456 (256 MiB)
   */
  maxBufferedBytes?: number;
  /**
   * A connection that sends nothing for this long, with no request in flight and no subscription open, is
   * closed. 0: never. @default 300000 (5 minutes)
   */
  idleTimeoutMs?: number;
  /** A diagnostic line (stderr). */
  log?(message: string): void;
}

/**
 * A listening MCP server.
 *
 * @example
 * ```ts
 * declare const listener: McpListener;
 * console.error(`${listener.connections} connection(s) open`);
 * await listener.close(1_000);
 * ```
 */
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

/** Why open calls are cancelled when the listener closes. */
const SHUTTING_DOWN = "the server is shutting down";

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
  const shared = new SlotPool(options.maxInFlightTotal ?? LISTENER_DEFAULTS.maxInFlightTotal);
  const budget = new ByteBudget(options.maxBufferedBytes ?? LISTENER_DEFAULTS.maxBufferedBytes);
  const maxConnections = Math.max(1, options.maxConnections ?? LISTENER_DEFAULTS.maxConnections);
  // One core for every connection: one catalog, so one confirmation key.
  const core = new McpCore(options, options.log);
  const sessions = new Set<Promise<void>>();
  // Scopes, not AbortSignals: every connection listens to both, and a scope's listeners are a plain list.
  const draining = new CancelScope();
  const cancelling = new CancelScope();
  const bounds: Shared = { shared, budget, draining, cancelling };
  let open = 0;

  const accept = (connection: SocketConnection) => {
    if (draining.aborted || open >= maxConnections) {
      options.log?.(
        `mcp: refused a connection from ${connection.peer}: ${
          draining.aborted ? "shutting down" : `${maxConnections} connections are open`
        }`,
      );
      connection.close();
      return;
    }
    open++;
    const session = serveConnection(connection, core, options, bounds)
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
      cancelling.abort(new DOMException(SHUTTING_DOWN, "AbortError"));
      await Promise.all([...sessions]);
    },
  };
}

/** What every connection of one listener shares. */
interface Shared {
  shared: SlotPool;
  budget: ByteBudget;
  /** The listener stops reading every connection; open calls still answer. */
  draining: CancelScope;
  /** The listener cancels every open call. */
  cancelling: CancelScope;
}

/**
 * One connection's session. Its input ends when the client half-closes (the open calls still answer), when
 * the listener drains, or when the connection idles out; a reset connection, or the listener's cancelling,
 * cancels its open calls.
 */
async function serveConnection(
  connection: SocketConnection,
  core: McpCore,
  options: McpListenerOptions,
  { shared, budget, draining, cancelling }: Shared,
): Promise<void> {
  const ended = new AbortController();
  const cancel = () => ended.abort(cancelling.reason);
  cancelling.addEventListener("abort", cancel);
  // One signal for the connection's reads: the session's own (the same one for every read, linked once) or
  // the listener's draining ends them.
  const reading = new AbortController();
  const stopReading = () => reading.abort();
  draining.addEventListener("abort", stopReading);
  let linked: AbortSignal | undefined;
  const channel: ByteChannel = {
    read: (signal) => {
      if (signal !== undefined && signal !== linked) {
        linked = signal;
        if (signal.aborted) stopReading();
        else signal.addEventListener("abort", stopReading, { once: true });
      }
      return connection.read(reading.signal).catch((error: unknown) => {
        // A reset: the client is gone, so its calls are cancelled rather than answered to nobody.
        if (!ended.signal.aborted) {
          ended.abort(new DOMException(`the client reset the connection (${String(error)})`, "AbortError"));
        }
        return null;
      });
    },
    write: (data) => connection.write(data),
    release: () => connection.release(),
  };
  const log = options.log;
  try {
    await serveLines(
      { channel, signal: ended.signal, ...(log === undefined ? {} : { log }) },
      core,
      {
        ...options,
        sharedInFlight: shared,
        sharedBuffer: budget,
        idleTimeoutMs: options.idleTimeoutMs ?? LISTENER_DEFAULTS.idleTimeoutMs,
      },
    );
  } finally {
    cancelling.removeEventListener("abort", cancel);
    draining.removeEventListener("abort", stopReading);
    connection.close();
    await connection.closed;
  }
}
