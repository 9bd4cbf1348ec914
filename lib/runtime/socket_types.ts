/**
 * The shapes of a listening socket and its connections, shared by the `node:net` listener and Deno's native one.
 * @module
 */
import type { ByteChannel } from "./byte_channel.ts";

/** Where to listen: a Unix domain socket path, or a TCP host and port (0 = any free port). */
export type SocketAddress = { kind: "unix"; path: string } | { kind: "tcp"; host: string; port: number };

/** One accepted connection. */
export interface SocketConnection extends ByteChannel {
  /** Who connected, for diagnostics: `unix` or `host:port`. */
  readonly peer: string;
  /** Ends the connection: what was written is sent first; a peer that keeps its side open is cut off soon after. */
  close(): void;
  /** Settles once the connection is closed, by either side. */
  readonly closed: Promise<void>;
}

/** A listening socket. */
export interface SocketListener {
  /** Where it listens, with the port the system chose for TCP port 0. */
  readonly address: SocketAddress;
  /** Stops accepting connections at once; open connections are left alone. */
  close(): Promise<void>;
}
