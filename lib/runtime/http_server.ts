/**
 * An HTTP server for an {@linkcode HttpHandler}, on `node:http` — Node's, or Deno's implementation of it,
 * which tells a client that went away from a response that was delivered (`Deno.serve`'s `request.signal`
 * does not, by default). It bounds the time to receive a request's headers and the number of connections —
 * a new connection at the bound takes the place of the one that waited longest (http_connections.ts) — and
 * hands the handler the request without building web `Request`/`Response` objects (docs/mcp_http.md).
 * @module
 */
import type * as NodeBuffer from "node:buffer";
import type * as NodeHttp from "node:http";
import type * as NodeNet from "node:net";
import {
  type BodyProblem,
  concat,
  type EventSink,
  type HttpHandler,
  type HttpRequest,
  ReadWait,
} from "./http_exchange.ts";
import { nodeProcess } from "./node_process.ts";
import { descriptorHeadroom } from "./descriptors.ts";
import { ConnectionBound } from "./http_connections.ts";

/** Descriptors kept free beside the connections: a bridged call's child needs six, a file one. */
const DESCRIPTORS_KEPT = 32;
/** Connections beyond the bound that may be open at once, each being answered 503 for a second at most. */
const REFUSING = 64;

let bufferModule: typeof NodeBuffer | undefined;

/** The UTF-8 length of `text`, without encoding it. */
function byteLength(text: string): number {
  bufferModule ??= nodeProcess().getBuiltinModule("node:buffer") as typeof NodeBuffer;
  return bufferModule.Buffer.byteLength(text, "utf8");
}

/**
 * Limits of {@linkcode listenHttp}.
 *
 * @example
 * ```ts
 * const options: HttpServerOptions = { headersTimeoutMs: 5_000, maxConnections: 64 };
 * ```
 */
export interface HttpServerOptions {
  /** A client must send its request's headers within this long. @default 10000 */
  headersTimeoutMs?: number;
  /**
   * An idle keep-alive connection is closed after this long. Longer than the idle limit of the clients and
   * proxies in front (undici ~4 s, nginx and cloud balancers 60 s), so that they close first: a request sent
   * as the server closes the connection is lost to the client as "other side closed", and a POST is not
   * retried. @default 65000
   */
  keepAliveTimeoutMs?: number;
  /**
   * Connections open at once. One more takes the place of the connection that has waited longest for a
   * request (its headers trickling in, or idle between requests); when every connection is working, it is
   * answered 503. Never more than the process's file descriptors allow with some to spare (Linux).
   * @default 1024
   */
  maxConnections?: number;
}

/**
 * A listening HTTP server.
 *
 * @example
 * ```ts
 * declare const server: HttpServer;
 * console.error(`listening on ${server.host}:${server.port}`);
 * await server.stop();
 * server.closeAll();
 * ```
 */
export interface HttpServer {
  /** The host and the port it listens on (the chosen one for port 0). */
  readonly host: string;
  readonly port: number;
  /** The bound on connections open at once: `maxConnections`, or less when file descriptors are short. */
  readonly maxConnections: number;
  /** Stops accepting connections and closes the idle ones; requests in progress go on. */
  stop(): Promise<void>;
  /** Closes every connection still open. */
  closeAll(): void;
}

/**
 * Serves `handler` on `host:port` until stopped. Rejects when the address cannot be listened on, with the
 * system's error (`EADDRINUSE`, `EADDRNOTAVAIL`, `EACCES`).
 *
 * @example
 * ```ts
 * const server = await listenHttp("127.0.0.1", 0, () => Promise.resolve({ status: 200, headers: {}, body: "ok" }));
 * console.error(`listening on ${server.port}`);
 * await server.stop();
 * ```
 */
export function listenHttp(
  host: string,
  port: number,
  handler: HttpHandler,
  options: HttpServerOptions = {},
): Promise<HttpServer> {
  return descriptorHeadroom().then((room) => listenNode(host, port, handler, options, room ?? Infinity));
}

function listenNode(
  host: string,
  port: number,
  handler: HttpHandler,
  options: HttpServerOptions,
  room: number,
): Promise<HttpServer> {
  const http = nodeProcess().getBuiltinModule("node:http") as typeof NodeHttp;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const maxConnections = Math.max(
    1,
    Math.min(options.maxConnections ?? 1024, room - DESCRIPTORS_KEPT - REFUSING),
  );
  const connections = new ConnectionBound(maxConnections);
  const server = http.createServer({
    headersTimeout,
    // The header limit is checked this often (Node's default, 30 s, would let headers take up to 40 s).
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
    // The body's own limit is the handler's (it reads the body within a time limit of its own).
    requestTimeout: 0,
  }, boundListener(handler, connections));
  // The system's bound sits above ours: a connection must be accepted to take a waiting one's place, or to
  // be answered 503; past it, a connection is reset (and Deno's server would stop accepting for good once
  // out of descriptors).
  server.maxConnections = maxConnections + REFUSING;
  server.on("connection", (socket: NodeNet.Socket) => connections.admit(socket));
  // A request the parser refuses — headers too slow, too large, not HTTP — ends that connection only.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return void socket.destroy();
    const status = CLIENT_ERRORS[error.code ?? ""] ?? "400 Bad Request";
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  return new Promise<HttpServer>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      server.on("error", () => {});
      const bound = server.address();
      resolve({
        host,
        port: typeof bound === "object" && bound !== null ? bound.port : port,
        maxConnections,
        stop: () => {
          const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
          server.closeIdleConnections();
          return closed;
        },
        closeAll: () => server.closeAllConnections(),
      });
    });
  });
}

/** The status line a request the parser refused is answered with, by the parser's error code. */
const CLIENT_ERRORS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
};

/** The request listener of a server whose connections are bounded: a connection with a request is working. */
function boundListener(
  handler: HttpHandler,
  connections: ConnectionBound,
): (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => void {
  const listener = nodeListener(handler);
  return (request, response) => {
    // A refused connection was answered already; what it sent anyway is not served.
    if (!connections.working(request.socket)) return;
    response.once("close", () => connections.waiting(request.socket));
    listener(request, response);
  };
}

/**
 * An {@linkcode HttpHandler} as a `node:http` request listener, for a server of your own (or Express,
 * Fastify's raw routes, anything that hands on Node's request and response). The handler reads the body
 * itself: mount it before any body parser.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import type { HttpHandler } from "./http_exchange.ts";
 *
 * declare const handler: HttpHandler;
 * createServer(nodeListener(handler)).listen(7010, "127.0.0.1");
 * ```
 */
export function nodeListener(handler: HttpHandler): (request: object, response: object) => void {
  // Typed as plain objects, so that the package's types name no Node type (a project without @types/node
  // type-checks them); node:http hands an IncomingMessage and a ServerResponse.
  return (request, response) =>
    void serveNode(handler, request as NodeHttp.IncomingMessage, response as NodeHttp.ServerResponse);
}

async function serveNode(
  handler: HttpHandler,
  request: NodeHttp.IncomingMessage,
  response: NodeHttp.ServerResponse,
): Promise<void> {
  const closeListeners: Array<() => void> = [];
  let closed = false;
  response.once("close", () => {
    if (response.writableFinished) return;
    closed = true;
    for (const listener of closeListeners.splice(0)) listener();
  });
  const target = request.url ?? "/";
  const query = target.indexOf("?");
  const peer = request.socket.remoteAddress;
  const exchange: HttpRequest = {
    ...(peer === undefined ? {} : { peer }),
    method: request.method ?? "GET",
    path: query === -1 ? target : target.slice(0, query),
    header: (name) => {
      const value = request.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
    body: (maxBytes, timeoutMs) => readNodeBody(request, maxBytes, timeoutMs),
    onClose: (listener) => {
      if (closed) listener();
      else closeListeners.push(listener);
    },
  };
  let answer;
  try {
    answer = await handler(exchange);
  } catch {
    answer = { status: 500, headers: {} };
  }
  if (closed) return;
  if (!("events" in answer)) {
    // A length, not chunks: an empty answer (202) then has no body at all, not an empty chunked one. The
    // body stays text: Node sends it with the headers in one write (docs/performance.md#over-http).
    const body = answer.body ?? "";
    const length = answer.status === 204 ? {} : { "content-length": String(byteLength(body)) };
    response.writeHead(answer.status, { ...answer.headers, ...length });
    response.end(body);
    return;
  }
  response.writeHead(answer.status, answer.headers);
  response.flushHeaders();
  const readable = new ReadWait();
  response.on("drain", () => readable.release());
  closeListeners.push(() => readable.release());
  const sink: EventSink = {
    write(text) {
      if (closed) return Promise.resolve();
      if (response.write(text)) return Promise.resolve();
      // Backpressure: a client that does not read holds the writer, not the server's memory.
      return readable.wait();
    },
    get closed() {
      return closed;
    },
  };
  try {
    await answer.events(sink);
  } finally {
    if (!closed) response.end();
  }
}

function readNodeBody(
  request: NodeHttp.IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | BodyProblem> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve("too-large");
  return new Promise((resolve) => {
    const parts: Uint8Array[] = [];
    let size = 0;
    const finish = (result: Uint8Array | BodyProblem) => {
      clearTimeout(timer);
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onFail);
      request.off("aborted", onFail);
      if (typeof result === "string") request.resume();
      resolve(result);
    };
    const onData = (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > maxBytes) return finish("too-large");
      parts.push(chunk);
    };
    const onEnd = () => finish(concat(parts, size));
    const onFail = () => finish("aborted");
    const timer = setTimeout(() => finish("timed-out"), timeoutMs);
    request.on("data", onData);
    request.once("end", onEnd);
    request.once("error", onFail);
    request.once("aborted", onFail);
  });
}
