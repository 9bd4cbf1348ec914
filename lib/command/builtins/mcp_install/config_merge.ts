import { CommandError } from "../../contract/command_error.ts";
import { ExitCode } from "../../../exit_code.ts";
import { canonicalJson, isRecord } from "../../../json.ts";
import { errorMessage } from "../../run/thrown_error.ts";

/** What {@linkcode mergeServer} merges, and where. */
export interface ServerMergeRequest {
  /** The file, for messages. */
  path: string;
  /** The key of the object holding the servers: `mcpServers` or `servers`. */
  serversKey: string;
  /** The server's name. */
  name: string;
  /** The server's entry. */
  entry: Record<string, unknown>;
  /** Replace an existing server of that name that differs. */
  force: boolean;
}

/** The outcome of {@linkcode mergeServer}. */
export interface ServerMerge {
  /** `none`: the same entry is there already; the file needs no change. */
  change: "create" | "replace" | "none";
  /** The entry the name held before, `null` when none. */
  before: unknown;
  /** The file's new content: every other key and server as it was, the indentation and line ends kept. */
  text: string;
}

/**
 * Merges one server entry into the text of a client configuration, or refuses: PRECONDITION when the text
 * is not a JSON object or its servers key holds something other than an object, CONFLICT when the name holds
 * another entry and `force` is off. Nothing is written here; the caller writes `text`. A missing or blank
 * file counts as `{}`.
 *
 * @example
 * ```ts
 * const merge = mergeServer('{"theme":"dark"}', {
 *   path: "/home/ada/.cursor/mcp.json",
 *   serversKey: "mcpServers",
 *   name: "notes",
 *   entry: { command: "notes", args: ["mcp", "serve"] },
 *   force: false,
 * });
 * merge.change; // "create"
 * ```
 */
export function mergeServer(original: string | undefined, request: ServerMergeRequest): ServerMerge {
  try {
    return merge(original, request);
  } catch (error) {
    // JSON.stringify and the comparison recurse: a file nested deeper than the stack is refused, not crashed on.
    if (!(error instanceof RangeError)) throw error;
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${request.path} is nested too deeply to rewrite; the file was left as it is`,
    );
  }
}

function merge(original: string | undefined, request: ServerMergeRequest): ServerMerge {
  const bom = original?.startsWith("\uFEFF") ? "\uFEFF" : "";
  const source = (original ?? "").slice(bom.length);
  const config = parseConfig(source, request.path);
  const key = request.serversKey;
  const servers = Object.hasOwn(config, key) ? config[key] : undefined;
  if (servers !== undefined && !isRecord(servers)) {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${request.path}: "${key}" is not an object; the file was left as it is`,
      {
        suggestion: `fix "${key}" by hand (it maps server names to their entries), then run this again`,
      },
    );
  }
  const before = servers !== undefined && Object.hasOwn(servers, request.name) ? servers[request.name] : null;
  if (before !== null && sameJson(before, request.entry)) {
    return { change: "none", before, text: original ?? "" };
  }
  if (before !== null && !request.force) {
    throw new CommandError(
      ExitCode.CONFLICT,
      `${request.path} already has a server named '${request.name}' with another entry`,
      {
        code: "SERVER_EXISTS",
        suggestion: "pass --force to replace it (a backup is kept), or choose another --name",
        details: { existing: before },
      },
    );
  }
  // The parsed objects are changed in place: every other key keeps its position, and a replaced server too.
  const target = servers ?? {};
  if (servers === undefined) config[key] = target;
  target[request.name] = request.entry;
  return { change: before === null ? "create" : "replace", before, text: bom + serialise(config, source) };
}

function parseConfig(source: string, path: string): Record<string, unknown> {
  if (source.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${path} is not valid JSON (${errorMessage(error)}); the file was left as it is`,
      {
        suggestion:
          "fix the file by hand (comments and trailing commas are not JSON), or print the entry with --print and add it yourself",
      },
    );
  }
  if (!isRecord(parsed)) {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${path} does not hold a JSON object; the file was left as it is`,
      {
        suggestion:
          "a client configuration is one JSON object: fix the file by hand, or use --config to name another",
      },
    );
  }
  return parsed;
}

// Written the way the file was: its indentation unit (two spaces unless it used another), its line ends, and
// a final newline unless it had none.
function serialise(config: Record<string, unknown>, source: string): string {
  const indent = /\n([ \t]+)"/.exec(source)?.[1] ?? "  ";
  const crlf = source.includes("\r\n");
  const finalNewline = source.trim() === "" || /\n\s*$/.test(source);
  let text = JSON.stringify(config, null, indent);
  if (crlf) text = text.replaceAll("\n", "\r\n");
  return finalNewline ? `${text}${crlf ? "\r\n" : "\n"}` : text;
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
