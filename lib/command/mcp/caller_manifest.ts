/**
 * The manifest an authenticated caller is served over MCP: only the commands its scopes cover, by the rule
 * `tools/list` follows, so that the `manifest` tool shows no contract of a tool the caller cannot see.
 * @module
 */
import { isRecord } from "../../json.ts";
import { mayUse, type McpCaller } from "../../protocol/mcp/caller.ts";
import type { ResponseEnvelope } from "../contract/envelope.ts";
import { type Manifest, manifestEtag } from "../contract/manifest.ts";
import type { CheckedArguments } from "./tool_mapping.ts";

/**
 * The path of the command whose result is a manifest: the built-in's, and a bridged CLI's.
 *
 * @example
 * ```ts
 * MANIFEST_COMMAND; // "manifest"
 * ```
 */
export const MANIFEST_COMMAND = "manifest";

/**
 * Takes the `etag` a caller gave out of its checked arguments: the command then answers the whole manifest,
 * and the etag is compared with the narrowed one's by {@linkcode callerManifest}. Compared with the whole
 * manifest's, it would tell a caller whether commands it cannot see have changed.
 *
 * @example
 * ```ts
 * import type { CheckedArguments } from "./tool_mapping.ts";
 *
 * declare const checked: CheckedArguments; // a manifest call with etag "sha256:…"
 * const held = takeEtag(checked); // "sha256:…"; the call now runs without it
 * ```
 */
export function takeEtag(checked: CheckedArguments): unknown {
  const held = checked.given.get("etag");
  checked.given.delete("etag");
  delete checked.flags.etag;
  return held;
}

/**
 * A `manifest` envelope as `caller` may see it: the commands whose `required_scopes` it holds (an entry whose
 * scopes cannot be read is left out), `subcommands` naming only those, and the etag of what is left; when
 * that is `held`, `data` is null and `meta.not_modified` true, as the command answers an unchanged manifest.
 * A manifest the caller sees whole is returned as it came, and so is an envelope that holds no manifest.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope; // the manifest command's
 * const reader = { subject: "ci", scopes: ["notes:read"], claims: {} };
 * const served = await callerManifest(envelope, reader, undefined); // no add, no remove
 * ```
 */
export async function callerManifest(
  envelope: ResponseEnvelope,
  caller: McpCaller,
  held: unknown,
): Promise<ResponseEnvelope> {
  const manifest = envelope.data;
  if (!isRecord(manifest) || !isRecord(manifest.commands)) return envelope;
  const visible = Object.entries(manifest.commands).filter(([, entry]) => {
    const required = scopesOf(entry);
    return required !== undefined && mayUse(caller, required);
  });
  let narrowed = manifest;
  if (visible.length < Object.keys(manifest.commands).length) {
    const paths = new Set(visible.map(([path]) => path));
    const commands = Object.fromEntries(
      visible.map(([path, entry]) => [path, withSubcommands(entry, paths)]),
    );
    const body = { schema_version: manifest.schema_version, framework_version: manifest.framework_version };
    const etag = await manifestEtag({ ...body, commands } as Pick<Manifest, keyof typeof body | "commands">);
    narrowed = { ...manifest, etag, commands };
  }
  if (held === undefined || held !== narrowed.etag) return { ...envelope, data: narrowed };
  return { ...envelope, data: null, meta: { not_modified: true, ...envelope.meta } };
}

/** An entry's `required_scopes`, or `undefined` when they cannot be read. */
function scopesOf(entry: unknown): readonly string[] | undefined {
  const scopes = isRecord(entry) ? entry.required_scopes : undefined;
  const readable = Array.isArray(scopes) && scopes.every((scope) => typeof scope === "string");
  return readable ? scopes : undefined;
}

/** The entry with its `subcommands` narrowed to `paths` (the member left out when none is left). */
function withSubcommands(entry: unknown, paths: ReadonlySet<string>): unknown {
  if (!isRecord(entry) || !Array.isArray(entry.subcommands)) return entry;
  const { subcommands, ...rest } = entry;
  const kept = subcommands.filter((path) => paths.has(path));
  return kept.length === 0 ? rest : { ...rest, subcommands: kept };
}
