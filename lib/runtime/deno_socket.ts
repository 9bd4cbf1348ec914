/**
 * Listening sockets on Deno through `Deno.listen`, not Deno's `node:net`: once the process runs out of file
 * descriptors, `node:net`'s server stops accepting for good, while a native listener's `accept` fails, is
 * retried after a pause, and serves again once descriptors are free.
 * @module
 */
import type { SocketAddress, SocketConnection, SocketListener } from "./socket_types.ts";

interface DenoConn {
  readonly remoteAddr: { transport: string; hostname?: string; port?: number };
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  closeWrite(): Promise<void>;
  close(): void;
}

interface DenoListener {
  readonly addr: { transport: string; hostname?: string; port?: number; path?: string };
  accept(): Promise<DenoConn>;
  close(): void;
}

type DenoListen = (
  options: { transport: "unix"; path: string } | { transport?: "tcp"; hostname: string; port: number },
) => DenoListener;

/** An accept that fails (out of descriptors) is tried again after this long. */
const ACCEPT_RETRY_MS = 100;

/** How long a closed connection waits for the peer to close its side. */
const CLOSE_GRACE_MS = 1_000;

const encoder = new TextEncoder();

/**
 * Listens on `address` with `Deno.listen` and hands each connection to `onConnection`. Rejects when the
 * address cannot be listened on, with an error whose `code` is Node's (`EADDRINUSE`, `ENOENT`, `EACCES`).
 *
 * @example
 * ```ts
 * const listener = await listenDenoSocket({ kind: "tcp", host: "127.0.0.1", port: 0 }, (connection) => {
 *   void connection.write("hello\n").then(() => connection.close());
 * });
 * await listener.close();
 * ```
 */
export function listenDenoSocket(
  address: SocketAddress,
  onConnection: (connection: SocketConnection) => void,
): Promise<SocketListener> {
  const listen = (globalThis as unknown as { Deno: { listen: DenoListen } }).Deno.listen;
  let listener: DenoListener;
  try {
    listener = address.kind === "unix"
      ? listen({ transport: "unix", path: address.path })
      : listen({ hostname: address.host, port: address.port });
  } catch (error) {
    return Promise.reject(withNodeCode(error));
  }
  let closed = false;
  void (async () => {
    while (!closed) {
      let conn: DenoConn;
      try {
        conn = await listener.accept();
      } catch {
        if (closed) return;
        // Out of descriptors (or a connection reset before it was accepted): pause, then accept again.
        await new Promise((resolve) => setTimeout(resolve, ACCEPT_RETRY_MS));
        continue;
      }
      onConnection(connectionOf(conn));
    }
  })();
  const bound: SocketAddress = address.kind === "unix"
    ? address
    : { kind: "tcp", host: address.host, port: listener.addr.port ?? address.port };
  return Promise.resolve({
    address: bound,
    close: () => {
      closed = true;
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      return Promise.resolve();
    },
  });
}

function connectionOf(conn: DenoConn): SocketConnection {
  const buffer = new Uint8Array(64 * 1024);
  let readOver = false;
  let done = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const finish = () => {
    if (done) return;
    done = true;
    try {
      conn.close();
    } catch {
      // Already closed.
    }
    resolveClosed();
  };
  const remote = conn.remoteAddr;
  return {
    peer: remote.transport === "unix" ? "unix" : `${remote.hostname}:${remote.port}`,
    // A pending read cannot be cancelled: an abort answers the caller with the end, and reading is over.
    read(signal) {
      if (readOver || done || signal?.aborted) return Promise.resolve(null);
      return new Promise<Uint8Array | null>((resolve, reject) => {
        const onAbort = () => {
          readOver = true;
          resolve(null);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        conn.read(buffer).then((size) => {
          signal?.removeEventListener("abort", onAbort);
          if (size === null) {
            readOver = true;
            resolve(null);
          } else resolve(buffer.subarray(0, size));
        }, (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          readOver = true;
          reject(error);
        });
      });
    },
    async write(data) {
      if (done) throw new Error("the connection is closed");
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      let offset = 0;
      while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
    },
    release: () => {},
    close() {
      if (done) return;
      // Our side ends; a peer that keeps its side open is cut off soon after.
      void conn.closeWrite().catch(() => {}).then(() => {
        if (readOver) return finish();
        setTimeout(finish, CLOSE_GRACE_MS);
      });
    },
    closed,
  };
}

/** Deno's listen errors carry a name (`AddrInUse`) where Node's carry a code (`EADDRINUSE`). */
function withNodeCode(error: unknown): unknown {
  const codes: Record<string, string> = {
    AddrInUse: "EADDRINUSE",
    NotFound: "ENOENT",
    PermissionDenied: "EACCES",
    AddrNotAvailable: "EADDRNOTAVAIL",
  };
  const code = codes[(error as { name?: string }).name ?? ""];
  if (code === undefined || typeof error !== "object" || error === null) return error;
  return Object.assign(error, { code });
}
