/**
 * One open `tools/call` as the catalog sees it: its cancellation, and its progress and log notifications,
 * gated the way the wire rules say (docs/mcp_wire.md).
 * @module
 */
import type { CancelScope } from "../cancel_scope.ts";
import { notification } from "../json_rpc.ts";
import type { McpCaller } from "./caller.ts";
import { LOG_LEVELS, type LogLevel } from "./request_meta.ts";
import type { ToolCallContext } from "./tool_catalog.ts";

/** Where a call's notifications go, and the `logger` they name: its session. */
export interface CallNotifier {
  readonly core: { readonly options: { readonly serverInfo: { readonly name: string } } };
  notify(message: Record<string, unknown>): void;
}

/**
 * What one open call is made of.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * declare const session: CallNotifier;
 * const options: CallContextOptions = {
 *   era: "modern",
 *   clientCapabilities: {},
 *   progressToken: "token-1",
 *   session,
 *   cancellation: new CancelScope(),
 * };
 * ```
 */
export interface CallContextOptions {
  era: ToolCallContext["era"];
  clientCapabilities: Record<string, unknown>;
  /** The request's `_meta.progressToken`: the client asked for progress. */
  progressToken?: string | number | undefined;
  /** The level the client opted in to for log notifications; absent: none. */
  logLevel?: LogLevel | undefined;
  /** Where the notifications go. */
  session: CallNotifier;
  cancellation: CancelScope;
  caller?: McpCaller | undefined;
}

/**
 * One open call: its {@linkcode ToolCallContext}, and whether it was answered. A class, so that `signal`,
 * `progress` and `log` live once on the prototype.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../cancel_scope.ts";
 *
 * const session: CallNotifier = {
 *   core: { options: { serverInfo: { name: "notes" } } },
 *   notify: (message) => console.log(JSON.stringify(message)),
 * };
 * const context = new CallContext({
 *   era: "modern",
 *   clientCapabilities: {},
 *   progressToken: "token-1",
 *   session,
 *   cancellation: new CancelScope(),
 * });
 * context.progress({ progress: 1, total: 2 });
 * ```
 */
export class CallContext implements ToolCallContext {
  readonly era: ToolCallContext["era"];
  readonly clientCapabilities: Record<string, unknown>;
  readonly cancellation: CancelScope;
  readonly caller: McpCaller | undefined;
  /** The response is on its way: no progress or log may follow it (docs/mcp_wire.md#cancellation). */
  answered = false;
  readonly #progressToken: string | number | undefined;
  readonly #logLevel: LogLevel | undefined;
  readonly #session: CallNotifier;
  #lastProgress = -Infinity;

  constructor(options: CallContextOptions) {
    this.era = options.era;
    this.clientCapabilities = options.clientCapabilities;
    this.#progressToken = options.progressToken;
    this.#logLevel = options.logLevel;
    this.#session = options.session;
    this.cancellation = options.cancellation;
    this.caller = options.caller;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  progress(update: { progress: number; total?: number; message?: string }): void {
    // Only when asked for, increasing, and never after the response or a cancellation (docs/mcp_wire.md#progress).
    if (
      this.#progressToken === undefined || this.answered || this.cancellation.aborted ||
      !(update.progress > this.#lastProgress)
    ) return;
    this.#lastProgress = update.progress;
    this.#session.notify(
      notification("notifications/progress", { progressToken: this.#progressToken, ...update }),
    );
  }

  log(level: LogLevel, data: unknown): void {
    const threshold = this.#logLevel;
    if (threshold === undefined || this.answered || this.cancellation.aborted) return;
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)) return;
    this.#session.notify(
      notification("notifications/message", {
        level,
        logger: this.#session.core.options.serverInfo.name,
        data,
      }),
    );
  }
}

/** The request's `_meta.progressToken`, when it is one: the client asked for progress. */
export function progressToken(params: Record<string, unknown> | undefined): string | number | undefined {
  const token = (params?._meta as Record<string, unknown> | undefined)?.progressToken;
  return typeof token === "string" || Number.isSafeInteger(token) ? token as string | number : undefined;
}
