/** The stateless, per-request-`_meta` protocol revisions served (the modern era). */
export const MODERN_VERSIONS: readonly string[] = ["2026-07-28"];

/** The `initialize`-handshake revisions served (the legacy era), newest first. */
export const LEGACY_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** Every revision served, for `-32022` answers' `supported` list. */
export const ALL_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** The legacy revision that still accepted JSON-RPC batches. */
export const BATCHING_VERSION = "2025-03-26";

/**
 * The legacy version to answer an `initialize` with: the client's when served, else the newest served; the
 * client decides whether it can work with that (docs/mcp_wire.md#versions).
 *
 * @example
 * ```ts
 * negotiateLegacyVersion("2025-06-18"); // "2025-06-18"
 * negotiateLegacyVersion("1999-01-01"); // "2025-11-25"
 * ```
 */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === "string" && LEGACY_VERSIONS.includes(requested)
    ? requested
    : LEGACY_VERSIONS[0]!;
}
