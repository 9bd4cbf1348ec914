/**
 * Command declarations for in-process tests of registration and the manifest schema: a valid ordinary
 * command, a valid protocol command, and a sample value for each field REQ-C-032 forbids on a protocol command.
 * Tests spread these and change one field, so each refusal has exactly one cause.
 */
import type { AnyCommandDefinition } from "../../mod.ts";

/** A declaration as plain data, so a test can break any field without fighting the types. */
export type Declaration = Record<string, unknown>;

/** A valid ordinary (envelope) command. */
export function ordinaryDeclaration(): Declaration {
  return {
    description: "List the widgets",
    danger_level: "safe",
    required_scopes: [],
    flags: {
      limit: { type: "integer", short: "n", description: "At most N widgets", default: 20 },
      tag: { type: "array", description: "Only widgets with this tag; repeatable" },
    },
    positionals: [{ name: "shelf", description: "Which shelf", required: false }],
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "The widgets, possibly none",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description: "The shelf does not exist",
        retryable: false,
        side_effects: "none",
      },
    },
    run: () => [],
  };
}

/** A valid protocol server command (REQ-C-032). */
export function protocolDeclaration(): Declaration {
  return {
    description: "Serve the widget protocol over stdio until stdin closes",
    danger_level: "mutating",
    required_scopes: ["widgets:write"],
    stdout: "protocol",
    protocol: "widget-rpc",
    flags: { "read-only": { type: "boolean", description: "Answer only read requests", default: false } },
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "stdin closed; clean shutdown",
        retryable: false,
        side_effects: "complete",
      },
    },
    serve: () => () => Promise.resolve(),
  };
}

/**
 * One declared value for every field that does not combine with `stdout: "protocol"` (REQ-C-032). Each value
 * is valid on an ordinary command, so a refusal can only come from the combination.
 */
export const FORBIDDEN_WITH_PROTOCOL: ReadonlyArray<readonly [field: string, value: unknown]> = [
  ["arguments", "passthrough"],
  ["stderr", "child_log"],
  ["stdin", { description: "A JSON payload", max_bytes: 1_048_576 }],
  ["interactive", true],
  ["streaming_default", true],
  ["output_file", true],
  ["output_schema", { type: "object" }],
  ["output_formats", ["yaml"]],
  ["output_media_types", ["text/csv"]],
  ["async", true],
  ["spawns_background_process", true],
  ["cleanup_command", "widgets stop"],
  ["max_lifetime_seconds", 3600],
  ["confirm_flag", "yes"],
  ["safe_default", true],
];

/** Casts a plain-data declaration for `register`, which validates it at run time anyway. */
export function asDefinition(declaration: Declaration): AnyCommandDefinition {
  return declaration as unknown as AnyCommandDefinition;
}
