/**
 * The built-in `mcp listen` of every tool: the tool's MCP server — the same tools as `mcp serve` — on a
 * Unix socket, a TCP port, or an HTTP endpoint (Streamable HTTP, both eras), for many clients at once,
 * until SIGTERM. Its stdout is not the protocol: it is a long-running command that ends with one envelope,
 * and it is never an MCP tool itself.
 * @module
 */
import type { CommandContext, CommandDefinition, FlagSpec } from "../contract/command_definition.ts";
import { commandCatalog } from "../mcp/command_catalog.ts";
import { servedBy } from "./mcp_serve_command.ts";
import { MCP_LISTEN_FLAGS, type McpListenFlags, type ServedTools } from "./mcp_listen/listen_flags.ts";
import { type EntryRefiner, mostSevere } from "../contract/registry.ts";
import { commandWords } from "../contract/command_words.ts";
import type { ToolHost } from "../contract/tool_host.ts";
import type { SharedState } from "../contract/state_store.ts";
import { platformName } from "../../runtime/process.ts";
import { unixPathExample } from "../../runtime/socket_example.ts";

/**
 * The built-in `mcp listen` definition, as {@linkcode ToolOptions.extendMcpListen} receives it.
 *
 * @example
 * ```ts
 * const extend = (builtin: McpListenDefinition) => ({ ...builtin, description: "Serve the hub's tools" });
 * ```
 */
export type McpListenDefinition = CommandDefinition<McpListenFlags> & { flags: McpListenFlags };

/**
 * Listens on the invocation's address with its flags and serves `served` until the invocation is
 * cancelled (SIGTERM, SIGINT); with `--dry-run`, returns what would be served instead.
 *
 * @example
 * ```ts
 * import type { McpListenFlags, ServedTools } from "./mcp_listen/listen_flags.ts";
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
 * Runs `use` with what the invocation's `--state-store` and `--confirmation-secret-file` share with the other
 * instances of a fleet (docs/scaling.md) — read, checked and connected (with `--dry-run`: checked only) —
 * and disconnects after. Keys in the store start with `<prefix>:`, the tool's name. The built-in serves the
 * tool's commands with it; an extended `mcp listen` that serves a catalog of its own gets it here too.
 *
 * @example
 * ```ts
 * declare const ctx: Parameters<typeof withSharedState>[0]; // an `mcp listen` invocation's context
 * await withSharedState(ctx, "hub", (shared) => Promise.resolve(shared.store !== undefined));
 * ```
 */
export async function withSharedState<T>(
  ctx: CommandContext<McpListenFlags>,
  prefix: string,
  use: (shared: SharedState) => Promise<T>,
): Promise<T> {
  const { openSharedState } = await import("./mcp_listen/listen_state.ts");
  const state = await openSharedState(ctx.flags, { prefix, connect: !ctx.flags["dry-run"], log: ctx.log });
  try {
    return await use(state.shared);
  } finally {
    await state.close();
  }
}

/**
 * Registers `mcp.listen` on a tool: the built-in — the tool's own commands — or, with `extend`, a definition
 * built from it. The listener is rated by what it does itself — it changes nothing; each call it serves is
 * confirmed, replayed and previewed inside the protocol by that command's own contract — so it takes none of
 * the framework's per-invocation flags but its own `--dry-run`, which lists what would be served. Its manifest
 * entry names the most dangerous commands its clients can run, and their scopes.
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
  tool: ToolHost,
  extend?: (builtin: McpListenDefinition) => CommandDefinition<F>,
): void {
  if (extend === undefined) {
    tool.registry.registerBuiltin(
      "mcp.listen",
      builtinDefinition.bind(undefined, tool),
      nameServedCommands,
      false,
    );
  } else {
    tool.registry.register(
      "mcp.listen",
      extend(builtinDefinition(tool)) as unknown as CommandDefinition,
      nameServedCommands,
      ["dry-run"],
    );
  }
}

/** The listener's manifest entry names the most dangerous commands its clients can run, and their scopes. */
const nameServedCommands: EntryRefiner = (entry, registry) => {
  const served = servedBy(registry);
  const level = mostSevere(served.map(([, served]) => served.danger_level));
  const most = served.filter(([, served]) => served.danger_level === level).map(([path]) =>
    commandWords(path)
  );
  return {
    ...entry,
    description: level === "safe"
      ? entry.description
      : `${entry.description}; its clients can run ${level} commands: ${most.join(", ")}`,
    required_scopes: [
      ...new Set([...entry.required_scopes, ...served.flatMap(([, served]) => served.required_scopes)]),
    ].sort(),
  };
};

function builtinDefinition(tool: ToolHost): McpListenDefinition {
  return {
    description:
      "Serve the tool's commands as MCP tools on an HTTP endpoint, a Unix socket or a loopback TCP port, to many clients at once, until SIGTERM",
    // Starting it changes nothing: each served call is confirmed and replayed inside the protocol.
    danger_level: "safe",
    required_scopes: [],
    // A server started by a model over MCP would outlive the call and listen for anyone: people only.
    mcp: false,
    timeout_seconds: 0,
    flags: MCP_LISTEN_FLAGS,
    positionals: [{
      name: "address",
      description:
        "http://<host>:<port>/<path> (Streamable HTTP; port 0 picks a free one), unix:<path> (on Windows a named pipe, unix:\\\\.\\pipe\\<name>), or tcp:<host>:<port>",
    }],
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description:
          "With --dry-run: the tools that would be served; otherwise never, the server runs until a signal",
        retryable: false,
        side_effects: "none",
      },
      "4": {
        name: "PRECONDITION",
        description:
          "--state-store needs the redis npm package, which is not installed; the server did not start",
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
      "12": {
        name: "UNAVAILABLE",
        description:
          "The --state-store, or the --oauth-issuer's metadata or key set, could not be reached or used; nothing listens",
        retryable: true,
        side_effects: "none",
      },
    },
    examples: [
      {
        description: "Serve over HTTP on a free loopback port",
        command: `${tool.name} mcp listen http://127.0.0.1:0/mcp`,
      },
      {
        description: platformName() === "win32"
          ? "Serve the safe commands on a named pipe"
          : "Serve the safe commands on a Unix socket",
        command: `${tool.name} mcp listen --read-only unix:${unixPathExample(tool.name, platformName())}`,
      },
      {
        description: "One instance of a fleet behind a load balancer",
        command:
          `${tool.name} mcp listen --state-store redis://127.0.0.1:6379/0 --confirmation-secret-file /etc/${tool.name}/confirmation.key http://127.0.0.1:7011/mcp`,
      },
      {
        description: "Serve others, each caller limited to the commands its token's scopes cover",
        command:
          `${tool.name} mcp listen --allow-remote --oauth-issuer https://auth.example.com/realms/main --oauth-audience https://mcp.example.com/mcp http://0.0.0.0:7010/mcp`,
      },
      {
        description: "See what would be served",
        command: `${tool.name} mcp listen --dry-run http://127.0.0.1:7010/mcp`,
      },
    ],
    run: (ctx) =>
      withSharedState(ctx, tool.name, (shared) =>
        listenForClients(ctx, {
          serverInfo: { name: tool.name, version: tool.version },
          instructions:
            `${tool.description}. Each tool is a '${tool.name}' command; results are its JSON envelope.`,
          catalog: commandCatalog(tool, { commands: () => tool.registry.servableEntries() }, {
            readOnly: ctx.flags["read-only"],
          }, shared),
        })),
  };
}
