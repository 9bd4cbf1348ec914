import type { CommandContract } from "./command_definition.ts";

/**
 * The declared fields of a command contract that a manifest entry carries as they are, in the fixed order
 * the manifest writes them (equal registrations serialise byte for byte the same). Internal: the manifest
 * builder and the manifest-entry rules share it. Two declared fields are not among them, because no
 * published vocabulary has them: `supports_dry_run` shows as the `dry-run` flag in `flags` (where REQ-C-004
 * declares it), and `default_format` as the extension member {@linkcode DEFAULT_FORMAT_MEMBER}.
 */
export const CONTRACT_FIELDS = [
  "description",
  "aliases",
  "danger_level",
  "required_scopes",
  "stdout",
  "protocol",
  "mcp",
  "arguments",
  "stderr",
  "stdin",
  "interactive",
  "streaming_default",
  "output_file",
  "output_schema",
  "output_formats",
  "output_media_types",
  "async",
  "spawns_background_process",
  "cleanup_command",
  "max_lifetime_seconds",
  "confirm_flag",
  "safe_default",
  "idempotent",
  "has_network_io",
  "examples",
] as const satisfies ReadonlyArray<keyof CommandContract>;

/**
 * The manifest member of a command's `default_format`: an `x-` extension member, since no published
 * vocabulary defines one (docs/manifest.md).
 */
export const DEFAULT_FORMAT_MEMBER = "x-default-format";

/**
 * Entry members of earlier toolwire manifests that a reader still accepts, for what the current ones print
 * otherwise: `default_format` (now {@linkcode DEFAULT_FORMAT_MEMBER}) and `supports_dry_run` (now the
 * `dry-run` flag).
 */
export const EARLIER_ENTRY_MEMBERS = ["default_format", "supports_dry_run"] as const;
