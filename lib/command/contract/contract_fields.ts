import type { CommandContract } from "./contract.ts";

/**
 * The declared fields of a command contract that a manifest entry carries as they are, in the fixed order
 * the manifest writes them (equal registrations serialise byte for byte the same). Internal: the manifest
 * builder and the manifest-entry rules share it.
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
  "default_format",
  "async",
  "spawns_background_process",
  "cleanup_command",
  "max_lifetime_seconds",
  "confirm_flag",
  "safe_default",
  "supports_dry_run",
  "idempotent",
  "has_network_io",
  "examples",
] as const satisfies ReadonlyArray<keyof CommandContract>;
