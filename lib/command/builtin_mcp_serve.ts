import { serveMcp } from "../protocol/mcp/mod.ts";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../framing/line_framer.ts";
import { CommandError } from "./command_error.ts";
import { ExitCode } from "./exit_code.ts";
import { CommandCatalog } from "./mcp/command_catalog.ts";
import { servedCommands } from "./mcp/tool_mapping.ts";
import { mostSevere } from "./registry.ts";
import { registerBuiltin } from "./tool.ts";

registerBuiltin((tool) => {
  tool.command("mcp.serve", {
    description: "Serve the tool's commands as MCP tools over stdio until stdin closes",
    // Refined when the manifest is built: the most severe level and every scope of the commands it serves.
    danger_level: "safe",
    required_scopes: [],
    stdout: "protocol",
    protocol: "mcp-stdio",
    flags: {
      "read-only": { type: "boolean", default: false, description: "Expose only the tool's safe commands" },
      "max-message-bytes": {
        type: "integer",
        default: DEFAULT_MAX_MESSAGE_BYTES,
        description: "Longest accepted message; a longer one is answered with -32600 and skipped",
      },
      "max-in-flight": { type: "integer", default: 64, description: "Requests handled at once; reading stdin pauses beyond it" },
    },
    exit_codes: {
      "0": { name: "SUCCESS", description: "The client closed stdin and the server shut down cleanly", retryable: false, side_effects: "complete" },
    },
    examples: [
      { description: "Serve every command", command: `${tool.name} mcp serve` },
      { description: "Serve only read-only commands", command: `${tool.name} mcp serve --read-only` },
    ],
    serve: async (ctx) => {
      const maxMessageBytes = ctx.flags["max-message-bytes"];
      const maxInFlight = ctx.flags["max-in-flight"];
      if (maxMessageBytes < 1024) {
        throw new CommandError(ExitCode.ARG_ERROR, `--max-message-bytes expects at least 1024, got ${maxMessageBytes}`);
      }
      if (maxInFlight < 1) throw new CommandError(ExitCode.ARG_ERROR, `--max-in-flight expects at least 1, got ${maxInFlight}`);
      const catalog = await CommandCatalog.create(tool, { commands: tool.registry.entries() }, { readOnly: ctx.flags["read-only"] });
      return (io) =>
        serveMcp(io, {
          serverInfo: { name: tool.name, version: tool.version },
          instructions: `${tool.description}. Each tool is a '${tool.name}' command; results are its JSON envelope.`,
          catalog,
          maxMessageBytes,
          maxInFlight,
        });
    },
  }, (entry, registry) => {
    const commands = Object.fromEntries(registry.all().map((command) => [command.path, command.entry]));
    const served = servedCommands(commands, { readOnly: false }).map(([, served]) => served);
    return {
      ...entry,
      danger_level: mostSevere(served.map((served) => served.danger_level)),
      required_scopes: [...new Set(served.flatMap((served) => served.required_scopes))].sort(),
    };
  });
});
