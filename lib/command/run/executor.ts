import { FileLockTimeoutError, monotonicMs } from "../../runtime/mod.ts";
import { CommandError } from "../contract/command_error.ts";
import { Cancellation } from "./cancellation.ts";
import { cancelledError, timeoutError } from "./framework_errors.ts";
import type { CancelSignal } from "../../protocol/cancel_scope.ts";
import { runWithDeadline, type Settled } from "./deadline.ts";
import { whenReady } from "../../when_ready.ts";
import { HandlerContext } from "./handler_context.ts";
import type { CommandContext, CommandDefinition, ProgressUpdate } from "../contract/command_definition.ts";
import { type ErrorDetail, makeEnvelope, type ResponseEnvelope, type Warning } from "../contract/envelope.ts";
import { ExitCode, type ExitCodeTable } from "../../exit_code.ts";
import { callFingerprint } from "./idempotency_store.ts";
import { type IdempotencyKeys, KeyInProgressError, type KeySlot } from "./idempotency_record.ts";
import { StateStoreUnavailableError } from "../contract/state_store.ts";
import type { CommandInput } from "../input/input_values.ts";
import { errorMessage, failureOf } from "./thrown_error.ts";
import { previewDestructive } from "./destructive_preview.ts";
import { isRecord } from "../../json.ts";
import type { McpCaller } from "../../protocol/mcp/caller.ts";
import { commandWords } from "../contract/command_words.ts";

/** Everything one invocation needs, whatever it came from (argv or an MCP `tools/call`). */
export interface Invocation {
  /** The command's dotted path. */
  path: string;
  /** The command. */
  definition: CommandDefinition;
  /** The command's full exit-code table (declared plus framework codes). */
  exitCodes: ExitCodeTable;
  /** Validated input. */
  input: CommandInput;
  /** `--idempotency-key` / `idempotency_key`. */
  idempotencyKey?: string;
  /** The store behind idempotency keys: the tool's state directory, or one its instances share. */
  store?: IdempotencyKeys;
  /** Destructive commands: preview only. */
  dryRun?: boolean;
  /**
   * A destructive invocation nobody confirmed (decided once, by whoever took the call: the CLI or the MCP
   * catalog): its dry run is the preview of CONFIRMATION_REQUIRED, and it never runs for real.
   */
  unconfirmed?: boolean;
  /** Milliseconds before TIMEOUT; 0 = none. */
  timeoutMs: number;
  /** Cancellation from outside (an AbortSignal or a `CancelScope`); its `reason` should be a {@linkcode Cancellation}. */
  signal?: CancelSignal;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** Writes a diagnostic line for people. */
  log(message: string): void;
  /** Reports progress. */
  progress(update: ProgressUpdate): void;
  /** The authenticated MCP caller, handed to the handler's context. */
  caller?: McpCaller;
}

type Outcome = Settled<unknown>;

/**
 * Runs one command invocation to exactly one envelope: idempotency replay, confirmation of destructive
 * commands, the handler under a hard deadline and outside cancellation, and the mapping of every outcome to a
 * declared exit code. This is the single path argv and MCP share, so a command behaves the same from either.
 * A handler that returns a plain value (no promise) is answered with the envelope itself, not a promise of it.
 *
 * @example
 * ```ts
 * import type { CommandDefinition, ExitCodeTable } from "@toolwire/toolwire";
 *
 * declare const definition: CommandDefinition;
 * declare const exitCodes: ExitCodeTable; // declared plus framework codes
 * const envelope = await executeCommand({
 *   path: "add",
 *   definition,
 *   exitCodes,
 *   input: { flags: { title: "milk" }, args: {} },
 *   timeoutMs: 60_000,
 *   env: () => undefined,
 *   log: (message) => console.error(message),
 *   progress: () => {},
 * });
 * envelope.meta.exit_code; // 0 when the handler returned
 * ```
 */
export function executeCommand(invocation: Invocation): ResponseEnvelope | Promise<ResponseEnvelope> {
  const execution = new Execution(invocation);
  // A key that already holds a result is answered before confirmation: a replay or a conflict runs nothing,
  // so there is nothing to confirm, and a preview of today's state (say NOT_FOUND for the note the first
  // call deleted) would misreport a retry.
  const key = invocation.dryRun ? undefined : invocation.idempotencyKey;
  if (key !== undefined && invocation.store !== undefined) {
    return executeWithKey(execution, key, invocation.store);
  }
  if (invocation.unconfirmed === true) return previewUnconfirmed(execution);
  // The common case, one step after the handler: this runs for every MCP call.
  return handlerEnvelope(execution, invocation.dryRun === true, execution.meta);
}

/** One invocation on its way to its envelope: when it started, and what the envelope collects meanwhile. */
class Execution {
  readonly invocation: Invocation;
  readonly startedAt = monotonicMs();
  readonly warnings: Warning[] = [];
  readonly meta: Record<string, unknown>;

  constructor(invocation: Invocation) {
    this.invocation = invocation;
    this.meta = { timeout_ms: invocation.timeoutMs };
  }

  finish(exitCode: number, data: unknown, error: ErrorDetail | null): ResponseEnvelope {
    return makeEnvelope({
      exitCode,
      data,
      error,
      warnings: this.warnings,
      startedAt: this.startedAt,
      meta: this.meta,
    });
  }
}

/**
 * A call with an idempotency key: the key is locked (waiting for a concurrent call with the same key),
 * answered from its record when it has one, else reserved before the handler runs and recorded after — so
 * a handler runs at most once per key, and a crash between the change and the record leaves a reservation
 * that tells the retry the outcome is unknown instead of running again (docs/idempotency.md).
 */
async function executeWithKey(
  execution: Execution,
  key: string,
  store: IdempotencyKeys,
): Promise<ResponseEnvelope> {
  const { invocation } = execution;
  const fingerprint = await callFingerprint(invocation.path, invocation.input);
  await store.sweep();
  try {
    return await store.withKey(key, (slot) => answerWithKey(execution, key, fingerprint, slot), {
      signal: invocation.signal,
      timeoutMs: invocation.timeoutMs > 0 ? invocation.timeoutMs : undefined,
    });
  } catch (error) {
    // Only taking the key can fail here: answerWithKey turns every later failure into its envelope.
    return keyUnavailable(execution, key, error);
  }
}

async function answerWithKey(
  execution: Execution,
  key: string,
  fingerprint: string,
  slot: KeySlot,
): Promise<ResponseEnvelope> {
  const { invocation, meta } = execution;
  const { state } = slot;
  if (state.kind === "done" && state.result.fingerprint === fingerprint) {
    meta.idempotency_hit = true;
    return execution.finish(ExitCode.SUCCESS, replayed(state.result.data), null);
  }
  if (state.kind !== "free") {
    const other = state.kind === "done" ? state.result.fingerprint : state.fingerprint;
    if (other !== undefined && other !== fingerprint) {
      return execution.finish(ExitCode.CONFLICT, null, {
        code: "IDEMPOTENCY_CONFLICT",
        message: `idempotency key '${key}' was already used with other arguments; nothing was done`,
        retryable: false,
        phase: "validation",
        suggestion: "use a new idempotency key for a different call",
      });
    }
    return execution.finish(ExitCode.CONFLICT, null, {
      code: "IDEMPOTENCY_OUTCOME_UNKNOWN",
      message: `an earlier call with idempotency key '${key}' ended without recording its result ` +
        `(it crashed, timed out, or failed part way); whether it took effect is unknown; nothing was done now`,
      retryable: false,
      phase: "execution",
      suggestion: "check whether the change happened; if not, repeat the call with a new idempotency key",
      ...(state.kind === "unknown" && state.reserved_at !== undefined
        ? { context: { reserved_at: state.reserved_at } }
        : {}),
    });
  }
  if (invocation.unconfirmed === true) return await previewUnconfirmed(execution);

  try {
    await slot.reserve(fingerprint, invocation.path);
  } catch (error) {
    return keyUnavailable(execution, key, error);
  }
  const outcome = await runHandler(execution, false, meta);
  if (outcome.kind === "data") {
    try {
      await slot.complete(outcome.data ?? null);
    } catch (error) {
      // The change happened: report it. The reservation stays, so a retry hears "outcome unknown", not a rerun.
      execution.warnings.push({
        code: "IDEMPOTENCY_NOT_RECORDED",
        message: `the result could not be recorded for idempotency key '${key}' (${errorMessage(error)}); ` +
          `a retry with this key will report IDEMPOTENCY_OUTCOME_UNKNOWN instead of replaying it`,
      });
    }
    return outcomeEnvelope(execution, outcome);
  }
  const envelope = outcomeEnvelope(execution, outcome);
  // A failure that declares no side effects changed nothing: free the key so that a retry runs.
  if (invocation.exitCodes[String(envelope.meta.exit_code)]?.side_effects === "none") {
    await slot.abandon().catch((error) =>
      envelope.warnings.push({
        code: "IDEMPOTENCY_NOT_RELEASED",
        message:
          `the reservation of idempotency key '${key}' could not be removed (${errorMessage(error)}); ` +
          `a retry with this key will report IDEMPOTENCY_OUTCOME_UNKNOWN`,
      })
    );
  }
  return envelope;
}

/** The key could not be taken or reserved: another call still holds it, the caller gave up, or the store failed. */
function keyUnavailable(execution: Execution, key: string, error: unknown): ResponseEnvelope {
  const { invocation } = execution;
  if (invocation.signal?.aborted) {
    const cancellation = Cancellation.of(invocation.signal.reason);
    return execution.finish(cancellation.exitCode, null, cancelledError(cancellation));
  }
  if (error instanceof StateStoreUnavailableError) {
    return execution.finish(ExitCode.UNAVAILABLE, null, {
      code: "STATE_STORE_UNAVAILABLE",
      message: `the shared state store cannot be reached (${errorMessage(error)}); nothing was done`,
      retryable: true,
      phase: "execution",
      suggestion: "retry with the same idempotency key once the store is back",
    });
  }
  if (error instanceof FileLockTimeoutError || error instanceof KeyInProgressError) {
    return execution.finish(ExitCode.UNAVAILABLE, null, {
      code: "IDEMPOTENCY_IN_PROGRESS",
      message:
        `another call with idempotency key '${key}' is still running after ${
          invocation.timeoutMs / 1000
        } s; ` +
        `nothing was done`,
      retryable: true,
      phase: "execution",
      suggestion: "retry later with the same key: it replays the other call's result once that call finishes",
    });
  }
  return execution.finish(ExitCode.PRECONDITION, null, {
    code: "IDEMPOTENCY_STORE_UNAVAILABLE",
    message: `the idempotency store cannot be used (${errorMessage(error)}); nothing was done`,
    retryable: false,
    phase: "execution",
    suggestion: "make the tool's state directory writable (or free disk space), then retry with the same key",
  });
}

/** A destructive invocation nobody confirmed: the dry run's result as the preview of CONFIRMATION_REQUIRED. */
async function previewUnconfirmed(execution: Execution): Promise<ResponseEnvelope> {
  // The dry run's meta is its own: what the handler notes while previewing does not reach the refusal.
  const dryRun = () => handlerEnvelope(execution, true, {});
  const { startedAt, meta } = execution;
  return (await previewDestructive(execution.invocation.path, dryRun, { startedAt, meta })).envelope;
}

function replayed(data: unknown): unknown {
  if (isRecord(data)) return { ...data, effect: "noop" };
  return data;
}

/** The handler's envelope; a handler that returned a plain value is answered without a reaction in between. */
function handlerEnvelope(
  execution: Execution,
  dryRun: boolean,
  meta: Record<string, unknown>,
): ResponseEnvelope | Promise<ResponseEnvelope> {
  return whenReady(runHandler(execution, dryRun, meta), (outcome) => outcomeEnvelope(execution, outcome));
}

function outcomeEnvelope(execution: Execution, outcome: Outcome): ResponseEnvelope {
  // Undefined data becomes null in the envelope.
  if (outcome.kind === "data") return execution.finish(ExitCode.SUCCESS, outcome.data, null);
  return failureEnvelope(execution, outcome);
}

/**
 * The envelope of a handler that did not return: the rare cases apart from {@linkcode outcomeEnvelope}, which
 * every call runs (docs/performance.md#code-shapes).
 */
function failureEnvelope(
  execution: Execution,
  outcome: Exclude<Outcome, { kind: "data" }>,
): ResponseEnvelope {
  const { invocation } = execution;
  switch (outcome.kind) {
    case "timeout": {
      const message = `${commandWords(invocation.path)} exceeded its time limit of ${
        invocation.timeoutMs / 1000
      } s`;
      const suggestion = "raise --timeout (0 = no limit) or narrow the request";
      return execution.finish(
        ExitCode.TIMEOUT,
        null,
        timeoutError(invocation.exitCodes, message, suggestion),
      );
    }
    case "cancelled":
      return execution.finish(outcome.cancellation.exitCode, null, cancelledError(outcome.cancellation));
    case "error":
      return errorEnvelope(execution, outcome.error);
  }
}

function errorEnvelope(execution: Execution, error: unknown): ResponseEnvelope {
  const { invocation } = execution;
  const failure = failureOf(error, {
    path: invocation.path,
    exitCodes: invocation.exitCodes,
    unexpected: "unexpected error",
  });
  if (!(error instanceof CommandError)) {
    invocation.log(`${invocation.path}: ${failure.stack ?? failure.error.message}`);
  }
  execution.warnings.push(...failure.warnings);
  return execution.finish(failure.exitCode, failure.data, failure.error);
}

function runHandler(
  execution: Execution,
  dryRun: boolean,
  meta: Record<string, unknown>,
): Settled<unknown> | Promise<Settled<unknown>> {
  const { invocation, warnings } = execution;
  return runWithDeadline(
    (scope) => {
      const context: CommandContext = new HandlerContext({
        input: invocation.input,
        dryRun,
        env: invocation.env,
        log: invocation.log,
        warn: (warning: Warning) => warnings.push(warning),
        progress: invocation.progress,
        meta,
        scope,
        caller: invocation.caller,
      });
      const returned = invocation.definition.run(context);
      return whenReady(returned, (data) => handlerData(invocation.path, data));
    },
    invocation.timeoutMs,
    invocation.signal,
  );
}

/**
 * What a handler returned, as the envelope's `data`: its type lets a handler return any object (interfaces
 * have no index signature), so the JSON shape is checked here, before an idempotency record or an envelope
 * holds it. Throws a TypeError, which ends the call as GENERAL_ERROR, when JSON would not make it an
 * object, an array or null.
 */
function handlerData(path: string, data: unknown): unknown {
  if (data === undefined || data === null || Array.isArray(data)) return data;
  if (typeof data === "object") {
    const toJSON = (data as { toJSON?: unknown }).toJSON;
    const json: unknown = typeof toJSON === "function" ? toJSON.call(data, "") : data;
    if (typeof json === "object") return data;
    throw new TypeError(
      `${commandWords(path)} returned ${kindOf(data)} as its data, which JSON turns into ${kindOf(json)}; ` +
        `a handler returns a JSON object, an array, or nothing`,
    );
  }
  throw new TypeError(
    `${commandWords(path)} returned ${kindOf(data)} as its data; ` +
      `a handler returns a JSON object, an array, or nothing`,
  );
}

function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `a ${name}` : "an object";
}
