/**
 * MCP over Streamable HTTP on a port of this machine: an {@linkcode McpHttpEndpoint} behind the runtime's
 * `node:http` server (Node's, or Deno's implementation of it). {@linkcode McpHttpListener.close} stops accepting,
 * lets open calls finish within a grace period, cancels the rest and ends the listen streams.
 * @module
 */
import { type HttpServerOptions, listenHttp } from "../../runtime/http_server.ts";
import { McpHttpEndpoint, type McpHttpOptions } from "./http_transport.ts";
import type { HttpAuthorizer } from "./http_auth.ts";

/**
 * The options of {@linkcode listenMcpHttp}: an endpoint's, and its server's. The authorizer may be a function
 * of the endpoint's URL, for an audience that is only known once a port-0 listener has its port.
 *
 * @example
 * ```ts
 * import type { OAuthIssuer, ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * declare const issuer: OAuthIssuer;
 * const options: McpHttpListenOptions = {
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 *   authorizer: (url) => issuer.resourceServer(url),
 * };
 * ```
 */
export type McpHttpListenOptions = Omit<McpHttpOptions, "authorizer"> & HttpServerOptions & {
  authorizer?: HttpAuthorizer | ((url: string) => HttpAuthorizer);
};

/**
 * Where to listen: a host, a port (0 picks a free one) and the endpoint's path.
 *
 * @example
 * ```ts
 * const address: HttpAddress = { host: "127.0.0.1", port: 7010, path: "/mcp" };
 * ```
 */
export interface HttpAddress {
  host: string;
  port: number;
  path: string;
}

/**
 * A listening MCP endpoint.
 *
 * @example
 * ```ts
 * declare const listener: McpHttpListener;
 * console.error(`serving on ${listener.url}`);
 * await listener.close(1_000);
 * ```
 */
export interface McpHttpListener {
  /** The endpoint's URL, with the port the system chose for port 0. */
  readonly url: string;
  /** Requests in progress, listen streams included. */
  readonly open: number;
  /** Stops accepting, lets open calls finish for up to `graceMs`, then cancels the rest. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Serves MCP over HTTP until closed. Rejects when the address cannot be listened on, with the system's error.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * const listener = await listenMcpHttp({ host: "127.0.0.1", port: 0, path: "/mcp" }, {
 *   serverInfo: { name: "notes", version: "1.0.0" },
 *   catalog,
 * });
 * console.error(listener.url); // http://127.0.0.1:41234/mcp
 * ```
 */
export async function listenMcpHttp(
  address: HttpAddress,
  options: McpHttpListenOptions,
): Promise<McpHttpListener> {
  const { authorizer, ...rest } = options;
  const endpointOf = (url: string, maxConnections: number) =>
    new McpHttpEndpoint({
      ...rest,
      // A stream holds its connection for as long as it is open: half the connections stay for requests.
      maxSubscriptions: Math.min(rest.maxSubscriptions ?? Infinity, Math.floor(maxConnections / 2)),
      endpoint: address.path,
      ...(authorizer === undefined
        ? {}
        : { authorizer: typeof authorizer === "function" ? authorizer(url) : authorizer }),
    });
  // The endpoint is made once the port is known; a request that comes before that waits for it.
  const made: { endpoint?: McpHttpEndpoint; settle?: (endpoint: McpHttpEndpoint) => void } = {};
  const later = new Promise<McpHttpEndpoint>((resolve) => made.settle = resolve);
  const server = await listenHttp(
    address.host,
    address.port,
    (request) => made.endpoint?.handle(request) ?? later.then((ready) => ready.handle(request)),
    options,
  );
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  const url = `http://${host}:${server.port}${address.path}`;
  const ready = endpointOf(url, server.maxConnections);
  made.endpoint = ready;
  made.settle?.(ready);
  return {
    url,
    get open() {
      return ready.open;
    },
    async close(graceMs = 1_000) {
      const stopped = server.stop();
      await ready.close(graceMs);
      server.closeAll();
      await stopped;
    },
  };
}
