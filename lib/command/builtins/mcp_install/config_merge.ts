/**
 * Adding one server entry to the text of a client configuration by editing it in place: only the bytes of
 * that entry change (and the separators around it); every other byte — numbers beyond a double's precision,
 * escapes, key order, comments, compact or minified layout, line ends, a byte-order mark — stays as it was.
 * @module
 */
import { CommandError } from "../../contract/command_error.ts";
import { ExitCode } from "../../../exit_code.ts";
import { canonicalJson } from "../../../json.ts";
import { type JsonLayout, lineEnd, renderJson } from "./json_layout.ts";
import { applyEdits, insertMember, type Member, membersOf, replaceValue } from "./member_edits.ts";
import {
  type JsonDialect,
  JsonSyntaxError,
  onlyTrivia,
  scanJson,
  type ScannedJson,
  strictJson,
} from "./json_scan.ts";

/** What {@linkcode mergeServer} merges, and where. */
export interface ServerMergeRequest {
  /** The file, for messages. */
  path: string;
  /** The client, for messages: `Claude Desktop`. */
  client: string;
  /** Whether the client reads the file as JSONC (comments, trailing commas) or as plain JSON. */
  jsonc: boolean;
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
  /** The file's new content: the old one with only the server's entry (and its separators) changed. */
  text: string;
}

/**
 * A configuration file's bytes as text; PRECONDITION when they are not UTF-8, which every client reads them
 * as (a byte-order mark is kept as U+FEFF, so that it is written back).
 *
 * @example
 * ```ts
 * decodeConfig(new TextEncoder().encode('{"mcpServers": {}}'), "/home/ada/.cursor/mcp.json");
 * ```
 */
export function decodeConfig(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${path} is not UTF-8 text; the file was left as it is`,
      { suggestion: "save the file as UTF-8, or print the entry with --print and add it yourself" },
    );
  }
}

/**
 * Merges one server entry into the text of a client configuration, or refuses: PRECONDITION when the text
 * is not a JSON object in the client's dialect, holds its servers key or the server's name twice, or its
 * servers key holds something other than an object; CONFLICT when the name holds another entry and `force`
 * is off. Nothing is written here; the caller writes `text`. A missing or blank file counts as `{}`.
 *
 * @example
 * ```ts
 * const merge = mergeServer('{"theme":"dark"}', {
 *   path: "/home/ada/.cursor/mcp.json",
 *   client: "Cursor",
 *   jsonc: false,
 *   serversKey: "mcpServers",
 *   name: "notes",
 *   entry: { command: "notes", args: ["mcp", "serve"] },
 *   force: false,
 * });
 * merge.text; // '{"theme":"dark","mcpServers":{"notes":{"command":"notes","args":["mcp","serve"]}}}'
 * ```
 */
export function mergeServer(original: string | undefined, request: ServerMergeRequest): ServerMerge {
  try {
    return merge(original ?? "", request);
  } catch (error) {
    // Comparing the entry already there recurses: one nested deeper than that is refused, not crashed on.
    if (!(error instanceof RangeError)) throw error;
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${request.path}: the entry of '${request.name}' is nested too deeply to compare; the file was left as it is`,
    );
  }
}

function merge(source: string, request: ServerMergeRequest): ServerMerge {
  const start = source.startsWith("\uFEFF") ? 1 : 0;
  const dialect: JsonDialect = { jsonc: request.jsonc };
  const wanted = { [request.name]: request.entry };
  if (isBlank(source, start, dialect, request)) {
    return { change: "create", before: null, text: freshText(source, start, request.serversKey, wanted) };
  }
  const scanned = scan(source, start, dialect, request);
  if (scanned.tokens[0]!.kind !== "{") {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${request.path} does not hold a JSON object; the file was left as it is`,
      {
        suggestion:
          "a client configuration is one JSON object: fix the file by hand, or use --config to name another",
      },
    );
  }
  const top = membersOf(scanned, 0);
  const serversMember = only(top, request.serversKey, request.path, "the top level", scanned);
  if (serversMember === undefined) {
    const edits = insertMember(scanned, 0, top, request.serversKey, wanted);
    return { change: "create", before: null, text: applyEdits(source, edits) };
  }
  if (scanned.tokens[serversMember.valueFirst]!.kind !== "{") {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `${request.path}: "${request.serversKey}" is not an object; the file was left as it is`,
      {
        suggestion:
          `fix "${request.serversKey}" by hand (it maps server names to their entries), then run this again`,
      },
    );
  }
  const servers = membersOf(scanned, serversMember.valueFirst);
  const existing = only(servers, request.name, request.path, `"${request.serversKey}"`, scanned);
  if (existing === undefined) {
    const edits = insertMember(scanned, serversMember.valueFirst, servers, request.name, request.entry);
    return { change: "create", before: null, text: applyEdits(source, edits) };
  }
  const before: unknown = JSON.parse(strictJson(scanned, existing.valueFirst, existing.valueLast));
  if (canonicalJson(before) === canonicalJson(request.entry)) return { change: "none", before, text: source };
  if (!request.force) {
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
  const edit = replaceValue(scanned, serversMember.valueFirst, existing, request.entry);
  return { change: "replace", before, text: applyEdits(source, [edit]) };
}

function isBlank(source: string, start: number, dialect: JsonDialect, request: ServerMergeRequest): boolean {
  try {
    return onlyTrivia(source, dialect, start);
  } catch (error) {
    throw syntaxRefusal(error, request);
  }
}

function scan(source: string, start: number, dialect: JsonDialect, request: ServerMergeRequest): ScannedJson {
  try {
    return scanJson(source, dialect, start);
  } catch (error) {
    throw syntaxRefusal(error, request);
  }
}

function syntaxRefusal(error: unknown, request: ServerMergeRequest): unknown {
  if (!(error instanceof JsonSyntaxError)) return error;
  const where = `line ${error.line}, column ${error.column}`;
  if (!request.jsonc && (error.what === "a comment" || error.what.startsWith("a comma before"))) {
    return new CommandError(
      ExitCode.PRECONDITION,
      `${request.path} has ${error.what} at ${where}: ${request.client} reads this file as plain JSON, ` +
        "without comments or trailing commas, and would not read it; the file was left as it is",
      {
        suggestion:
          "remove the comments and trailing commas, or print the entry with --print and add it yourself",
      },
    );
  }
  return new CommandError(
    ExitCode.PRECONDITION,
    `${request.path} is not valid ${
      request.jsonc ? "JSONC" : "JSON"
    } (${error.message}); the file was left ` +
      "as it is",
    { suggestion: "fix the file by hand, or print the entry with --print and add it yourself" },
  );
}

// A missing or blank file becomes the servers object alone; comments (in JSONC) stay above it.
function freshText(source: string, start: number, serversKey: string, servers: unknown): string {
  const eol = lineEnd(source);
  const layout: JsonLayout = { eol, unit: "  ", colon: ": ", comma: " ", inline: false };
  const object = renderJson({ [serversKey]: servers }, "", layout);
  const kept = source.slice(start);
  if (/^[ \t\r\n]*$/.test(kept)) return `${source.slice(0, start)}${object}${eol}`;
  return `${source}${/[\r\n]$/.test(source) ? "" : eol}${object}${eol}`;
}

// The member of that key, if any; a key given twice is refused: clients keep one of the two (which one
// differs), so an edit of either could silently lose the other.
function only(
  members: readonly Member[],
  key: string,
  path: string,
  where: string,
  scanned: ScannedJson,
): Member | undefined {
  const found = members.filter((member) => member.key === key);
  if (found.length <= 1) return found[0];
  const lines = found.map((member) => lineOf(scanned.text, scanned.tokens[member.keyToken]!.start));
  throw new CommandError(
    ExitCode.PRECONDITION,
    `${path} has "${key}" ${found.length} times in ${where} (lines ${
      lines.join(", ")
    }); the file was left as it is`,
    { suggestion: `keep one "${key}" (merge them by hand), then run this again` },
  );
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) {
    if (text[i] === "\n" || (text[i] === "\r" && text[i + 1] !== "\n")) line++;
  }
  return line;
}

/** The layout of new text inside the object opened at token `open`. */
