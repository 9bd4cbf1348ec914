import type { CommandEntry } from "../command/contract/manifest.ts";
import {
  mcpTool,
  notServedReason,
  servedCommands,
  type ServeFilter,
  toolName,
} from "../command/mcp/tool_mapping.ts";
import { isRecord } from "../json.ts";

/** A tool as a `tools/list` answer or a saved snapshot shows it: an object with a `name`, taken as it is. */
export type ListedTool = Record<string, unknown> & { name: string };

/** A tool the CLI would serve that the MCP list lacks. */
export interface AddedTool {
  tool: string;
  /** The command behind it, as a dotted path. */
  command: string;
}

/** A tool the MCP list has that the CLI would not serve. */
export interface RemovedTool {
  tool: string;
  /** The command of that name, when the CLI has one but does not serve it. */
  command?: string;
  /** Why the CLI does not serve it. */
  reason: string;
}

/**
 * One place where a tool differs. `cli` is the value the CLI would serve at `pointer`, `mcp` the value the
 * MCP list has; a side where the member is absent has no key.
 */
export interface ToolDifference {
  /** JSON Pointer into the tool, e.g. `/inputSchema/properties/limit/type`. */
  pointer: string;
  cli?: unknown;
  mcp?: unknown;
}

/** A tool both sides have, with different contents. */
export interface ChangedTool {
  tool: string;
  command: string;
  /** The tool's members that differ: `inputSchema`, `annotations`, `description`, `outputSchema`, … */
  fields: string[];
  /** Every difference, in pointer order. */
  differences: ToolDifference[];
}

/** What differs between the tools a CLI's manifest maps to and an MCP server's tool list (REQ-O-035). */
export interface ToolDrift {
  added: AddedTool[];
  removed: RemovedTool[];
  changed: ChangedTool[];
  /** The commands of `added`, as dotted paths: CLI commands the MCP list does not expose. */
  missing_from_mcp: string[];
}

/**
 * How deep a value is shown in a difference. The CLI's side is a validated manifest's, so the comparison
 * itself never goes deeper than that; the other side comes from a file or a server and may nest a hundred
 * thousand levels, which a report could not even be serialised with.
 */
const SHOWN_DEPTH = 32;

// What MCP assumes when a hint is absent: a tool that leaves one out means these values.
const ANNOTATION_DEFAULTS: Readonly<Record<string, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * Whether a drift report found anything.
 *
 * @example
 * ```ts
 * declare const drift: ToolDrift;
 * if (hasDrift(drift)) process.exitCode = 80;
 * ```
 */
export function hasDrift(drift: ToolDrift): boolean {
  return drift.added.length + drift.removed.length + drift.changed.length + drift.missing_from_mcp.length > 0;
}

/**
 * Compares the tools a CLI's manifest maps to — the list `mcp serve` would offer under `filter`, built by
 * the same mapping — with the tools an MCP server lists. Tools are matched by name. Contents are compared
 * as JSON: object member order does not count, nor the order of a `required` list, nor `_meta`, and an
 * absent annotation hint counts as MCP's default for it. A command the CLI never serves (`mcp: false`, a
 * protocol or passthrough command, `mcp serve` itself) is never `added` nor `missing_from_mcp`. `listed`
 * must hold each name once.
 *
 * @example
 * ```ts
 * import type { Manifest } from "@toolwire/toolwire";
 *
 * declare const manifest: Manifest;
 * declare const snapshot: { tools: ListedTool[] }; // from `toolwire mcp snapshot`
 * const drift = diffTools(manifest.commands, { readOnly: false }, snapshot.tools);
 * drift.changed[0]?.fields; // ["inputSchema"]
 * ```
 */
export function diffTools(
  commands: Readonly<Record<string, CommandEntry>>,
  filter: ServeFilter,
  listed: readonly ListedTool[],
): ToolDrift {
  const expected = new Map(
    servedCommands(commands, filter).map((
      [path, entry],
    ) => [toolName(path), { path, tool: mcpTool(path, entry) }]),
  );
  const actual = new Map(listed.map((tool) => [tool.name, tool]));
  const commandByTool = new Map(Object.keys(commands).map((path) => [toolName(path), path]));
  const drift: ToolDrift = { added: [], removed: [], changed: [], missing_from_mcp: [] };
  for (const name of [...new Set([...expected.keys(), ...actual.keys()])].sort(byCodeUnit)) {
    const cli = expected.get(name);
    const mcp = actual.get(name);
    if (cli !== undefined && mcp === undefined) {
      drift.added.push({ tool: name, command: cli.path });
      drift.missing_from_mcp.push(cli.path);
    } else if (cli === undefined) {
      const path = commandByTool.get(name);
      drift.removed.push(
        path === undefined ? { tool: name, reason: "no command of the CLI maps to it" } : {
          tool: name,
          command: path,
          reason: notServedReason(path, commands[path]!, filter) ?? "the command is not served",
        },
      );
    } else if (mcp !== undefined) {
      const differences: ToolDifference[] = [];
      compare("", comparable(cli.tool as unknown as Record<string, unknown>), comparable(mcp), differences);
      if (differences.length > 0) {
        const fields = [
          ...new Set(differences.map((difference) => decodePointerToken(difference.pointer.split("/")[1]!))),
        ];
        drift.changed.push({ tool: name, command: cli.path, fields, differences });
      }
    }
  }
  return drift;
}

/** A tool as the comparison sees it: no `_meta`, every annotation hint spelt out (none given: all defaults). */
function comparable(tool: Record<string, unknown>): Record<string, unknown> {
  // Null-prototype copies: a member named `__proto__` (JSON.parse makes it an own member) stays a member.
  const result: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(tool)) if (key !== "_meta") result[key] = tool[key];
  const annotations = tool.annotations === undefined ? {} : tool.annotations;
  if (isRecord(annotations)) {
    const filled: Record<string, unknown> = Object.create(null);
    for (const [hint, value] of Object.entries(ANNOTATION_DEFAULTS)) filled[hint] = value;
    for (const key of Object.keys(annotations)) filled[key] = annotations[key];
    result.annotations = filled;
  }
  return result;
}

function compare(pointer: string, cli: unknown, mcp: unknown, out: ToolDifference[], key?: string): void {
  if (isRecord(cli) && isRecord(mcp)) {
    for (const member of [...new Set([...Object.keys(cli), ...Object.keys(mcp)])].sort(byCodeUnit)) {
      const at = `${pointer}/${encodePointerToken(member)}`;
      const inCli = Object.hasOwn(cli, member);
      const inMcp = Object.hasOwn(mcp, member);
      if (inCli && !inMcp) out.push({ pointer: at, cli: shownValue(cli[member]) });
      else if (!inCli && inMcp) out.push({ pointer: at, mcp: shownValue(mcp[member]) });
      else compare(at, cli[member], mcp[member], out, member);
    }
    return;
  }
  if (Array.isArray(cli) && Array.isArray(mcp)) {
    // `required` lists names: a set, whatever order each side wrote it in.
    const asSet = key === "required" && [...cli, ...mcp].every((item) => typeof item === "string");
    const left = asSet ? [...cli].sort(byCodeUnit) : cli;
    const right = asSet ? [...mcp].sort(byCodeUnit) : mcp;
    if (left.length !== right.length || asSet) {
      if (!sameJson(left, right)) out.push(difference(pointer, cli, mcp));
      return;
    }
    left.forEach((item, index) => compare(`${pointer}/${index}`, item, right[index], out));
    return;
  }
  if (!sameJson(cli, mcp)) out.push(difference(pointer, cli, mcp));
}

function difference(pointer: string, cli: unknown, mcp: unknown): ToolDifference {
  return { pointer, cli: shownValue(cli), mcp: shownValue(mcp) };
}

/**
 * A value as a difference shows it: a copy down to {@linkcode SHOWN_DEPTH} levels, where a deeper object or
 * array is replaced by a string saying so.
 */
function shownValue(value: unknown, depth = 0): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth === SHOWN_DEPTH) {
    return `(${Array.isArray(value) ? "an array" : "an object"} nested deeper than ${SHOWN_DEPTH} levels)`;
  }
  if (Array.isArray(value)) return value.map((item) => shownValue(item, depth + 1));
  // fromEntries defines own members: a `__proto__` key from parsed JSON stays a member.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, shownValue(item, depth + 1)]),
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
  }
  return false;
}

// Code-unit order, the same on every runtime and locale (localeCompare is neither).
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function encodePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function decodePointerToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * Reads a saved tool list — what `toolwire mcp snapshot` writes, or any `tools/list` answer saved to a file —
 * from parsed JSON: an array of tools, an object with a `tools` array (a `tools/list` result), a JSON-RPC
 * response whose `result` is one, or a snapshot envelope whose `data` is one. Each tool must be an object
 * with a non-empty string `name`, unique in the list, and an object `inputSchema`. A result that still has a
 * `nextCursor` is only one page, so it is refused.
 *
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises";
 *
 * const read = readToolList(JSON.parse(await readFile("tools.json", "utf8")));
 * if ("problem" in read) throw new Error(read.problem);
 * read.tools.length; // 5
 * ```
 */
export function readToolList(value: unknown): { tools: ListedTool[] } | { problem: string } {
  const result = toolsResult(value);
  if (result === undefined) {
    return { problem: "expected an array of tools, or an object with a tools array (a tools/list result)" };
  }
  if (!Array.isArray(result.tools)) {
    return { problem: `tools must be an array, got ${jsonType(result.tools)}` };
  }
  if (result.nextCursor !== undefined) {
    return { problem: "the list is one page of a longer one (it has a nextCursor): save every page's tools" };
  }
  return checkTools(result.tools);
}

/**
 * Checks the tools of a list: objects with a non-empty string `name`, each name once, an object `inputSchema`.
 *
 * @example
 * ```ts
 * checkTools([{ name: "add", inputSchema: { type: "object" } }]); // { tools: [...] }
 * ```
 */
export function checkTools(tools: readonly unknown[]): { tools: ListedTool[] } | { problem: string } {
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || typeof tool.name !== "string" || tool.name === "") {
      return { problem: `tools[${index}] must be an object with a non-empty string name` };
    }
    if (seen.has(tool.name)) return { problem: `tools[${index}]: the tool '${tool.name}' is listed twice` };
    seen.add(tool.name);
    if (!isRecord(tool.inputSchema)) {
      return { problem: `tools[${index}] ('${tool.name}'): inputSchema must be an object` };
    }
  }
  return { tools: tools as ListedTool[] };
}

function toolsResult(value: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(value)) return { tools: value };
  if (!isRecord(value)) return undefined;
  if (Object.hasOwn(value, "tools")) return value;
  if (isRecord(value.result) && Object.hasOwn(value.result, "tools")) return value.result;
  if (value.ok === true && isRecord(value.data) && Object.hasOwn(value.data, "tools")) return value.data;
  return undefined;
}

function jsonType(value: unknown): string {
  return value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "object"
    ? "an object"
    : `a ${typeof value}`;
}
