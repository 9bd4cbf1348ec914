/**
 * One open `tools/call` as the catalog sees it: its cancellation (an AbortSignal built only when read), and
 * its progress and log notifications, gated the way the wire rules say (docs/mcp_wire.md).
 * @module
 */
import { notification } from "../json_rpc.ts";
import { LOG_LEVELS, type LogLevel } from "./request_meta.ts";
import type { CallCancellation, ToolCallContext } from "./tool_catalog.ts";

/**
 * One call's cancellation. Most calls are never cancelled and never read their AbortSignal, and in Node 20
 * building one costs several µs (an EventTarget made with `setPrototypeOf`) — more than the rest of a small
 * call's bookkeeping. So the AbortController is made only when `signal` is read (or already aborted by
 * then), and listeners that only wait for the abort (the executor's deadline) are kept in a plain array.
 */
class CallAbort implements CallCancellation {
  #controller: AbortController | undefined;
  #listeners: Array<() => void> | undefined;
  aborted = false;
  reason: unknown = undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    // The reason AbortController.abort() gives when none is passed.
    this.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    this.#controller?.abort(this.reason);
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) listener();
  }

  addEventListener(_type: "abort", listener: () => void): void {
    // Like an aborted AbortSignal: a listener added after the abort never fires.
    if (!this.aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.#listeners!.splice(index, 1);
  }
}

/** Where a call's progress and log notifications go. */
export interface Notifier {
  /** The `logger` of `notifications/message`: the server's name. */
  logger: string;
  send(message: Record<string, unknown>): void;
}

/**
 * One open call: its {@linkcode ToolCallContext}, and whether it was cancelled or answered. A class, so
 * that `signal`, `progress` and `log` live once on the prototype — no closures per call, and one hidden
 * class in V8 (a getter written in an object literal gives every object its own).
 */
export class CallContext implements ToolCallContext {
  readonly era: ToolCallContext["era"];
  readonly clientCapabilities: Record<string, unknown>;
  readonly cancellation = new CallAbort();
  /** The client cancelled the call: nothing more is sent for its id (docs/mcp_wire.md#cancellation). */
  cancelled = false;
  /** The response is on its way: no progress or log may follow it (docs/mcp_wire.md#cancellation). */
  answered = false;
  readonly #progressToken: string | number | undefined;
  readonly #logLevel: LogLevel | undefined;
  readonly #notifier: Notifier;
  #lastProgress = -Infinity;

  constructor(
    era: ToolCallContext["era"],
    clientCapabilities: Record<string, unknown>,
    progressToken: string | number | undefined,
    logLevel: LogLevel | undefined,
    notifier: Notifier,
  ) {
    this.era = era;
    this.clientCapabilities = clientCapabilities;
    this.#progressToken = progressToken;
    this.#logLevel = logLevel;
    this.#notifier = notifier;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  progress(update: { progress: number; total?: number; message?: string }): void {
    // Only when asked for, increasing, and never after the response (docs/mcp_wire.md#progress).
    if (
      this.#progressToken === undefined || this.answered || this.cancelled ||
      !(update.progress > this.#lastProgress)
    ) return;
    this.#lastProgress = update.progress;
    this.#notifier.send(
      notification("notifications/progress", { progressToken: this.#progressToken, ...update }),
    );
  }

  log(level: LogLevel, data: unknown): void {
    const threshold = this.#logLevel;
    if (threshold === undefined || this.answered || this.cancelled) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)) return;
    this.#notifier.send(
      notification("notifications/message", { level, logger: this.#notifier.logger, data }),
    );
  }
}

/** The request's `_meta.progressToken`, when it is one: the client asked for progress. */
export function progressToken(params: Record<string, unknown> | undefined): string | number | undefined {
  const token = (params?._meta as Record<string, unknown> | undefined)?.progressToken;
  return typeof token === "string" || Number.isSafeInteger(token) ? token as string | number : undefined;
}
