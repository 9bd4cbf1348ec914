import { monotonicMs } from "../../runtime/mod.ts";
import type {
  McpTool,
  ToolCall,
  ToolCallContext,
  ToolCallOutcome,
  ToolCatalog,
} from "../../protocol/mcp/tool_catalog.ts";
import { makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import type { CommandEntry } from "../contract/manifest.ts";
import { ConfirmationStates, type StateProblem } from "./confirmation_state.ts";
import { StateStoreUnavailableError } from "../contract/state_store.ts";
import { argumentErrorEnvelope } from "../input/argument_error.ts";
import { needsConfirmation, previewDestructive } from "../run/destructive_preview.ts";
import { envelopeJson } from "../run/envelope_json.ts";
import {
  mcpTool,
  notServedReason,
  servedCommands,
  type ServeFilter,
  ToolArgumentPlan,
  toolName,
} from "./tool_mapping.ts";
import { isRecord } from "../../json.ts";
import { commandWords } from "../contract/command_words.ts";
import { callerManifest, MANIFEST_COMMAND, takeEtag } from "./caller_manifest.ts";

/** One validated tool call, as a catalog's executor receives it: nothing has run yet. */
export interface ValidatedCall {
  /** The command's dotted path. */
  path: string;
  /** The command's manifest entry. */
  entry: CommandEntry;
  /** The flags the caller gave, by flag name, type-checked; defaults not applied. */
  given: ReadonlyMap<string, unknown>;
  /** Every flag of the command's own, by flag name, with defaults applied. */
  flags: Record<string, unknown>;
  /** Positional values by name. */
  args: Record<string, unknown>;
  /** `idempotency_key`, for mutating commands. */
  idempotencyKey?: string;
  /** Preview only: change nothing. */
  dryRun: boolean;
  /** The caller confirmed a destructive action. */
  confirmed: boolean;
  /** A destructive call nobody confirmed, decided once, here: its executor previews it and runs nothing. */
  unconfirmed: boolean;
  /** The call's cancellation signal, progress and logging. */
  context: ToolCallContext;
}

/**
 * Runs one validated call to exactly one envelope: in-process, or as a child process. An envelope ready at
 * once (a synchronous handler's) is returned as it is, which saves the call a promise and its reaction.
 */
export type CallExecutor = (call: ValidatedCall) => ResponseEnvelope | Promise<ResponseEnvelope>;

/** Options of a {@linkcode ManifestCatalog}. */
export interface ManifestCatalogOptions {
  /**
   * Whether an idempotency key already holds a result. The executor then answers from its store (a replay
   * or a conflict) without running anything, so asking first would only preview today's state — NOT_FOUND
   * for the note the first call deleted — instead of replaying it. Absent: keys are never looked up here.
   */
  hasResult?(key: string): Promise<boolean>;
  /**
   * The signer and redeemer of confirmation states: one made with a fleet's shared secret and nonce store,
   * or one that must outlive this catalog (a bridged CLI's catalog is rebuilt when its manifest changes).
   * @default a new {@linkcode ConfirmationStates} with a key of this process
   */
  confirmations?: ConfirmationStates;
  /**
   * Rejects with a `StateStoreUnavailableError` when the store the instances of a fleet share cannot be
   * reached: a destructive call about to run is then refused (UNAVAILABLE, retryable) and nothing runs.
   * Absent: no store to check.
   */
  checkStore?(): Promise<void>;
}

interface ServedCommand {
  path: string;
  entry: CommandEntry;
  /** Made on the tool's first call. */
  arguments?: ToolArgumentPlan;
}

/** A manifest's commands by path, or what gives them on first use. */
export type CatalogCommands =
  | Readonly<Record<string, CommandEntry>>
  | (() => Readonly<Record<string, CommandEntry>>);

const CONFIRM_KEY = "confirm";

/**
 * The commands of a manifest as MCP tools (docs/contract.md#commands-as-mcp-tools), whatever runs them: the
 * tool list, the argument checks and the confirmation of destructive calls live here once; an executor runs a
 * validated call. Tools are the served commands (no `mcp: false`, protocol or passthrough command; `readOnly`
 * keeps safe ones); a call naming anything else is an unknown tool and nothing runs (REQ-C-032). Arguments
 * are checked against the entry before anything runs: a bad call is an isError ARG_ERROR envelope.
 * Destructive tools ask first: a modern client that declared `elicitation` gets an `input_required`
 * confirmation bound by a signed, single-use `requestState`; every other client gets the executor's dry-run
 * preview with CONFIRMATION_REQUIRED unless it passes `confirm_destructive: true`.
 *
 * @example
 * ```ts
 * import type { Manifest, ResponseEnvelope } from "@toolwire/toolwire";
 * import { serveMcp } from "@toolwire/toolwire/mcp";
 * import { processChannel } from "@toolwire/toolwire/framing";
 *
 * declare const manifest: Manifest;
 * declare function runIt(call: ValidatedCall): Promise<ResponseEnvelope>;
 * const catalog = new ManifestCatalog(manifest.commands, { readOnly: false }, (call) => runIt(call));
 * await serveMcp({ channel: processChannel() }, { serverInfo: { name: "tool", version: "1.0.0" }, catalog });
 * ```
 */
export class ManifestCatalog implements ToolCatalog {
  /** The manifest's commands until every served one is known. */
  #commands: CatalogCommands | undefined;
  readonly #filter: ServeFilter;
  /** The served commands known by tool name: those looked up so far, or all of them once listed. */
  readonly #served = new Map<string, ServedCommand>();
  #tools: McpTool[] | undefined;
  readonly #states: ConfirmationStates;
  readonly #execute: CallExecutor;
  readonly #options: ManifestCatalogOptions;

  /**
   * The catalog of a manifest's commands, each call run by `execute`. Given as a function, the commands are
   * asked for on the catalog's first use: a server's start then answers `initialize` without building them.
   * Given as a record, the tools are made here, and a manifest they cannot be made from throws here.
   */
  constructor(
    commands: CatalogCommands,
    filter: ServeFilter,
    execute: CallExecutor,
    options: ManifestCatalogOptions = {},
  ) {
    this.#commands = commands;
    this.#filter = filter;
    this.#states = options.confirmations ?? new ConfirmationStates();
    this.#execute = execute;
    this.#options = options;
    if (typeof commands !== "function") this.tools();
  }

  /**
   * The served command a tool stands for. Until the tool list is asked for, a call reads its own entry only:
   * a built-in's entry is built when it is first read, and the manifest's, whose output schema is the whole
   * manifest schema, is the costliest.
   */
  #lookup(name: string): ServedCommand | undefined {
    return this.#served.get(name) ?? (this.#commands === undefined ? undefined : this.#find(name));
  }

  #find(name: string): ServedCommand | undefined {
    const commands = this.#entries();
    const paths = Object.keys(commands).filter((path) => toolName(path) === name);
    // Two paths with one tool name: the one the tool list shows.
    if (paths.length !== 1) return this.#all().find((served) => toolName(served.path) === name);
    const path = paths[0]!;
    const entry = commands[path]!;
    if (notServedReason(path, entry, this.#filter) !== undefined) return undefined;
    const served = { path, entry };
    this.#served.set(name, served);
    return served;
  }

  /** Every served command, sorted by command path; each one looked up before is kept as it was. */
  #all(): ServedCommand[] {
    if (this.#commands !== undefined) {
      const all = new Map<string, ServedCommand>();
      for (const [path, entry] of servedCommands(this.#entries(), this.#filter)) {
        const known = this.#served.get(toolName(path));
        all.set(toolName(path), known?.path === path ? known : { path, entry });
      }
      this.#served.clear();
      for (const [name, served] of all) this.#served.set(name, served);
      this.#commands = undefined;
    }
    return [...this.#served.values()];
  }

  /** The manifest's commands, asked for once. */
  #entries(): Readonly<Record<string, CommandEntry>> {
    if (typeof this.#commands === "function") this.#commands = this.#commands();
    return this.#commands!;
  }

  /** The tools, sorted by command path. */
  tools(): readonly McpTool[] {
    return this.#tools ??= this.#all().map(({ path, entry }) => mcpTool(path, entry));
  }

  /** The command's `required_scopes`: what a caller's token must grant to see and call it (docs/auth.md). */
  requiredScopes(name: string): readonly string[] | undefined {
    return this.#lookup(name)?.entry.required_scopes;
  }

  /** Checks a call's arguments, confirms a destructive call, and runs it. */
  call(call: ToolCall, context: ToolCallContext): Promise<ToolCallOutcome> {
    const served = this.#lookup(call.name);
    if (served === undefined) return Promise.resolve({ kind: "unknown_tool" });
    const checked = (served.arguments ??= new ToolArgumentPlan(served.entry)).check(call.arguments);
    if (checked.issues.length > 0) {
      return Promise.resolve(result(argumentErrorEnvelope(checked.issues, monotonicMs())));
    }
    const key = checked.idempotencyKey;
    // An authenticated caller's manifest holds only what its scopes cover, as its tool list does.
    const narrowFor = served.path === MANIFEST_COMMAND ? context.caller : undefined;
    const held = narrowFor === undefined ? undefined : takeEtag(checked);

    const unconfirmed = needsConfirmation(served.entry.danger_level, checked);
    const run = (dryRun: boolean, confirmed: boolean) =>
      this.#execute({
        path: served.path,
        entry: served.entry,
        given: checked.given,
        flags: checked.flags,
        args: checked.args,
        idempotencyKey: key,
        dryRun,
        confirmed,
        unconfirmed: unconfirmed && !dryRun && !confirmed,
        context,
      });
    const mayAsk = unconfirmed && context.era === "modern" &&
      supportsFormElicitation(context.clientCapabilities);
    if (!mayAsk) {
      const forReal = served.entry.danger_level === "destructive" && !checked.dryRun && checked.confirmed;
      const ran = forReal
        ? this.#whenStoreIsUp(() => run(false, true))
        : run(checked.dryRun, checked.confirmed);
      const answered = narrowFor === undefined
        ? ran
        : Promise.resolve(ran).then((envelope) => callerManifest(envelope, narrowFor, held));
      return Promise.resolve(answered).then(result);
    }
    return this.#confirmFirst(served, call, key, run);
  }

  /** Runs a destructive call once the shared store answers, else refuses it with nothing run. */
  async #whenStoreIsUp(run: () => ResponseEnvelope | Promise<ResponseEnvelope>): Promise<ResponseEnvelope> {
    const startedAt = monotonicMs();
    try {
      await this.#options.checkStore?.();
    } catch (error) {
      if (!(error instanceof StateStoreUnavailableError)) throw error;
      return storeUnavailable(error, startedAt);
    }
    return await run();
  }

  /** A destructive call from a client that can answer a form: ask first (a signed `input_required`), then run. */
  async #confirmFirst(
    served: ServedCommand,
    call: ToolCall,
    key: string | undefined,
    run: (dryRun: boolean, confirmed: boolean) => ResponseEnvelope | Promise<ResponseEnvelope>,
  ): Promise<ToolCallOutcome> {
    const startedAt = monotonicMs();
    if (key !== undefined && await this.#options.hasResult?.(key) === true) {
      return result(await run(false, false));
    }
    if (call.requestState === undefined) {
      const preview = await previewDestructive(served.path, () => run(true, false), { startedAt });
      if (!preview.previewed) return result(preview.envelope);
      return {
        kind: "input_required",
        result: {
          inputRequests: {
            [CONFIRM_KEY]: {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: `${commandWords(served.path)} is destructive. Proceed? Preview: ${
                  JSON.stringify(preview.envelope.error?.preview)
                }`,
                requestedSchema: {
                  type: "object",
                  properties: {
                    confirm: {
                      type: "boolean",
                      title: "Proceed",
                      description: "true to carry out the action",
                    },
                  },
                  required: ["confirm"],
                },
              },
            },
          },
          requestState: await this.#states.issue(call.name, call.arguments),
        },
      };
    }
    // Redeeming uses the state up, answered or declined: it confirms one execution, whatever happens next.
    let problem: StateProblem | undefined;
    try {
      problem = await this.#states.redeem(call.requestState, call.name, call.arguments);
    } catch (error) {
      if (!(error instanceof StateStoreUnavailableError)) throw error;
      return result(storeUnavailable(error, startedAt));
    }
    if (problem !== undefined) {
      return result(refusal(stateMessage(problem), "CONFIRMATION_INVALID", startedAt));
    }
    if (!accepted(call.inputResponses)) {
      return result(
        refusal("the confirmation was declined; nothing was changed", "CONFIRMATION_DECLINED", startedAt),
      );
    }
    return result(await this.#whenStoreIsUp(() => run(false, true)));
  }
}

/** A command's envelope as an MCP tool result: `structuredContent` is the envelope, `content` its text. */
function result(envelope: ResponseEnvelope): ToolCallOutcome {
  const { text, failed } = envelopeJson(envelope);
  return { kind: "json_result", result: { json: text, isError: failed || envelope.meta.exit_code !== 0 } };
}

/**
 * Whether a client can answer the form-mode elicitation the confirmation asks. `elicitation: {}` means form
 * mode (the pre-URL-mode shape); `{url: {}}` alone means URL mode only, and such a client rejects a form
 * request outright, so it must get the CONFIRMATION_REQUIRED preview instead.
 */
function supportsFormElicitation(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities.elicitation;
  if (!isRecord(elicitation)) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

function accepted(responses: unknown): boolean {
  if (typeof responses !== "object" || responses === null || !Object.hasOwn(responses, CONFIRM_KEY)) {
    return false;
  }
  const answer = (responses as Record<string, unknown>)[CONFIRM_KEY] as {
    action?: unknown;
    content?: unknown;
  } | null;
  const content = answer?.content as Record<string, unknown> | undefined;
  return answer?.action === "accept" && typeof content === "object" && content !== null &&
    content.confirm === true;
}

function stateMessage(problem: StateProblem): string {
  switch (problem) {
    case "malformed":
      return "the requestState is not one this server issued; nothing was changed";
    case "tampered":
    case "spent":
      // One answer for both: a client cannot tell a used state from a forged one, nor learn which it sent.
      return "the requestState was altered or already used; nothing was changed";
    case "wrong_call":
      return "the requestState belongs to another call (other tool or arguments); nothing was changed";
    case "expired":
      return "the confirmation expired; call again to be asked anew. Nothing was changed";
  }
}

function refusal(message: string, code: string, startedAt: number): ResponseEnvelope {
  return makeEnvelope({
    exitCode: ExitCode.ARG_ERROR,
    error: {
      code,
      message,
      retryable: false,
      phase: "validation",
      suggestion: "call the tool again without requestState",
    },
    startedAt,
  });
}

/**
 * The shared store could not be reached: nothing ran, and a confirmation's state was not used up, so the
 * same call (with the same requestState and answer) may be sent again.
 */
function storeUnavailable(error: StateStoreUnavailableError, startedAt: number): ResponseEnvelope {
  return makeEnvelope({
    exitCode: ExitCode.UNAVAILABLE,
    error: {
      code: "STATE_STORE_UNAVAILABLE",
      message: `${error.message}; nothing was changed`,
      retryable: true,
      phase: "execution",
      suggestion: "send the same call again once the store is back",
    },
    startedAt,
  });
}
