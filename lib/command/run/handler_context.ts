import type { CancelScope } from "../../protocol/cancel_scope.ts";
import type { CommandContext } from "../contract/command_definition.ts";
import type { CommandInput } from "../input/input_values.ts";
import type { McpCaller } from "../../protocol/mcp/caller.ts";

/**
 * What a handler's context is made of.
 *
 * @example
 * ```ts
 * import { CancelScope } from "../../protocol/cancel_scope.ts";
 *
 * const parts: HandlerContextParts = {
 *   input: { flags: {}, args: {} },
 *   dryRun: false,
 *   env: () => undefined,
 *   log: (message) => console.error(message),
 *   warn: () => {},
 *   progress: () => {},
 *   meta: {},
 *   scope: new CancelScope(),
 * };
 * ```
 */
export interface HandlerContextParts {
  /** The validated flags and positionals. */
  input: CommandInput;
  dryRun: boolean;
  env: CommandContext["env"];
  log: CommandContext["log"];
  warn: CommandContext["warn"];
  progress: CommandContext["progress"];
  /** The envelope's `meta`, which the handler may add to. */
  meta: Record<string, unknown>;
  /** The invocation's cancellation: timeout, signal, or the MCP client. */
  scope: CancelScope;
  /** The authenticated MCP caller, when there is one. */
  caller?: McpCaller;
}

/**
 * The context a handler gets, whether the call came from argv or from MCP. A class, so that `signal` —
 * built only when read — is one getter on the prototype (docs/performance.md#rules-for-the-per-call-path).
 *
 * @example
 * ```ts
 * import { CancelScope } from "../../protocol/cancel_scope.ts";
 *
 * const context = new HandlerContext({
 *   input: { flags: {}, args: {} },
 *   dryRun: false,
 *   env: () => undefined,
 *   log: (message) => console.error(message),
 *   warn: () => {},
 *   progress: () => {},
 *   meta: {},
 *   scope: new CancelScope(),
 * });
 * context.signal; // built now
 * ```
 */
export class HandlerContext implements CommandContext {
  readonly flags: CommandContext["flags"];
  readonly args: CommandContext["args"];
  readonly dryRun: boolean;
  readonly env: CommandContext["env"];
  readonly log: CommandContext["log"];
  readonly warn: CommandContext["warn"];
  readonly progress: CommandContext["progress"];
  readonly meta: Record<string, unknown>;
  readonly caller: McpCaller | undefined;
  readonly #scope: CancelScope;

  constructor(parts: HandlerContextParts) {
    this.flags = parts.input.flags as CommandContext["flags"];
    this.args = parts.input.args as CommandContext["args"];
    this.dryRun = parts.dryRun;
    this.env = parts.env;
    this.log = parts.log;
    this.warn = parts.warn;
    this.progress = parts.progress;
    this.meta = parts.meta;
    this.caller = parts.caller;
    this.#scope = parts.scope;
  }

  get signal(): AbortSignal {
    return this.#scope.signal;
  }
}
