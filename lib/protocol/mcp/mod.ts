/**
 * The dual-era MCP server (`@toolwire/toolwire/mcp`, `toolwire/mcp` on npm): the wire rules over stdio, any
 * pair of Web Streams, a listening socket, Streamable HTTP (`mcpHttpHandler` for a server of your own,
 * `listenMcpHttp` for a port) or memory (`McpMemoryTransport`), independent of where the tools come from. A
 * {@linkcode ToolCatalog} says which tools exist and what a call returns; a tool's own `mcp serve` is one
 * built from its commands.
 *
 * @example
 * ```ts
 * import { processChannel, serveMcp, type ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * const catalog: ToolCatalog = {
 *   tools: () => [{ name: "ping", inputSchema: { type: "object" } }],
 *   call: async () => ({ kind: "result", result: { content: [{ type: "text", text: "pong" }] } }),
 * };
 * const serverInfo = { name: "pinger", version: "1.0.0" };
 * await serveMcp({ channel: processChannel() }, { serverInfo, catalog });
 * ```
 * @module
 */
export { type McpServerIO, type McpServerOptions, serveMcp } from "./line_transport.ts";
export { listenMcp, type McpListener, type McpListenerOptions } from "./mcp_listener.ts";
// In memory: messages in and out as values, for tests and for an agent in the same process.
export { type McpMemoryOptions, McpMemoryTransport } from "./memory_transport.ts";
// Streamable HTTP, both eras: a web-standard handler, a node:http request listener, or a port of its own.
export { McpHttpEndpoint, mcpHttpHandler, type McpHttpOptions } from "./http_transport.ts";
export {
  type HttpAddress,
  listenMcpHttp,
  type McpHttpListener,
  type McpHttpListenOptions,
} from "./http_listener.ts";
// Authorization over HTTP: an OAuth 2.1 resource server, or any authorizer of your own (docs/auth.md).
export { type Authentication, type AuthRefusal, type HttpAuthorizer, metadataUrl } from "./http_auth.ts";
export {
  type OAuthIssuer,
  oauthIssuer,
  type OAuthOptions,
  oauthResourceServer,
} from "./oauth_resource_server.ts";
export { OAuthSetupError } from "./oauth_discovery.ts";
export { type McpCaller, missingScopes } from "./caller.ts";
export { type HttpServerOptions, nodeListener } from "../../runtime/http_server.ts";
export type {
  BodyProblem,
  EventSink,
  HttpHandler,
  HttpRequest,
  HttpResponse,
} from "../../runtime/http_exchange.ts";
export type { CancelScope } from "../cancel_scope.ts";
export type {
  CallToolResult,
  InputRequiredResult,
  JsonToolResult,
  McpTool,
  ToolAnnotations,
  ToolCall,
  ToolCallContext,
  ToolCallOutcome,
  ToolCatalog,
} from "./tool_catalog.ts";
export type { LogLevel } from "./request_meta.ts";
// A call that fails as a JSON-RPC error (`{ kind: "error", error }`) names its code.
export { type RpcError, RpcErrorCode } from "../json_rpc.ts";
export { SlotPool } from "../slot_pool.ts";
export { ALL_VERSIONS, LEGACY_VERSIONS, MODERN_VERSIONS } from "./versions.ts";
// What a session runs over: the process's stdio, any pair of Web Streams, or a socket address to listen on.
export {
  type ByteChannel,
  type ByteSink,
  type ByteSource,
  processChannel,
} from "../../runtime/byte_channel.ts";
export { streamChannel } from "../../runtime/stream_channel.ts";
export type { StdioData } from "../../runtime/stdio.ts";
export type { SocketAddress } from "../../runtime/socket.ts";
