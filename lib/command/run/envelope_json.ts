/**
 * The one serialiser of a ResponseEnvelope, for the CLI (one JSON line) and for MCP (the tool result's text):
 * JSON that cannot carry an envelope's data (a cycle, a BigInt, nesting too deep for the stringifier — a
 * bridged CLI may print any of these) becomes a GENERAL_ERROR envelope saying why, never a crash or a torn line.
 * @module
 */
import { monotonicMs } from "../../runtime/mod.ts";
import { makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import { errorMessage } from "./thrown_error.ts";

/**
 * The envelope's JSON text, and whether it `failed` to serialise — the text is then that of a GENERAL_ERROR
 * envelope with the same duration, saying why.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope;
 * const { text, failed } = envelopeJson(envelope); // '{"ok":true,"data":...}', false
 * ```
 */
export function envelopeJson(envelope: ResponseEnvelope): { text: string; failed: boolean } {
  try {
    return { text: JSON.stringify(envelope), failed: false };
  } catch (error) {
    return { text: unserialisable(envelope, error), failed: true };
  }
}

// A function of its own: the rare failure is not compiled into the path every call runs (docs/performance.md).
function unserialisable(envelope: ResponseEnvelope, error: unknown): string {
  return JSON.stringify(makeEnvelope({
    exitCode: ExitCode.GENERAL_ERROR,
    error: {
      code: "GENERAL_ERROR",
      message: `the result could not be serialised as JSON: ${errorMessage(error)}`,
      retryable: false,
      phase: "execution",
    },
    warnings: [],
    startedAt: monotonicMs() - envelope.meta.duration_ms,
  }));
}
