import type { McpTool } from "../../protocol/mcp/tool_catalog.ts";
import type { FlagSpec } from "../contract/command_definition.ts";
import {
  checkJson,
  completeAbsentFlag,
  completePositionals,
  type InputIssue,
  quote,
} from "../input/input_values.ts";
import { COMMAND_FRAMEWORK_FLAGS } from "../contract/framework_flags.ts";
import { idempotencyKeyIssue } from "../run/idempotency_store.ts";
import type { CommandEntry, FlagEntry, PositionalEntry } from "../contract/manifest.ts";
import { embeddedOutputSchema, isPortableSchema } from "../contract/output_schema.ts";
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
 * A flag as a tool takes it. The framework's own flags keep the framework's type whatever a manifest says of
 * them (a foreign CLI may type `confirm-destructive` as a string): the server decides with them whether a
 * call is confirmed or only previewed, so `"no"` must be refused, never taken for a confirmation.
 */
function toolFlagSpec(flag: string, spec: FlagEntry): FlagEntry {
  // Own members only: a flag named `constructor` or `toString` is the command's own.
  if (!Object.hasOwn(COMMAND_FRAMEWORK_FLAGS, flag)) return spec;
  const { type } = COMMAND_FRAMEWORK_FLAGS[flag]!;
  return type === spec.type ? spec : { type, required: spec.required, description: spec.description };
}

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
    .filter(([path, entry]) => notServedReason(path, entry, filter) === undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Why an MCP server built from a manifest does not offer a command, or `undefined` when it does: the one
 * rule behind {@linkcode servedCommands}.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 *
 * declare const entry: CommandEntry; // danger_level: "destructive"
 * notServedReason("remove", entry, { readOnly: true }); // "the command is destructive and the list is read-only"
 * ```
 */
export function notServedReason(path: string, entry: CommandEntry, filter: ServeFilter): string | undefined {
  // The manifest marks protocol and passthrough commands mcp: false too; name the cause.
  if (path === "mcp.serve") return "mcp serve is the server itself, never one of its tools";
  if (entry.stdout === "protocol") return "the command is a protocol server";
  if (entry.arguments === "passthrough") return "the command passes its arguments through";
  if (entry.mcp === false) return "the command is marked mcp: false";
  if (filter.readOnly && entry.danger_level !== "safe") {
    return `the command is ${entry.danger_level} and the list is read-only`;
  }
  return undefined;
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
    properties[name] = flagSchema(toolFlagSpec(flag, spec));
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
 * value when the command declares none — or declares one a draft-07 validator would read otherwise than a
 * 2020-12 one ({@linkcode isPortableSchema}: the manifest's own schema, say), which a client compiling
 * strictly with draft-07 would refuse with the whole tool list. Only keywords draft-07 and 2020-12 share,
 * no `$schema`, and no subschema without a type, which schema linters (MCP Inspector `--strict`) flag as
 * constraining nothing.
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
      data: dataSchema === undefined || !isPortableSchema(dataSchema)
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

/** One `tools/call`'s arguments, checked against a command's entry and completed: what an executor receives. */
export interface CheckedArguments {
  /** The command's own flags the caller gave, by flag name, in the caller's order, type-checked. */
  given: Map<string, unknown>;
  /** Every own flag of the command, by flag name, with defaults applied. */
  flags: Record<string, unknown>;
  /** Positional values by name. */
  args: Record<string, unknown>;
  idempotencyKey?: string;
  dryRun: boolean;
  confirmed: boolean;
  /** Every problem, collected; the call may run only when there is none. */
  issues: InputIssue[];
}

/** What an argument name stands for: a positional, one of the command's own flags, or a framework option. */
const POSITIONAL = 0;
const OWN_FLAG = 1;
const IDEMPOTENCY_KEY = 2;
const DRY_RUN = 3;
const CONFIRM = 4;

interface ArgumentSlot {
  kind: number;
  /** The flag's name (kebab-case); a positional's name. */
  flag: string;
  /** Absent for a positional: {@linkcode completePositionals} checks those. */
  spec: FlagSpec | undefined;
  /** A positional's place among the command's positionals. */
  index: number;
}

interface OwnFlag {
  flag: string;
  spec: FlagSpec;
  /** How an issue names the flag: its argument name. */
  label: string;
}

const NO_POSITIONALS: readonly PositionalEntry[] = [];
const NO_VALUES: readonly unknown[] = [];
/** What every command without positionals gets (one frozen, shared record): asked for once, not per call. */
const NO_ARGUMENTS = completePositionals(NO_POSITIONALS, NO_VALUES, [], "json");
const positionalLabel = (name: string) => name;

/**
 * Checks MCP tool arguments against a command's manifest entry and completes them
 * (docs/contract.md#commands-as-mcp-tools): unknown arguments are refused (the `inputSchema` is closed), each
 * value is type-checked, framework arguments are taken apart, defaults, required flags and positionals are
 * applied. Everything that depends only on the command — what each name stands for, the own flags in order,
 * their labels — is prepared once per served command, so a call is one pass over its arguments and one over
 * the command's own flags, with no Map, result object or closure per argument. The names live in a
 * prototype-less object, so `__proto__` or `toString` is just an unknown argument.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 *
 * declare const entry: CommandEntry; // `add`, which takes --title and --tag
 * const checked = new ToolArgumentPlan(entry).check({ title: "x" });
 * checked.flags; // { title: "x", tag: [] }
 * ```
 */
export class ToolArgumentPlan {
  readonly #slots: Record<string, ArgumentSlot> = Object.create(null);
  readonly #ownFlags: OwnFlag[] = [];
  readonly #positionals: readonly PositionalEntry[];

  constructor(entry: CommandEntry) {
    for (const [flag, spec] of Object.entries(entry.flags)) {
      const framework = Object.hasOwn(COMMAND_FRAMEWORK_FLAGS, flag);
      if (!framework) this.#ownFlags.push({ flag, spec, label: argumentName(flag) });
      if (NOT_OFFERED.has(flag)) continue;
      const kind = !framework
        ? OWN_FLAG
        : flag === "idempotency-key"
        ? IDEMPOTENCY_KEY
        : flag === "dry-run"
        ? DRY_RUN
        : CONFIRM;
      this.#slots[argumentName(flag)] = { kind, flag, spec: toolFlagSpec(flag, spec), index: -1 };
    }
    this.#positionals = entry.positionals ?? NO_POSITIONALS;
    const named = new Set<string>();
    this.#positionals.forEach((positional, index) => {
      // A positional's name wins over a flag's argument name; the first of two positionals of one name.
      if (named.has(positional.name)) return;
      named.add(positional.name);
      this.#slots[positional.name] = { kind: POSITIONAL, flag: positional.name, spec: undefined, index };
    });
  }

  /** Checks and completes one call's arguments, collecting every problem. */
  check(args: Record<string, unknown>): CheckedArguments {
    const issues: InputIssue[] = [];
    const given = new Map<string, unknown>();
    const count = this.#positionals.length;
    const positionals = count === 0 ? NO_VALUES : new Array<unknown>(count).fill(undefined);
    let idempotencyKey: string | undefined;
    let dryRun = false;
    let confirmed = false;
    // for…in, not Object.keys: no array per call. Own names only, in the same order.
    for (const name in args) {
      if (!Object.hasOwn(args, name)) continue;
      const value = args[name];
      const slot = this.#slots[name];
      if (slot === undefined) {
        issues.push({ field: name, message: `unknown argument ${quote(name)}` });
        continue;
      }
      if (slot.kind === POSITIONAL) {
        (positionals as unknown[])[slot.index] = value;
        continue;
      }
      const accepted = checkJson(name, slot.spec!, value, issues);
      if (accepted === undefined) continue;
      if (slot.kind === OWN_FLAG) given.set(slot.flag, accepted);
      else if (slot.kind === IDEMPOTENCY_KEY) idempotencyKey = accepted as string;
      else if (slot.kind === DRY_RUN) dryRun = accepted === true;
      else confirmed = accepted === true;
    }
    const flags: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < this.#ownFlags.length; i++) {
      const own = this.#ownFlags[i]!;
      // checkJson never accepts `undefined`, so `undefined` here means not given.
      const value = given.get(own.flag);
      if (value !== undefined) flags[own.flag] = value;
      else completeAbsentFlag(flags, own.flag, own.spec, issues, own.label);
    }
    const completed = count === 0
      ? NO_ARGUMENTS
      : completePositionals(this.#positionals, positionals, issues, "json", positionalLabel);
    if (idempotencyKey !== undefined) {
      const keyIssue = idempotencyKeyIssue(idempotencyKey, "idempotency_key");
      if (keyIssue !== undefined) issues.push(keyIssue);
    }
    return { given, flags, args: completed, idempotencyKey, dryRun, confirmed, issues };
  }
}
