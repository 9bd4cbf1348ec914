import type { FlagSpec } from "../../contract/command_definition.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "../../../protocol/slot_pool.ts";
import { LISTENER_DEFAULTS } from "../../../protocol/mcp/listener_defaults.ts";
import type { McpCoreOptions } from "../../../protocol/mcp/mcp_core.ts";
import { MCP_SERVE_FLAGS } from "../mcp_serve_command.ts";

/** Open calls may finish for at most this long after SIGTERM: the framework waits 2 s for a handler's cleanup. */
export const MAX_GRACE_SECONDS = 1.5;

/**
 * The flags of the built-in `mcp listen`.
 *
 * @example
 * ```ts
 * MCP_LISTEN_FLAGS["idle-timeout"].default; // 300
 * ```
 */
export const MCP_LISTEN_FLAGS = {
  "read-only": MCP_SERVE_FLAGS["read-only"],
  "max-message-bytes": MCP_SERVE_FLAGS["max-message-bytes"],
  "max-in-flight": {
    type: "integer",
    default: DEFAULT_MAX_IN_FLIGHT,
    description: "Requests one socket connection may have open; reading it pauses beyond",
  },
  "max-in-flight-total": {
    type: "integer",
    default: LISTENER_DEFAULTS.maxInFlightTotal,
    description: "Requests open over all connections together; more wait for a slot",
  },
  "max-connections": {
    type: "integer",
    default: LISTENER_DEFAULTS.maxConnections,
    description:
      "Connections open at once; one more is closed at once. HTTP: one more replaces the longest-waiting (503 when all are working); subscriptions/listen streams are at most half of it, and half of those per client",
  },
  "max-buffered-bytes": {
    type: "integer",
    default: LISTENER_DEFAULTS.maxBufferedBytes,
    description:
      "Bytes of unfinished messages held over all socket connections; a message that finds no room is refused",
  },
  "idle-timeout": {
    type: "number",
    default: LISTENER_DEFAULTS.idleTimeoutMs / 1000,
    description:
      "Seconds a socket connection may send nothing, with nothing in flight, before it is closed; 0 = never",
  },
  grace: {
    type: "number",
    default: 1,
    description:
      `Seconds open calls may finish after SIGTERM or SIGINT before they are cancelled (at most ${MAX_GRACE_SECONDS})`,
  },
  "allow-remote": {
    type: "boolean",
    default: false,
    description:
      "Listen on an address other than loopback. A socket is UNAUTHENTICATED: anyone who can reach it can run every served command; over HTTP it also needs --oauth-issuer or --no-auth",
  },
  auth: {
    type: "boolean",
    default: true,
    description:
      "An HTTP endpoint others can reach requires authentication (--oauth-issuer); --no-auth serves it without. UNSAFE: anyone who can reach the port can run every served command",
  },
  "oauth-issuer": {
    type: "string",
    description:
      "HTTP: accept only OAuth 2.1 access tokens of this authorization server (https, or http on loopback); each caller sees and calls only the commands its scopes cover",
  },
  "oauth-jwks": {
    type: "string",
    description: "HTTP: the issuer's key set URL (default: the jwks_uri of its metadata)",
  },
  "oauth-audience": {
    type: "string",
    description:
      "HTTP: the endpoint's URL as clients reach it, which tokens must name as their audience (default: the listening URL)",
  },
  "header-timeout": {
    type: "number",
    description:
      "HTTP: seconds a client has to send a request's headers; the connection is closed after (default 10)",
  },
  "body-timeout": {
    type: "number",
    description: "HTTP: seconds a client has to send a request's body; it is answered 408 after (default 30)",
  },
  "keep-alive": {
    type: "number",
    description:
      "HTTP: seconds between the keep-alive comments of an open subscriptions/listen stream (default 15)",
  },
  "allow-origin": {
    type: "array",
    description:
      "HTTP: a browser origin that may call the endpoint besides loopback ones (repeat for several)",
  },
  "dry-run": {
    type: "boolean",
    default: false,
    description:
      "Print the tools that would be served, each with its danger level, and exit without listening",
  },
  "state-store": {
    type: "string",
    description:
      "redis://<host>:<port>/<db>: keep idempotency keys and redeemed confirmations in Redis or Valkey, shared by every instance of a fleet (needs the redis npm package); default: the tool's state directory",
  },
  "confirmation-secret-file": {
    type: "string",
    description:
      "A file holding the key that signs confirmations (32 to 4096 bytes, readable by its owner only), the same on every instance of a fleet; default: a random key per process",
  },
} as const satisfies Record<string, FlagSpec>;

/** The flags of the built-in `mcp listen`. */
export type McpListenFlags = typeof MCP_LISTEN_FLAGS;

/** What a listener serves: the server's name, its guidance and its tools. */
export type ServedTools = Pick<McpCoreOptions, "serverInfo" | "instructions" | "catalog">;
