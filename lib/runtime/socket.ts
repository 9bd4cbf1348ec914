/**
 * Listening sockets — a Unix domain socket or TCP — whose connections are byte channels, so a
 * protocol session runs over a socket exactly as it runs over stdio. `node:net` on Node (loaded on first
 * use), `Deno.listen` on Deno (deno_socket.ts: Deno's `node:net` server stops accepting for good once the
 * process ran out of file descriptors).
 * @module
 */
import type * as NodeNet from "node:net";
import { nodeFs, nodeProcess } from "./node_process.ts";
import { deno } from "./deno_api.ts";
import { listenDenoSocket } from "./deno_socket.ts";
import type { SocketAddress, SocketConnection, SocketListener } from "./socket_types.ts";
import { nodeWrite } from "./stdio.ts";
import { nodeStreamReader } from "./stdin_reader.ts";

export type { SocketAddress, SocketConnection, SocketListener } from "./socket_types.ts";

/** How long a closed connection waits for the peer to close its side. */
const CLOSE_GRACE_MS = 1_000;

function netModule(): typeof NodeNet {
  return nodeProcess().getBuiltinModule("node:net") as typeof NodeNet;
}

/**
 * Listens on `address` and hands each connection to `onConnection`. Rejects when the address cannot be
 * listened on (in use, no permission, a missing directory), with the system's error.
 *
 * @example
 * ```ts
 * const listener = await listenSocket({ kind: "tcp", host: "127.0.0.1", port: 0 }, (connection) => {
 *   void connection.write("hello\n").then(() => connection.close());
 * });
 * await listener.close();
 * ```
 */
export function listenSocket(
  address: SocketAddress,
  onConnection: (connection: SocketConnection) => void,
): Promise<SocketListener> {
  if (deno !== undefined) return listenDenoSocket(address, onConnection);
  // Half-open: a client that shuts down its sending side (`shutdown(SHUT_WR)`, `nc -N`) still reads the
  // answers to what it sent; the server ends its side once it has answered.
  const server = netModule().createServer(
    { allowHalfOpen: true },
    (socket) => onConnection(connectionOf(socket)),
  );
  return new Promise<SocketListener>((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      // Errors after listening (an accept failing) must not crash the process.
      server.on("error", () => {});
      // server.close() stops listening at once; its callback waits for every open connection to end, which
      // is the caller's business, not the listener's.
      resolve({ address: boundAddress(address, server), close: () => Promise.resolve(void server.close()) });
    };
    if (address.kind === "unix") server.listen(address.path, listening);
    else server.listen(address.port, address.host, listening);
  });
}

/**
 * Connects to a listening socket: the client side of {@linkcode listenSocket}.
 *
 * @example
 * ```ts
 * const connection = await connectSocket({ kind: "unix", path: "/tmp/tool.sock" });
 * await connection.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
 * ```
 */
export function connectSocket(address: SocketAddress): Promise<SocketConnection> {
  return new Promise<SocketConnection>((resolve, reject) => {
    const socket = address.kind === "unix"
      ? netModule().createConnection(address.path)
      : netModule().createConnection(address.port, address.host);
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(connectionOf(socket));
    });
  });
}

/**
 * Makes a Unix socket path free to listen on: nothing there, or a socket file nobody listens on any more
 * (left by a server that died), which is removed. `live` when a server answers on it, `not-socket` when
 * something else is there — a file, a FIFO, a device — which is never touched.
 *
 * @example
 * ```ts
 * if ((await claimSocketPath("/tmp/tools.sock")) !== "free") console.error("the path is taken");
 * ```
 */
export async function claimSocketPath(path: string): Promise<"free" | "live" | "not-socket"> {
  let isSocket: boolean;
  try {
    isSocket = (await nodeFs().lstat(path)).isSocket();
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return "free";
    throw error;
  }
  if (!isSocket) return "not-socket";
  const refused = await connectSocket({ kind: "unix", path }).then(
    (connection) => (connection.close(), undefined),
    (error: unknown) => (error as { code?: string }).code,
  );
  // Only a refusal (or the file gone meanwhile) means nobody listens: a full backlog (EAGAIN) is a live server.
  if (refused !== "ECONNREFUSED" && refused !== "ENOENT") return "live";
  await nodeFs().rm(path, { force: true });
  return "free";
}

function connectionOf(socket: NodeNet.Socket): SocketConnection {
  // A peer that resets the connection raises `error` on the socket: it ends the session, it is not a crash.
  socket.on("error", () => {});
  socket.setNoDelay?.(true);
  const write = nodeWrite(socket);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const peer = socket.remoteAddress === undefined ? "unix" : `${socket.remoteAddress}:${socket.remotePort}`;
  return {
    peer,
    read: nodeStreamReader(socket),
    write: (data) => socket.destroyed ? Promise.reject(new Error("the connection is closed")) : write(data),
    release: () => {},
    close: () => {
      socket.end();
      // end() waits for the peer to close its side too; a peer that never does is not waited for long.
      const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
      void closed.then(() => clearTimeout(timer));
    },
    closed,
  };
}

function boundAddress(requested: SocketAddress, server: NodeNet.Server): SocketAddress {
  if (requested.kind === "unix") return requested;
  const bound = server.address();
  return typeof bound === "object" && bound !== null
    ? { kind: "tcp", host: requested.host, port: bound.port }
    : requested;
}
