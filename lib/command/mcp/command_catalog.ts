import type { ToolCall, ToolCallContext, ToolCallOutcome, ToolCatalog } from "../../protocol/mcp/mod.ts";
import { getEnv } from "../../runtime/mod.ts";
import type { CommandDefinition } from "../contract.ts";
import { makeEnvelope, type ResponseEnvelope } from "../envelope.ts";
import { executeCommand } from "../executor.ts";
import { ExitCode } from "../exit_code.ts";
import { IdempotencyStore, MAX_IDEMPOTENCY_KEY_LENGTH } from "../idempotency_store.ts";
import { completeFlags, completePositionals } from "../input_values.ts";
import type { Manifest } from "../manifest.ts";
import type { CommandRegistry } from "../registry.ts";
import { ConfirmationStates, type StateProblem } from "./confirmation_state.ts";
import { argumentErrorEnvelope, envelopeResult } from "./envelope_result.ts";
import { mcpTool, parseToolArguments, servedCommands, type ServeFilter } from "./tool_mapping.ts";

/** What the in-process catalog needs from its tool. */
export interface CatalogTool {
  registry: CommandRegistry;
  timeoutSeconds: number;
  stateDir(): string;
}

const CONFIRM_KEY = "confirm";

/**
 * The tool's own commands as MCP tools, run in-process through the same executor as the CLI (SPEC §2: one
 * path for an invocation). Destructive tools ask first: a modern client that declared `elicitation` gets
 * an `input_required` confirmation bound by a signed `requestState`; every other client gets the dry-run
 * preview with CONFIRMATION_REQUIRED unless it passes `confirm_destructive: true`.
 *
 * @example
 * ```ts
 * const catalog = await CommandCatalog.create(tool, manifest, { readOnly: false });
 * await serveMcp(io, { serverInfo, catalog });
 * ```
 */
export class CommandCatalog implements ToolCatalog {
  readonly #tool: CatalogTool;
  readonly #served: Map<string, { path: string; entry: Manifest["commands"][string] }>;
  readonly #tools: ReturnType<typeof mcpTool>[];
  readonly #states: ConfirmationStates;

  private constructor(tool: CatalogTool, manifest: Pick<Manifest, "commands">, filter: ServeFilter, states: ConfirmationStates) {
    this.#tool = tool;
    this.#states = states;
    const served = servedCommands(manifest.commands, filter);
    this.#tools = served.map(([path, entry]) => mcpTool(path, entry));
    this.#served = new Map(served.map(([path, entry], i) => [this.#tools[i]!.name, { path, entry }]));
  }

  /** Builds the catalog from the tool's manifest. */
  static async create(tool: CatalogTool, manifest: Pick<Manifest, "commands">, filter: ServeFilter): Promise<CommandCatalog> {
    return new CommandCatalog(tool, manifest, filter, await ConfirmationStates.create());
  }

  tools(): ReturnType<typeof mcpTool>[] {
    return this.#tools;
  }

  async call(call: ToolCall, context: ToolCallContext): Promise<ToolCallOutcome> {
    const served = this.#served.get(call.name);
    const definition = served === undefined ? undefined : this.#tool.registry.get(served.path)?.definition;
    // A command left out of the list is unknown here too, and nothing runs (REQ-C-032).
    if (served === undefined || definition === undefined || definition.stdout === "protocol") return { kind: "unknown_tool" };
    const startedAt = performance.now();
    const parsed = parseToolArguments(served.entry, call.arguments);
    const flags = completeFlags(definition.flags ?? {}, parsed.flags, parsed.issues, (name) => name.replaceAll("-", "_"));
    const args = completePositionals(definition.positionals ?? [], parsed.positionals, parsed.issues, "json", (name) => name);
    const key = parsed.idempotencyKey;
    if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
      parsed.issues.push({ field: "idempotency_key", message: `idempotency_key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` });
    }
    if (parsed.issues.length > 0) return result(argumentErrorEnvelope(parsed.issues, startedAt));

    let confirmed = parsed.confirmed;
    const asksFirst = definition.danger_level === "destructive" && !parsed.dryRun && !confirmed &&
      context.era === "modern" && typeof context.clientCapabilities.elicitation === "object";
    const run = (options: { dryRun: boolean; confirmed: boolean }) =>
      executeCommand({
        path: served.path,
        definition: definition as CommandDefinition,
        exitCodes: served.entry.exit_codes,
        input: { flags, args },
        ...(key === undefined ? {} : { idempotencyKey: key, store: new IdempotencyStore(this.#tool.stateDir()) }),
        ...options,
        timeoutMs: Math.round(((definition as CommandDefinition).timeout_seconds ?? this.#tool.timeoutSeconds) * 1000),
        signal: context.cancellation,
        env: getEnv,
        log: (message) => context.log("info", message),
        progress: (update) => context.progress(update),
      });

    if (asksFirst) {
      if (call.requestState === undefined) {
        const preview = await run({ dryRun: true, confirmed: false });
        if (!preview.ok) return result(preview);
        return {
          kind: "input_required",
          result: {
            inputRequests: {
              [CONFIRM_KEY]: {
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: `${served.path.replaceAll(".", " ")} is destructive. Proceed? Preview: ${JSON.stringify(preview.data)}`,
                  requestedSchema: {
                    type: "object",
                    properties: { confirm: { type: "boolean", title: "Proceed", description: "true to carry out the action" } },
                    required: ["confirm"],
                  },
                },
              },
            },
            requestState: await this.#states.issue(call.name, call.arguments),
          },
        };
      }
      const problem = await this.#states.check(call.requestState, call.name, call.arguments);
      if (problem !== undefined) return result(refusal(stateMessage(problem), "CONFIRMATION_INVALID", startedAt));
      if (!accepted(call.inputResponses)) {
        return result(refusal("the confirmation was declined; nothing was changed", "CONFIRMATION_DECLINED", startedAt));
      }
      confirmed = true;
    }
    return result(await run({ dryRun: parsed.dryRun, confirmed }));
  }
}

function result(envelope: ResponseEnvelope): ToolCallOutcome {
  return { kind: "result", result: envelopeResult(envelope) };
}

function accepted(responses: unknown): boolean {
  if (typeof responses !== "object" || responses === null || !Object.hasOwn(responses, CONFIRM_KEY)) return false;
  const answer = (responses as Record<string, unknown>)[CONFIRM_KEY] as { action?: unknown; content?: unknown } | null;
  const content = answer?.content as Record<string, unknown> | undefined;
  return answer?.action === "accept" && typeof content === "object" && content !== null && content.confirm === true;
}

function stateMessage(problem: StateProblem): string {
  switch (problem) {
    case "malformed":
      return "the requestState is not one this server issued; nothing was changed";
    case "tampered":
      return "the requestState was altered; nothing was changed";
    case "wrong_call":
      return "the requestState belongs to another call (other tool or arguments); nothing was changed";
    case "expired":
      return "the confirmation expired; call again to be asked anew. Nothing was changed";
  }
}

function refusal(message: string, code: string, startedAt: number): ResponseEnvelope {
  return makeEnvelope({
    exitCode: ExitCode.ARG_ERROR,
    error: { code, message, retryable: false, phase: "validation", suggestion: "call the tool again without requestState" },
    startedAt,
  });
}
