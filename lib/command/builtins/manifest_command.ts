import type { ToolHost } from "../contract/tool_host.ts";
import manifestSchema from "../../../schema/manifest.schema.json" with { type: "json" };
import type { Manifest } from "../contract/manifest.ts";
import { commandWords } from "../contract/command_words.ts";
import type { CommandDefinition } from "../contract/command_definition.ts";

/**
 * Registers the built-in `manifest` on a tool; every tool has it.
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool; // a tool being built, before its own commands
 * registerManifest(tool);
 * ```
 */
export function registerManifest(tool: ToolHost): void {
  tool.registry.registerBuiltin("manifest", manifestDefinition.bind(undefined, tool));
}

function manifestDefinition(
  tool: ToolHost,
): CommandDefinition<{ etag: { type: "string"; description: string } }> {
  return {
    description: "Print every command's contract — flags, exit codes, danger level — as one JSON document",
    danger_level: "safe",
    required_scopes: [],
    flags: {
      etag: {
        type: "string",
        description:
          "The etag of a manifest you hold; if unchanged, data is null and meta.not_modified is true",
      },
    },
    output_schema: manifestOutputSchema(),
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "The manifest, or not_modified when the etag matches",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [{ description: "Print the manifest", command: `${tool.name} manifest --format json` }],
    run: async (ctx) => {
      const manifest = await tool.manifest();
      if (ctx.flags.etag !== undefined && ctx.flags.etag === manifest.etag) {
        ctx.meta.not_modified = true;
        return null;
      }
      return manifest;
    },
    plain: (data) => {
      if (data === null) return "not modified";
      const manifest = data as Manifest;
      const rows = Object.entries(manifest.commands).map(([path, entry]) => [commandWords(path), entry]);
      const width = Math.max(...rows.map(([words]) => String(words).length));
      return [
        `${tool.name} ${tool.version} — manifest ${manifest.schema_version}, ${manifest.etag}`,
        ...rows.map(([words, entry]) => {
          const e = entry as Manifest["commands"][string];
          return `  ${String(words).padEnd(width)}  ${e.danger_level.padEnd(11)}  ${e.description}`;
        }),
      ].join("\n");
    },
  };
}

/**
 * The manifest's `output_schema`: the project's own manifest schema (`schema/manifest.schema.json`), so an
 * agent that validates `data` with what the tool says of itself enforces what the tool enforces — `mcp: true`,
 * `stdout` without `protocol` and every combination REQ-C-032 forbids are refused. Without its `$id`: the
 * schema is embedded in each MCP tool's envelope schema, where an `$id` would change how its references
 * resolve.
 */
function manifestOutputSchema(): Record<string, unknown> {
  const { $id: _id, ...schema } = manifestSchema;
  return schema;
}
