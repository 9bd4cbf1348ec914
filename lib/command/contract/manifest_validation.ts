import { manifestEntryIssues } from "./registration_rules.ts";
import { isRecord } from "../../json.ts";

/** One thing wrong with a manifest. */
export interface ManifestIssue {
  /** The command whose entry is at fault; absent for the manifest's own fields. */
  command?: string;
  /** The field at fault: `etag`, `commands`, or a field of the command's entry such as `flags.limit.type`. */
  field: string;
  /** What is wrong, naming the command and the field: `command 'approve': mcp: may only be false (...)`. */
  message: string;
  /**
   * Set on a top-level member the manifest format does not define (a `tool` object some frameworks add):
   * what toolwire prints never has one, and a reader may pass over it and still use the commands.
   */
  unknownMember?: true;
}

// Exactly the members of the published ManifestResponse (additionalProperties: false there).
const TOP_LEVEL_FIELDS = new Set(["schema_version", "framework_version", "etag", "commands"]);

/**
 * Checks a manifest (REQ-O-041 with the `stdout`, `protocol` and `mcp` fields of REQ-C-032) — whatever program
 * printed it — and lists every problem. Each command entry is held to the same contract rules registration
 * applies to a definition: `stdout` ⇔ `protocol`, none of the fields a protocol command cannot declare, `mcp`
 * only `false`, exit codes from the standard table, well-formed flags and positionals. The top level has
 * exactly the published ManifestResponse's four members — `schema_version`, `framework_version`, `etag`,
 * `commands` — all required, nothing else: another member is an issue marked `unknownMember`, which a reader
 * that only needs the commands may pass over (the bridge does, with a warning). Zero dependencies: this runs
 * where the manifest is consumed, not only in tests.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope; // what `tool manifest` printed
 * const issues = validateManifest(envelope.data);
 * if (issues.length > 0) console.error(issues.map((issue) => issue.message).join("\n"));
 * ```
 */
export function validateManifest(value: unknown): ManifestIssue[] {
  if (!isRecord(value)) return [top("manifest", "must be an object")];
  const issues: ManifestIssue[] = [];
  for (const key of Object.keys(value)) {
    if (!TOP_LEVEL_FIELDS.has(key)) {
      issues.push({
        ...top(
          key,
          "is not a field of the manifest format (exactly schema_version, framework_version, etag, commands)",
        ),
        unknownMember: true,
      });
    }
  }
  if (typeof value.schema_version !== "string" || !/^\d+\.\d+$/.test(value.schema_version)) {
    issues.push(top("schema_version", 'must be a version string MAJOR.MINOR, e.g. "3.17"'));
  }
  if (
    typeof value.framework_version !== "string" || !/^\d+\.\d+\.\d+([-+].+)?$/.test(value.framework_version)
  ) {
    issues.push(top("framework_version", "must be a version string MAJOR.MINOR.PATCH"));
  }
  if (typeof value.etag !== "string" || !/^sha256:[0-9a-f]{64}$/.test(value.etag)) {
    issues.push(top("etag", 'must be "sha256:" followed by 64 lowercase hex digits'));
  }
  if (!isRecord(value.commands)) {
    return [...issues, top("commands", "must be a map from dotted command path to entry")];
  }
  const commands = value.commands;
  for (const [path, entry] of Object.entries(commands)) {
    for (const issue of manifestEntryIssues(path, entry)) {
      issues.push({ command: issue.command, field: issue.field, message: issue.message });
    }
    const subcommands = isRecord(entry) && Array.isArray(entry.subcommands) ? entry.subcommands : [];
    for (const child of subcommands) {
      if (typeof child === "string" && !Object.hasOwn(commands, child)) {
        issues.push({
          command: path,
          field: "subcommands",
          message: `command '${path}': subcommands: '${child}' is not in commands`,
        });
      }
    }
  }
  return issues;
}

function top(field: string, problem: string): ManifestIssue {
  return { field, message: `manifest: ${field}: ${problem}` };
}
