import type {
  AnyCommandDefinition,
  CommandContract,
  FlagSpec,
  PositionalSpec,
} from "./command_definition.ts";
import { CONTRACT_FIELDS, DEFAULT_FORMAT_MEMBER } from "./contract_fields.ts";
import type { ExitCodeTable } from "../../exit_code.ts";
import { frameworkExitCodes, frameworkFlagsFor } from "./framework_flags.ts";
import type { OutputFormat } from "./command_definition.ts";
import { canonicalJson, copyJson, sha256Tag } from "../../json.ts";

/** The manifest schema version this framework writes (REQ-O-041 with REQ-C-032's 3.16/3.17 fields). */
export const MANIFEST_SCHEMA_VERSION = "3.17";

/** A flag as the manifest shows it: `required` always present. */
export interface FlagEntry extends Omit<FlagSpec, "required"> {
  required: boolean;
}

/** A positional as the manifest shows it: `type` and `required` always present, `variadic` only when true. */
export interface PositionalEntry {
  name: string;
  description: string;
  type: NonNullable<PositionalSpec["type"]>;
  required: boolean;
  /** Takes every remaining argument; present only on a variadic last positional. */
  variadic?: true;
}

/**
 * One command in the manifest: its declared contract plus what the framework adds. A declared
 * `supports_dry_run` shows as the `dry-run` flag in `flags`, a declared `default_format` as
 * `x-default-format`: no published vocabulary has either member.
 */
export interface CommandEntry
  extends Omit<CommandContract, "exit_codes" | "default_format" | "supports_dry_run"> {
  flags: Record<string, FlagEntry>;
  positionals?: PositionalEntry[];
  exit_codes: ExitCodeTable;
  /** Destructive commands proceed only with `--confirm-destructive` (REQ-O-021). */
  requires_confirmation?: true;
  /** Dotted paths of direct child commands. */
  subcommands?: string[];
  /** The declared `default_format`: the format when neither `--format` nor `<TOOL>_FORMAT` picks one. */
  "x-default-format"?: OutputFormat;
}

/**
 * The whole command tree in one object (REQ-O-041): exactly the four members the published ManifestResponse
 * schema allows, so a strict consumer accepts it. The tool's own name, version and description are not part
 * of it; `tool --version` reports them.
 */
export interface Manifest {
  schema_version: string;
  framework_version: string;
  /** `sha256:` of the canonical JSON of everything else: equal registrations, equal etag. */
  etag: string;
  /** Flat map from dotted path to entry, sorted by path. */
  commands: Record<string, CommandEntry>;
}

/**
 * The manifest entry of one command: its declared data (handlers and run-time settings left out), its flags
 * with the framework's own, and its exit codes with those the framework can raise.
 *
 * @example
 * ```ts
 * import type { CommandDefinition } from "@toolwire/toolwire";
 *
 * declare const definition: CommandDefinition;
 * const entry = manifestEntry(definition);
 * entry.exit_codes["2"]?.name; // "ARG_ERROR"
 * ```
 */
export function manifestEntry(definition: AnyCommandDefinition): CommandEntry {
  const source: Record<string, unknown> = { ...definition };
  // A protocol server or a passthrough command can never be an MCP tool; the manifest says so, as REQ-C-032
  // asks of every command the tool's MCP server leaves out.
  if (definition.stdout === "protocol" || definition.arguments === "passthrough") source.mcp = false;
  const entry: Record<string, unknown> = {};
  for (const field of CONTRACT_FIELDS) {
    if (source[field] !== undefined) entry[field] = copyJson(source[field]);
  }
  const flags: Record<string, FlagEntry> = {};
  for (const [name, spec] of Object.entries({ ...definition.flags, ...frameworkFlagsFor(definition) })) {
    flags[name] = flagEntry(spec);
  }
  entry.flags = flags;
  if (definition.positionals !== undefined && definition.positionals.length > 0) {
    entry.positionals = definition.positionals.map((p) => ({
      name: p.name,
      type: p.type ?? "string",
      required: p.required !== false,
      description: p.description,
      ...(p.variadic === true ? { variadic: true as const } : {}),
    }));
  }
  entry.exit_codes = sortedByCode({ ...frameworkExitCodes(definition), ...copyJson(definition.exit_codes) });
  if (definition.danger_level === "destructive" && definition.stdout !== "protocol") {
    entry.requires_confirmation = true;
  }
  if (definition.default_format !== undefined) entry[DEFAULT_FORMAT_MEMBER] = definition.default_format;
  return entry as unknown as CommandEntry;
}

function flagEntry(spec: FlagSpec): FlagEntry {
  const entry: FlagEntry = {
    type: spec.type,
    required: spec.required ?? false,
    description: spec.description,
  };
  if (spec.default !== undefined) entry.default = copyJson(spec.default);
  if (spec.enum_values !== undefined) entry.enum_values = [...spec.enum_values];
  if (spec.short !== undefined) entry.short = spec.short;
  return entry;
}

function sortedByCode(table: ExitCodeTable): ExitCodeTable {
  const sorted: ExitCodeTable = {};
  for (const key of Object.keys(table).sort((a, b) => Number(a) - Number(b))) sorted[key] = table[key]!;
  return sorted;
}

/**
 * Assembles the manifest from entries, adds `subcommands`, and computes the deterministic etag.
 *
 * @example
 * ```ts
 * declare const entries: ReadonlyMap<string, CommandEntry>;
 * const manifest = await assembleManifest("0.1.0", entries);
 * manifest.etag; // "sha256:…"
 * ```
 */
export async function assembleManifest(
  frameworkVersion: string,
  entries: ReadonlyMap<string, CommandEntry>,
): Promise<Manifest> {
  const commands: Record<string, CommandEntry> = {};
  const paths = [...entries.keys()].sort();
  for (const path of paths) {
    const children = paths.filter((other) =>
      other.startsWith(`${path}.`) && !other.slice(path.length + 1).includes(".")
    );
    commands[path] = children.length > 0
      ? { ...entries.get(path)!, subcommands: children }
      : entries.get(path)!;
  }
  const body = { schema_version: MANIFEST_SCHEMA_VERSION, framework_version: frameworkVersion, commands };
  return {
    schema_version: body.schema_version,
    framework_version: body.framework_version,
    etag: await manifestEtag(body),
    commands,
  };
}

/**
 * The etag a manifest's content calls for: `sha256:` and the hex digest of the UTF-8 bytes of the canonical
 * JSON of `{schema_version, framework_version, commands}` — object keys sorted at every depth, no white
 * space. Every toolwire manifest carries it, and a CLI of any language computes the same; a client that holds
 * it asks `manifest --etag <held>` whether anything changed.
 *
 * @example
 * ```ts
 * declare const manifest: Manifest;
 * const honest = manifest.etag === await manifestEtag(manifest);
 * ```
 */
export function manifestEtag(
  manifest: Pick<Manifest, "schema_version" | "framework_version" | "commands">,
): Promise<string> {
  const { schema_version, framework_version, commands } = manifest;
  return sha256Tag(canonicalJson({ schema_version, framework_version, commands }));
}
