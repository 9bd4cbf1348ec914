import type { McpTool } from "../../protocol/mcp/tool_catalog.ts";
import type { FlagSpec } from "../contract/contract.ts";
import { coerceJson, type InputIssue, quote } from "../cli/input_values.ts";
import type { CommandEntry, FlagEntry, PositionalEntry } from "../contract/manifest.ts";
import { embeddedOutputSchema } from "../contract/output_schema.ts";
import { commandWords } from "../contract/command_words.ts";

/** The framework flags that become MCP arguments, by flag name → argument name. */
const FRAMEWORK_ARGUMENTS: ReadonlyMap<string, string> = new Map([
  ["idempotency-key", "idempotency_key"],
  ["dry-run", "dry_run"],
  ["confirm-destructive", "confirm_destructive"],
]);

/** `--output` writes a file on the server's machine: never offered over MCP. */
const NOT_OFFERED = new Set(["output"]);

/**
 * The MCP tool name of a command path: dots become underscores (`notes.add` → `notes_add`), which keeps
 * names inside the `[A-Za-z0-9_-]` set every client accepts.
 *
 * @example
 * ```ts
 * toolName("db.migrate"); // "db_migrate"
 * ```
 */
export function toolName(path: string): string {
  return path.replaceAll(".", "_");
}

/**
 * The MCP argument name of a flag: kebab-case becomes snake_case (`--read-only` → `read_only`).
 *
 * @example
 * ```ts
 * argumentName("idempotency-key"); // "idempotency_key"
 * ```
 */
export function argumentName(flag: string): string {
  return FRAMEWORK_ARGUMENTS.get(flag) ?? flag.replaceAll("-", "_");
}

/** Whether a manifest entry may be offered as an MCP tool. */
export interface ServeFilter {
  /** Keep only `safe` commands (`mcp serve --read-only`). */
  readOnly: boolean;
}

/**
 * The commands an MCP server built from a manifest offers (docs/contract.md#commands-as-mcp-tools): every
 * command except `mcp.serve` itself, commands marked `mcp: false`, protocol commands and passthrough
 * commands; with `readOnly`, only safe ones. Sorted by path, so `tools/list` is deterministic.
 *
 * @example
 * ```ts
 * import type { Manifest } from "@toolwire/toolwire";
 *
 * declare const manifest: Manifest; // the notes example's
 * servedCommands(manifest.commands, { readOnly: true }).map(([path]) => path); // ["list", "manifest", "show"]
 * ```
 */
export function servedCommands(
  commands: Readonly<Record<string, CommandEntry>>,
  filter: ServeFilter,
): Array<[path: string, entry: CommandEntry]> {
  return Object.entries(commands)
    .filter(([path, entry]) =>
      path !== "mcp.serve" && entry.mcp !== false && entry.stdout !== "protocol" &&
      entry.arguments !== "passthrough" &&
      (!filter.readOnly || entry.danger_level === "safe")
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What a destructive tool's description tells the model. Legacy-era clients are never asked, even when they
 * declared `elicitation`: there it is a request from server to client, which this server never sends.
 */
const DESTRUCTIVE_NOTE =
  "Destructive: unless confirm_destructive is true, a call changes nothing and returns a preview " +
  "(error CONFIRMATION_REQUIRED); review it, then call again with confirm_destructive: true. Clients of the 2026-07-28 " +
  "protocol that support elicitation are asked to confirm instead.";

/**
 * The MCP tool for a command (docs/contract.md#commands-as-mcp-tools): a closed `inputSchema` from flags and
 * positionals, annotations from the danger level (with an explicit `destructiveHint: false` where MCP's
 * default would say destructive), and an `outputSchema` that is the envelope schema with `data` from the
 * command's `output_schema`.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 *
 * declare const entry: CommandEntry; // a mutating `add`
 * const tool = mcpTool("add", entry);
 * tool.annotations?.destructiveHint; // false
 * ```
 */
export function mcpTool(path: string, entry: CommandEntry): McpTool {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [flag, spec] of Object.entries(entry.flags)) {
    if (NOT_OFFERED.has(flag)) continue;
    const name = argumentName(flag);
    properties[name] = flagSchema(spec);
    if (spec.required) required.push(name);
  }
  for (const positional of entry.positionals ?? []) {
    properties[positional.name] = positionalSchema(positional);
    if (positional.required) required.push(positional.name);
  }
  const destructive = entry.danger_level === "destructive";
  return {
    name: toolName(path),
    title: commandWords(path),
    description: destructive
      ? `${entry.description.replace(/\.$/, "")}. ${DESTRUCTIVE_NOTE}`
      : entry.description,
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    outputSchema: envelopeOutputSchema(entry.output_schema),
    annotations: {
      title: commandWords(path),
      readOnlyHint: entry.danger_level === "safe",
      destructiveHint: destructive,
      idempotentHint: entry.idempotent ?? entry.danger_level === "safe",
      openWorldHint: entry.has_network_io ?? false,
    },
  };
}

function positionalSchema(positional: PositionalEntry): Record<string, unknown> {
  if (positional.variadic !== true) return { type: positional.type, description: positional.description };
  // A variadic positional takes the rest of the command line: over MCP, one array of its type.
  return {
    type: "array",
    items: { type: positional.type },
    ...(positional.required ? { minItems: 1 } : {}),
    description: positional.description,
  };
}

function flagSchema(spec: FlagEntry): Record<string, unknown> {
  const schema: Record<string, unknown> = { description: spec.description };
  switch (spec.type) {
    case "array":
      schema.type = "array";
      schema.items = { type: "string" };
      break;
    case "enum":
      schema.type = "string";
      schema.enum = [...(spec.enum_values ?? [])];
      break;
    default:
      schema.type = spec.type;
  }
  if (spec.default !== undefined) schema.default = spec.default;
  return schema;
}

/** `data` of a command that declares no `output_schema`: any JSON value, spelled so every client can read it. */
const JSON_TYPES = ["object", "array", "string", "number", "boolean", "null"] as const;

/**
 * The JSON Schema of a command's envelope as an MCP `outputSchema`: every tool result's `structuredContent`
 * is the envelope, success or failure, so it always validates (the v1 SDK client validates even
 * `isError` results). `data` is the command's `output_schema` or `null` (a failure's `data`), or any JSON
 * value when the command declares none. Only keywords draft-07 and 2020-12 share, no `$schema`, and no
 * subschema without a type, which schema linters (MCP Inspector `--strict`) flag as constraining nothing.
 *
 * @example
 * ```ts
 * envelopeOutputSchema({ type: "object" }).required; // ["ok", "data", "error", "warnings", "meta"]
 * ```
 */
export function envelopeOutputSchema(dataSchema?: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      ok: { type: "boolean" },
      data: dataSchema === undefined
        ? { anyOf: JSON_TYPES.map((type) => ({ type })) }
        : { anyOf: [embeddedOutputSchema(dataSchema), { type: "null" }] },
      error: {
        anyOf: [
          { type: "null" },
          {
            type: "object",
            properties: {
              code: { type: "string" },
              message: { type: "string" },
              retryable: { type: "boolean" },
            },
            required: ["code", "message", "retryable"],
          },
        ],
      },
      warnings: { type: "array", items: { type: "object" } },
      meta: {
        type: "object",
        properties: { exit_code: { type: "integer" }, duration_ms: { type: "integer" } },
        required: ["exit_code", "duration_ms"],
      },
    },
    required: ["ok", "data", "error", "warnings", "meta"],
    additionalProperties: false,
  };
}

/** MCP tool arguments, checked against a command's entry and sorted into flags, positionals and framework options. */
export interface ToolArguments {
  /** The command's own flags, by flag name, type-checked. */
  flags: Map<string, unknown>;
  /** Positional values in declaration order (`undefined` where absent). */
  positionals: unknown[];
  idempotencyKey?: string;
  dryRun: boolean;
  confirmed: boolean;
  /** Every problem, collected. */
  issues: InputIssue[];
}

/**
 * Checks MCP tool arguments against a command's manifest entry: unknown arguments are refused (the
 * `inputSchema` is closed), each value is type-checked, framework arguments are taken apart. Own-property
 * lookups only, so a `__proto__` key is just an unknown argument. Built once per served command, so a call
 * only looks names up.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 *
 * declare const entry: CommandEntry; // `add`, which takes --title and --tag
 * const parsed = new ToolArgumentParser(entry).parse({ title: "x", tag: ["a"] });
 * parsed.flags.get("title"); // "x"
 * ```
 */
export class ToolArgumentParser {
  readonly #flags = new Map<string, [flag: string, spec: FlagSpec]>();
  readonly #positionals = new Map<string, number>();
  readonly #positionalCount: number;

  constructor(entry: CommandEntry) {
    for (const [flag, spec] of Object.entries(entry.flags)) {
      if (!NOT_OFFERED.has(flag)) this.#flags.set(argumentName(flag), [flag, spec]);
    }
    const positionals = entry.positionals ?? [];
    positionals.forEach((positional, index) => {
      if (!this.#positionals.has(positional.name)) this.#positionals.set(positional.name, index);
    });
    this.#positionalCount = positionals.length;
  }

  /** Sorts one call's arguments, collecting every problem. */
  parse(args: Record<string, unknown>): ToolArguments {
    const result: ToolArguments = {
      flags: new Map(),
      positionals: new Array(this.#positionalCount).fill(undefined),
      dryRun: false,
      confirmed: false,
      issues: [],
    };
    for (const key of Object.keys(args)) {
      const value = args[key];
      const index = this.#positionals.get(key);
      if (index !== undefined) {
        result.positionals[index] = value;
        continue;
      }
      const known = this.#flags.get(key);
      if (known === undefined) {
        result.issues.push({ field: key, message: `unknown argument ${quote(key)}` });
        continue;
      }
      // Indexed, not destructured: array destructuring runs the iterator protocol in V8's baseline tiers.
      const flag = known[0];
      const spec = known[1];
      const coerced = coerceJson(key, spec, value);
      if ("issue" in coerced) {
        result.issues.push(coerced.issue);
        continue;
      }
      if (flag === "idempotency-key") result.idempotencyKey = coerced.value as string;
      else if (flag === "dry-run") result.dryRun = coerced.value as boolean;
      else if (flag === "confirm-destructive") result.confirmed = coerced.value as boolean;
      else result.flags.set(flag, coerced.value);
    }
    return result;
  }
}
