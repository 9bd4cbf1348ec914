import { serveMcp } from "../../protocol/mcp/line_transport.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "../../protocol/slot_pool.ts";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../framing/line_splitter.ts";
import { CommandError } from "../contract/command_error.ts";
import type { FlagSpec, FlagValues, ProtocolCommandDefinition } from "../contract/command_definition.ts";
import { ExitCode } from "../../exit_code.ts";
import { commandCatalog } from "../mcp/command_catalog.ts";
import { servedCommands } from "../mcp/tool_mapping.ts";
import { type CommandRegistry, type EntryRefiner, mostSevere } from "../contract/registry.ts";
import type { CommandEntry } from "../contract/manifest.ts";
import type { ToolHost } from "../contract/tool_host.ts";
import { commandWords } from "../contract/command_words.ts";

/**
 * The flags of the built-in `mcp serve`: the server's limits, and `--read-only`. Another MCP server command
 * reuses a flag from here, so that it means and defaults the same.
 *
 * @example
 * ```ts
 * const flags = { "max-message-bytes": MCP_SERVE_FLAGS["max-message-bytes"] };
 * ```
 */
export const MCP_SERVE_FLAGS = {
  "read-only": { type: "boolean", default: false, description: "Expose only the tool's safe commands" },
  "max-message-bytes": {
    type: "integer",
    default: DEFAULT_MAX_MESSAGE_BYTES,
    description: "Longest accepted message; a longer one is answered with -32600 and skipped",
  },
  "max-in-flight": {
    type: "integer",
    default: DEFAULT_MAX_IN_FLIGHT,
    description: "Requests handled at once; reading stdin pauses beyond it",
  },
} as const satisfies Record<string, FlagSpec>;

/** The flags of the built-in `mcp serve`. */
export type McpServeFlags = typeof MCP_SERVE_FLAGS;

/**
 * The built-in `mcp serve` definition, as {@linkcode ToolOptions.extendMcpServe} receives it.
 *
 * @example
 * ```ts
 * const extend = (builtin: McpServeDefinition) => ({ ...builtin, description: "Serve the hub's tools" });
 * ```
 */
export type McpServeDefinition = ProtocolCommandDefinition<McpServeFlags> & { flags: McpServeFlags };

/**
 * Registers `mcp.serve` on a tool: the built-in — the tool's own commands as MCP tools — or, with `extend`
 * ({@linkcode ToolOptions.extendMcpServe}), a definition built from it. Either way the manifest entry covers
 * every command served (REQ-C-032): its danger level is the most severe of the declared one and the served
 * commands', its scopes the union.
 *
 * @example
 * ```ts
 * import type { Tool, ToolOptions } from "@toolwire/toolwire";
 *
 * declare const tool: Tool;
 * declare const options: ToolOptions;
 * registerMcpServe(tool, options.extendMcpServe);
 * ```
 */
export function registerMcpServe<const F extends Record<string, FlagSpec>>(
  tool: ToolHost,
  extend?: (builtin: McpServeDefinition) => ProtocolCommandDefinition<F>,
): void {
  if (extend === undefined) {
    tool.registry.registerBuiltin(
      "mcp.serve",
      builtinDefinition.bind(undefined, tool),
      coverServedCommands,
      false,
    );
  } else {
    tool.registry.register(
      "mcp.serve",
      extend(builtinDefinition(tool)) as unknown as ProtocolCommandDefinition,
      coverServedCommands,
    );
  }
}

/**
 * The message-size and concurrency limits of an `mcp serve` invocation, checked: a value that would make the
 * server unusable is an ARG_ERROR before serving begins.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<McpServeFlags>;
 * const { maxMessageBytes, maxInFlight } = mcpServeLimits(ctx.flags);
 * ```
 */
export function mcpServeLimits(
  flags: FlagValues<McpServeFlags>,
): { maxMessageBytes: number; maxInFlight: number } {
  const maxMessageBytes = flags["max-message-bytes"];
  const maxInFlight = flags["max-in-flight"];
  if (maxMessageBytes < 1024) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--max-message-bytes expects at least 1024, got ${maxMessageBytes}`,
    );
  }
  if (maxInFlight < 1) {
    throw new CommandError(ExitCode.ARG_ERROR, `--max-in-flight expects at least 1, got ${maxInFlight}`);
  }
  return { maxMessageBytes, maxInFlight };
}

function builtinDefinition(tool: ToolHost): McpServeDefinition {
  return {
    description: "Serve the tool's commands as MCP tools over stdio until stdin closes",
    // The floor: raised to the most severe level and every scope of the commands it serves.
    danger_level: "safe",
    required_scopes: [],
    stdout: "protocol",
    protocol: "mcp-stdio",
    mcp: false,
    flags: MCP_SERVE_FLAGS,
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "The client closed stdin and the server shut down cleanly",
        retryable: false,
        side_effects: "complete",
      },
    },
    examples: [
      { description: "Serve every command", command: `${tool.name} mcp serve` },
      { description: "Serve only read-only commands", command: `${tool.name} mcp serve --read-only` },
    ],
    serve: (ctx) => {
      const limits = mcpServeLimits(ctx.flags);
      const catalog = commandCatalog(tool, { commands: () => tool.registry.servableEntries() }, {
        readOnly: ctx.flags["read-only"],
      });
      return (io) =>
        serveMcp(io, {
          serverInfo: { name: tool.name, version: tool.version },
          instructions:
            `${tool.description}. Each tool is a '${tool.name}' command; results are its JSON envelope.`,
          catalog,
          ...limits,
        });
    },
  };
}

/**
 * The manifest entry of a command that serves the tool's commands (`mcp serve`, `mcp listen`): its danger
 * level raised to the most severe of what it serves, saying why, and its scopes their union.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 * import type { CommandRegistry } from "../contract/registry.ts";
 *
 * declare const entry: CommandEntry;
 * declare const registry: CommandRegistry;
 * coverServedCommands(entry, registry).danger_level; // "destructive" when it serves a destructive command
 * ```
 */
export const coverServedCommands: EntryRefiner = (entry, registry) => {
  const served = servedBy(registry);
  const level = mostSevere([entry.danger_level, ...served.map(([, served]) => served.danger_level)]);
  // Say why the server is rated above what it declared: it is as dangerous as what it serves.
  const raisedBy = level === entry.danger_level
    ? []
    : served.filter(([, served]) => served.danger_level === level);
  const because = raisedBy.map(([path]) => commandWords(path)).join(", ");
  return {
    ...entry,
    description: raisedBy.length === 0
      ? entry.description
      : `${entry.description}; ${level} because it serves ${because}`,
    danger_level: level,
    required_scopes: [
      ...new Set([...entry.required_scopes, ...served.flatMap(([, served]) => served.required_scopes)]),
    ].sort(),
  };
};

/**
 * The commands a tool's MCP server offers, as `[path, entry]` pairs.
 *
 * @example
 * ```ts
 * import type { CommandRegistry } from "../contract/registry.ts";
 *
 * declare const registry: CommandRegistry;
 * servedBy(registry).map(([path]) => path); // ["notes.add", "notes.list", …]
 * ```
 */
export function servedBy(registry: CommandRegistry): Array<[string, CommandEntry]> {
  // A built-in registered as never served is never among them: it is not built for this.
  const servable = registry.all().filter((command) => command.served !== false);
  const commands = Object.fromEntries(servable.map((command) => [command.path, command.entry]));
  return servedCommands(commands, { readOnly: false });
}
