/**
 * The built-in `mcp listen` of every tool: the tool's MCP server — the same tools as `mcp serve` — on a
 * Unix socket, a TCP port, or an HTTP endpoint (Streamable HTTP, both eras), for many clients at once,
 * until SIGTERM. Its stdout is not the protocol: it is a long-running command that ends with one envelope,
 * and it is never an MCP tool itself.
 * @module
 */
import type { CommandContext, CommandDefinition, FlagSpec } from "../contract/contract.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "../../protocol/slot_pool.ts";
import { LISTENER_DEFAULTS } from "../../protocol/mcp/listener_defaults.ts";
import { commandCatalog } from "../mcp/command_catalog.ts";
import { coverServedCommands, coverWithFloor, MCP_SERVE_FLAGS } from "./mcp_serve_command.ts";
import type { Tool } from "../tool.ts";
import type { McpCoreOptions } from "../../protocol/mcp/mcp_core.ts";

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
    description: "Connections open at once; one more is closed at once",
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
      "Listen on an address other than loopback. A socket is UNAUTHENTICATED: anyone who can reach it can run every served command; over HTTP it also needs --no-auth",
  },
  auth: {
    type: "boolean",
    default: true,
    description:
      "An HTTP endpoint others can reach requires authentication; --no-auth serves it without. UNSAFE: anyone who can reach the port can run every served command",
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
} as const satisfies Record<string, FlagSpec>;

/** The flags of the built-in `mcp listen`. */
export type McpListenFlags = typeof MCP_LISTEN_FLAGS;

/**
 * The built-in `mcp listen` definition, as {@linkcode ToolOptions.extendMcpListen} receives it.
 *
 * @example
 * ```ts
 * const extend = (builtin: McpListenDefinition) => ({ ...builtin, description: "Serve the hub's tools" });
 * ```
 */
export type McpListenDefinition = CommandDefinition<McpListenFlags> & { flags: McpListenFlags };

/** What a listener serves: the server's name, its guidance and its tools. */
export type ServedTools = Pick<McpCoreOptions, "serverInfo" | "instructions" | "catalog">;

/**
 * Listens on the invocation's address with its flags and serves `served` until the invocation is
 * cancelled (SIGTERM, SIGINT); with `--dry-run`, returns what would be served instead.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<McpListenFlags>;
 * declare const served: ServedTools;
 * await listenForClients(ctx, served);
 * ```
 */
export async function listenForClients(
  ctx: CommandContext<McpListenFlags>,
  served: ServedTools,
): Promise<Record<string, unknown>> {
  const { runListener } = await import("./mcp_listen/listen_server.ts");
  return await runListener(ctx, served);
}

/**
 * Registers `mcp.listen` on a tool: the built-in — the tool's own commands — or, with `extend`, a definition
 * built from it. Like `mcp serve`, its manifest entry covers every command it serves, and is at least as
 * dangerous as the extension declares; the listener itself starts unconfirmed (each destructive call is
 * confirmed inside the protocol), so it is registered at the safe floor and takes none of the framework's
 * per-invocation flags but its own `--dry-run`.
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool;
 * registerMcpListen(tool);
 * ```
 */
export function registerMcpListen<const F extends Record<string, FlagSpec>>(
  tool: Tool,
  extend?: (builtin: McpListenDefinition) => CommandDefinition<F>,
): void {
  if (extend === undefined) {
    tool.registry.registerBuiltin(
      "mcp.listen",
      builtinDefinition.bind(undefined, tool),
      coverServedCommands,
      false,
    );
  } else {
    const extended = extend(builtinDefinition(tool)) as unknown as CommandDefinition;
    const floor = extended.danger_level;
    tool.registry.register(
      "mcp.listen",
      { ...extended, danger_level: "safe" },
      (entry, registry) => coverWithFloor(entry, registry, floor),
      ["dry-run"],
    );
  }
}

function builtinDefinition(tool: Tool): McpListenDefinition {
  return {
    description:
      "Serve the tool's commands as MCP tools on an HTTP endpoint, a Unix socket or a loopback TCP port, to many clients at once, until SIGTERM",
    // The floor: raised in the manifest to the most severe level and every scope of the commands it serves.
    // Each destructive call is confirmed inside the protocol, so starting the server takes no confirmation.
    danger_level: "safe",
    required_scopes: [],
    // A server started by a model over MCP would outlive the call and listen for anyone: people only.
    mcp: false,
    timeout_seconds: 0,
    flags: MCP_LISTEN_FLAGS,
    positionals: [{
      name: "address",
      description:
        "http://<host>:<port>/<path> (Streamable HTTP; port 0 picks a free one), unix:<path>, or tcp:<host>:<port>",
    }],
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description:
          "With --dry-run: the tools that would be served; otherwise never, the server runs until a signal",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description: "The socket's directory does not exist; the server did not start",
        retryable: false,
        side_effects: "none",
      },
      "6": {
        name: "CONFLICT",
        description:
          "The address is in use, or something that is not a socket is at the socket's path; the server did not start",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      {
        description: "Serve over HTTP on a free loopback port",
        command: `${tool.name} mcp listen http://127.0.0.1:0/mcp`,
      },
      {
        description: "Serve the safe commands on a Unix socket",
        command: `${tool.name} mcp listen --read-only unix:/tmp/${tool.name}.sock`,
      },
      {
        description: "See what would be served",
        command: `${tool.name} mcp listen --dry-run http://127.0.0.1:7010/mcp`,
      },
    ],
    run: (ctx) =>
      listenForClients(ctx, {
        serverInfo: { name: tool.name, version: tool.version },
        instructions:
          `${tool.description}. Each tool is a '${tool.name}' command; results are its JSON envelope.`,
        catalog: commandCatalog(tool, { commands: tool.registry.servableEntries() }, {
          readOnly: ctx.flags["read-only"],
        }),
      }),
  };
}
