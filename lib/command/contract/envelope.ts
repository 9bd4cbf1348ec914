import { monotonicMs } from "../../runtime/mod.ts";
/** A non-fatal diagnostic carried in the envelope's `warnings` array. */
export interface Warning {
  /** A stable machine-readable identifier, e.g. `"UNDECLARED_EXIT_CODE"`. */
  code: string;
  /** What happened, for a person. */
  message: string;
  [key: string]: unknown;
}

/** The `error` member of a failed envelope (REQ-F-004, REQ-C-013). */
export interface ErrorDetail {
  /** Stable machine-readable identifier, e.g. `"NOT_FOUND"`. */
  code: string;
  /** What went wrong, for a person. */
  message: string;
  /** True only if the identical call may succeed when repeated. */
  retryable: boolean;
  /** Where it failed; `"validation"` guarantees nothing was changed (REQ-F-002). */
  phase?: "validation" | "execution" | "cleanup";
  /** The next step, phrased for an agent. */
  suggestion?: string;
  [key: string]: unknown;
}

/** The framework-populated `meta` member. */
export interface ResponseMeta {
  /** The process exit code this envelope stands for; `ok` ⇔ 0. */
  exit_code: number;
  /** Wall-clock milliseconds from command entry to the envelope. */
  duration_ms: number;
  [key: string]: unknown;
}

/**
 * The one response shape of every command (REQ-F-004): exactly these five keys, whatever the outcome.
 *
 * @example
 * ```ts
 * const envelope: ResponseEnvelope = {
 *   ok: true, data: { id: 1 }, error: null, warnings: [], meta: { exit_code: 0, duration_ms: 3 },
 * };
 * ```
 */
export interface ResponseEnvelope<T = unknown> {
  ok: boolean;
  data: T | null;
  error: ErrorDetail | null;
  warnings: Warning[];
  meta: ResponseMeta;
}

/**
 * Builds an envelope; `ok` is derived from the exit code, never set on its own.
 *
 * @example
 * ```ts
 * import { monotonicMs } from "../../runtime/process.ts";
 *
 * const env = makeEnvelope({ exitCode: 0, data: { id: 1 }, startedAt: monotonicMs() });
 * ```
 */
export function makeEnvelope<T>(parts: {
  exitCode: number;
  data?: T | null;
  error?: ErrorDetail | null;
  warnings?: Warning[];
  startedAt: number;
  meta?: Record<string, unknown>;
}): ResponseEnvelope<T> {
  const { exitCode, data, error, warnings, startedAt, meta } = parts;
  const ok = exitCode === 0;
  // The command's keys first, the framework's two last (or in place); not a spread (docs/performance.md).
  const copied = Object.assign({}, meta) as ResponseMeta;
  copied.exit_code = exitCode;
  copied.duration_ms = Math.max(0, Math.round(monotonicMs() - startedAt));
  return {
    ok,
    data: data ?? null,
    error: ok ? null : (error ?? null),
    warnings: warnings ?? [],
    meta: copied,
  };
}
