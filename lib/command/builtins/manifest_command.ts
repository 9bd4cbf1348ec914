import type { Tool } from "../tool.ts";
import type { Manifest } from "../contract/manifest.ts";
import { commandWords } from "../contract/command_words.ts";
import type { CommandDefinition } from "../contract/contract.ts";

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
export function registerManifest(tool: Tool): void {
  tool.registry.registerBuiltin("manifest", manifestDefinition.bind(undefined, tool));
}

function manifestDefinition(
  tool: Tool,
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
    output_schema: {
      type: "object",
      properties: {
        schema_version: { type: "string" },
        framework_version: { type: "string" },
        etag: { type: "string" },
        commands: {
          type: "object",
          additionalProperties: { type: "object" },
          description: "Each command's contract, by dotted path",
        },
      },
      required: ["schema_version", "framework_version", "etag", "commands"],
    },
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
