/**
 * A TCP proxy between the instances of a fleet and Redis that can misbehave on command, as a congested or
 * partitioned link does: hold every byte back in both directions without a reset (a stall) and let it go
 * later, cut the connections, or pass one command on to Redis and lose its reply. Built on node:net only, so
 * it runs under Node and Deno. Used by the fleet test and by `npm run soak -- --fleet`.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { Buffer } from "node:buffer";

/** Bytes one direction of one connection may hold back during a stall; past it, the connection is cut. */
export const MAX_HELD_BYTES = 16 * 1024 * 1024;

/** One proxied connection: the client's socket, Redis's, and what is held back from each side. */
class Link {
  readonly client: Socket;
  readonly server: Socket;
  readonly held = { up: [] as Buffer[], down: [] as Buffer[] };
  heldBytes = { up: 0, down: 0 };
  /** The reply to the command sent last is to be lost, and the connection cut. */
  dropReply = false;

  constructor(client: Socket, server: Socket) {
    this.client = client;
    this.server = server;
  }

  cut(): void {
    this.client.destroy();
    this.server.destroy();
  }
}

/**
 * A proxy on a loopback port in front of `target` (Redis's port). Everything passes through untouched until
 * told otherwise: {@linkcode StoreLink.hold} and {@linkcode StoreLink.release}, {@linkcode StoreLink.holdOn}
 * (a stall that starts with the first command containing a text), {@linkcode StoreLink.loseReplyOn} and
 * {@linkcode StoreLink.cut}.
 */
export class StoreLink {
  readonly port: number;
  readonly #server: Server;
  readonly #links = new Set<Link>();
  #holding = false;
  #holdOn: string | undefined;
  #loseReplyOn: string | undefined;
  /** Commands whose reply was lost, and stalls begun by a matching command. */
  readonly seen = { lostReplies: 0, triggeredHolds: 0 };

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  /** Starts the proxy on a free loopback port, forwarding to `target` on 127.0.0.1. */
  static start(target: number): Promise<StoreLink> {
    return new Promise((resolve, reject) => {
      let proxy: StoreLink | undefined;
      const server = createServer((client) => proxy?.accept(client, target));
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        proxy = new StoreLink(server, (server.address() as { port: number }).port);
        resolve(proxy);
      });
    });
  }

  /** Whether bytes are being held back now. */
  get holding(): boolean {
    return this.#holding;
  }

  /** Holds back every byte, both ways, of every connection (and of any new one) until released. */
  hold(): void {
    this.#holding = true;
  }

  /** Lets everything held back go, in order, and passes bytes through again. */
  release(): void {
    this.#holding = false;
    this.#holdOn = undefined;
    for (const link of this.#links) {
      for (const chunk of link.held.up.splice(0)) link.server.write(chunk);
      for (const chunk of link.held.down.splice(0)) link.client.write(chunk);
      link.heldBytes = { up: 0, down: 0 };
    }
  }

  /** Starts holding at the first command that contains `text` (that command held too). */
  holdOn(text: string): void {
    this.#holdOn = text;
  }

  /**
   * The first command that contains `text` reaches Redis, but its reply never comes back: the connection is
   * cut when Redis answers, as a link that fails between the two does.
   */
  loseReplyOn(text: string): void {
    this.#loseReplyOn = text;
  }

  /** Lets everything held back go and disarms what {@linkcode StoreLink.holdOn} and {@linkcode StoreLink.loseReplyOn} armed. */
  calm(): void {
    this.#loseReplyOn = undefined;
    this.release();
  }

  /** Cuts every connection (what was held back is lost). */
  cut(): void {
    for (const link of this.#links) link.cut();
    this.#links.clear();
  }

  /** Cuts every connection and stops listening. */
  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(() => resolve(undefined)));
  }

  /** Connects a client to Redis through this proxy. */
  accept(client: Socket, target: number): void {
    // Bytes a client sends before Redis accepted are queued by the socket until it connects.
    const server = connect(target, "127.0.0.1");
    const link = new Link(client, server);
    this.#links.add(link);
    const forget = () => {
      link.cut();
      this.#links.delete(link);
    };
    client.on("error", forget).on("close", forget);
    server.on("error", forget).on("close", forget);
    client.on("data", (chunk: Buffer) => this.#up(link, chunk));
    server.on("data", (chunk: Buffer) => this.#down(link, chunk));
  }

  #up(link: Link, chunk: Buffer): void {
    const text = chunk.toString("latin1");
    if (this.#holdOn !== undefined && text.includes(this.#holdOn)) {
      this.#holdOn = undefined;
      this.#holding = true;
      this.seen.triggeredHolds++;
    }
    if (this.#loseReplyOn !== undefined && !this.#holding && text.includes(this.#loseReplyOn)) {
      this.#loseReplyOn = undefined;
      link.dropReply = true;
      this.seen.lostReplies++;
    }
    this.#pass(link, "up", chunk);
  }

  #down(link: Link, chunk: Buffer): void {
    if (link.dropReply && !this.#holding) {
      link.cut();
      this.#links.delete(link);
      return;
    }
    this.#pass(link, "down", chunk);
  }

  #pass(link: Link, way: "up" | "down", chunk: Buffer): void {
    if (!this.#holding) {
      (way === "up" ? link.server : link.client).write(chunk);
      return;
    }
    link.heldBytes[way] += chunk.length;
    if (link.heldBytes[way] > MAX_HELD_BYTES) {
      link.cut();
      this.#links.delete(link);
      return;
    }
    link.held[way].push(Buffer.from(chunk));
  }
}
