import type { ProtocolFailure } from "./protocol_io.ts";
import { ExitCode } from "../exit_code.ts";

/**
 * The `error.code` of each way an LSP or DAP session can end other than cleanly. Both exit 1
 * (GENERAL_ERROR): the LSP specification asks for exit code 1 after `exit` without `shutdown`, and every
 * command's exit-code table contains 1, so neither needs a command-specific code to stay declared.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope;
 * if (envelope.error?.code === ProtocolEndCode.FRAMING_ERROR) console.error("the client sent a bad header");
 * ```
 */
export const ProtocolEndCode = {
  /** The input has a header block without a usable Content-Length, so no later message can be found. */
  FRAMING_ERROR: "PROTOCOL_FRAMING_ERROR",
  /** LSP: the client sent `exit` without a `shutdown` request first. */
  EXIT_WITHOUT_SHUTDOWN: "PROTOCOL_EXIT_WITHOUT_SHUTDOWN",
} as const;

/**
 * The session ending for input that cannot be framed: exit 1 with {@linkcode ProtocolEndCode.FRAMING_ERROR}.
 *
 * @example
 * ```ts
 * const end = framingFailure("a header block without Content-Length");
 * end.code; // "PROTOCOL_FRAMING_ERROR"
 * ```
 */
export function framingFailure(detail: string): ProtocolFailure {
  return {
    exitCode: ExitCode.GENERAL_ERROR,
    code: ProtocolEndCode.FRAMING_ERROR,
    message:
      `the client's input cannot be framed (${detail}); no later message can be found, so the session ended`,
  };
}
