/**
 * MCP over Streamable HTTP on a port of this machine: an {@linkcode McpHttpEndpoint} behind the runtime's
 * `node:http` server (Node's, or Deno's implementation of it). {@linkcode McpHttpListener.close} stops accepting,
 * lets open calls finish within a grace period, cancels the rest and ends the listen streams.
 * @module
 */
import { type HttpServerOptions, listenHttp } from "../../runtime/http_server.ts";
import { McpHttpEndpoint, type McpHttpOptions } from "./http_transport.ts";

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
  options: McpHttpOptions & HttpServerOptions,
): Promise<McpHttpListener> {
  const endpoint = new McpHttpEndpoint({ ...options, endpoint: address.path });
  const server = await listenHttp(address.host, address.port, (request) => endpoint.handle(request), options);
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${server.port}${address.path}`,
    get open() {
      return endpoint.open;
    },
    async close(graceMs = 1_000) {
      const stopped = server.stop();
      await endpoint.close(graceMs);
      server.closeAll();
      await stopped;
    },
  };
}
