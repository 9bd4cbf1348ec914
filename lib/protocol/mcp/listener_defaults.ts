/**
 * The defaults of a listener's bounds, in a module of their own: the `mcp listen` command quotes them in its
 * flags at every start of a tool, without loading the listener.
 * @module
 */

/**
 * The defaults of `McpListenerOptions`.
 *
 * @example
 * ```ts
 * LISTENER_DEFAULTS.maxConnections; // 128
 * ```
 */
export const LISTENER_DEFAULTS = {
  maxInFlightTotal: 256,
  maxConnections: 128,
  maxBufferedBytes: 256 * 1024 * 1024,
  idleTimeoutMs: 300_000,
} as const;
