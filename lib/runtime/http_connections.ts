/**
 * The connections of an HTTP server within a bound that clients which send nothing useful cannot hold. A
 * connection is either working — a request of it is being answered — or waiting: for its first request's
 * headers (however slowly they trickle in), or idle between two requests. At the bound, a new connection
 * takes the place of the connection that has waited longest, as nginx reuses its idle and not-yet-read
 * connections when it runs out; and one client address may hold at most half the bound waiting, a new
 * connection beyond that taking the place of that address's own longest-waiting one. So a client that
 * trickles its headers byte by byte, however often it reconnects, holds at most its half, and never keeps
 * another address's requests out. Only when every connection is working is a new one refused, with a 503
 * rather than a reset.
 * @module
 */
import type * as NodeNet from "node:net";

/** The answer of a connection refused because every connection is working. */
const REFUSAL = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n" +
  "Content-Type: text/plain\r\nContent-Length: 27\r\n\r\nEvery connection is in use\n";

/** How long a refused connection may take to read its 503 before it is closed. */
const REFUSAL_LINGER_MS = 1_000;

/**
 * The open connections of one server, at most `max`.
 *
 * @example
 * ```ts
 * import type { Socket } from "node:net";
 *
 * declare const socket: Socket;
 * const connections = new ConnectionBound(128);
 * connections.admit(socket); // a new connection
 * if (connections.working(socket)) {
 *   // a request's headers arrived on an admitted connection; once it is answered:
 *   connections.waiting(socket);
 * }
 * ```
 */
export class ConnectionBound {
  readonly #max: number;
  /** Connections one address may have waiting. */
  readonly #maxWaitingPerAddress: number;
  /** Every open connection and how many of its requests are being answered; the waiting longest first. */
  readonly #open = new Map<NodeNet.Socket, number>();

  constructor(max: number) {
    this.#max = Math.max(1, max);
    this.#maxWaitingPerAddress = Math.ceil(this.#max / 2);
  }

  /**
   * Takes a new connection. With half the bound waiting from its address, that address's connection waiting
   * longest is closed; else at the bound, the connection waiting longest of any address; when every
   * connection is working, the new one is answered 503 and closed instead.
   */
  admit(socket: NodeNet.Socket): void {
    const own = this.#waitingOf(socket.remoteAddress ?? "");
    if (own.length >= this.#maxWaitingPerAddress) this.#evict(own[0]!);
    else if (this.#open.size >= this.#max) {
      const oldest = this.#waitingOf(null, 1)[0];
      if (oldest === undefined) return refuse(socket);
      this.#evict(oldest);
    }
    this.#open.set(socket, 0);
    socket.once("close", () => this.#open.delete(socket));
  }

  /** A request of `socket` is being answered: it is not closed to make room. False for a refused connection. */
  working(socket: NodeNet.Socket): boolean {
    const working = this.#open.get(socket);
    if (working === undefined) return false;
    this.#open.set(socket, working + 1);
    return true;
  }

  /** A request of `socket` was answered; with none left it waits, from now, behind every other. */
  waiting(socket: NodeNet.Socket): void {
    const working = this.#open.get(socket);
    if (working === undefined) return;
    this.#open.delete(socket);
    this.#open.set(socket, Math.max(0, working - 1));
  }

  /** The waiting connections of `address` (of any, when null), the longest-waiting first, at most `most`. */
  #waitingOf(address: string | null, most = Infinity): NodeNet.Socket[] {
    const found: NodeNet.Socket[] = [];
    for (const [socket, working] of this.#open) {
      if (found.length >= most) break;
      if (working === 0 && (address === null || (socket.remoteAddress ?? "") === address)) found.push(socket);
    }
    return found;
  }

  #evict(socket: NodeNet.Socket): void {
    this.#open.delete(socket);
    socket.destroy();
  }
}

/** Answers 503 before the request is read, then closes the connection once the answer had time to go. */
function refuse(socket: NodeNet.Socket): void {
  // Nothing more is read; a request the server's parser took in anyway is not served (`working` is false).
  socket.pause();
  socket.end(REFUSAL);
  const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
  socket.once("close", () => clearTimeout(timer));
}
