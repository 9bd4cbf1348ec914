import type { CommandRegistry } from "./registry.ts";
import type { Manifest } from "./manifest.ts";
import type { SharedState } from "./state_store.ts";

/**
 * A tool as the framework's own parts see it — the built-in commands, the in-process MCP catalog: its
 * identity, its registry, its limits and where it keeps state. `Tool` is one; a module that takes a
 * `ToolHost` needs nothing else of it.
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool;
 * const host: ToolHost = tool;
 * host.registry.all().length; // its commands, the built-ins included
 * ```
 */
export interface ToolHost {
  readonly name: string;
  readonly version: string;
  /** One sentence: what the tool is for. */
  readonly description: string;
  /** Prefix of the tool's environment variables (`NOTES_FORMAT`). */
  readonly envPrefix: string;
  /** Default time limit of every command, in seconds; 0 = none. */
  readonly timeoutSeconds: number;
  /** How long idempotency records are kept, in seconds. */
  readonly idempotencyLifetimeSeconds?: number;
  /** What its instances share (a store, a confirmation secret), when the tool was given it. */
  readonly sharedState?: SharedState | undefined;
  /** The Deno permission flags its commands need, when declared. */
  readonly denoPermissions?: readonly string[] | undefined;
  readonly registry: CommandRegistry;
  /** Directory of the idempotency store. */
  stateDir(): string;
  /** The manifest. */
  manifest(): Promise<Manifest>;
}
