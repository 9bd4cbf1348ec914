import { ExitCode } from "../../exit_code.ts";
import { commandWords } from "../contract/command_words.ts";
import type { DangerLevel } from "../contract/command_definition.ts";
import { type ErrorDetail, makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";

/**
 * Whether a call must be previewed and refused rather than run: the command is destructive, and the call
 * neither asked for a dry run nor confirmed.
 *
 * @example
 * ```ts
 * needsConfirmation("destructive", { dryRun: false, confirmed: false }); // true
 * ```
 */
export function needsConfirmation(
  dangerLevel: DangerLevel,
  call: { dryRun?: boolean; confirmed?: boolean },
): boolean {
  return dangerLevel === "destructive" && call.dryRun !== true && call.confirmed !== true;
}

/** What {@linkcode previewDestructive} came to. */
export interface DestructivePreview {
  /**
   * CONFIRMATION_REQUIRED (exit 2) with the dry run's data as `error.preview` and its warnings; or, when the
   * dry run failed (say NOT_FOUND), that failure as it is: there is nothing to confirm.
   */
  envelope: ResponseEnvelope;
  /** Whether the dry run succeeded, so that `envelope` is the CONFIRMATION_REQUIRED refusal. */
  previewed: boolean;
}

/**
 * The answer to a destructive call nobody confirmed, wherever it runs — the CLI's executor, a bridged CLI
 * run as a child process, an MCP client asked through elicitation: run the command's dry run (`dryRun`,
 * which must change nothing) and refuse with CONFIRMATION_REQUIRED, showing what the call would change.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 * import { monotonicMs } from "../../runtime/process.ts";
 *
 * declare function runIt(options: { dryRun: boolean }): Promise<ResponseEnvelope>;
 * const startedAt = monotonicMs();
 * const { envelope, previewed } = await previewDestructive("notes.remove", () => runIt({ dryRun: true }), {
 *   startedAt,
 * });
 * envelope.error?.code; // "CONFIRMATION_REQUIRED" when previewed
 * ```
 */
export async function previewDestructive(
  path: string,
  dryRun: () => ResponseEnvelope | Promise<ResponseEnvelope>,
  options: { startedAt: number; meta?: Record<string, unknown> },
): Promise<DestructivePreview> {
  const preview = await dryRun();
  if (!preview.ok) return { envelope: preview, previewed: false };
  const envelope = makeEnvelope({
    exitCode: ExitCode.ARG_ERROR,
    error: confirmationRequiredError(path, preview.data),
    warnings: preview.warnings,
    startedAt: options.startedAt,
    ...(options.meta === undefined ? {} : { meta: options.meta }),
  });
  return { envelope, previewed: true };
}

/** The `error` of the refusal (REQ-O-021): exit 2, nothing was changed; the dry run's data as `preview`. */
function confirmationRequiredError(path: string, preview: unknown): ErrorDetail {
  return {
    code: "CONFIRMATION_REQUIRED",
    message: `${commandWords(path)} is destructive and was not confirmed; nothing was changed`,
    retryable: false,
    phase: "validation",
    suggestion:
      "review error.preview, then repeat the call with --confirm-destructive (MCP: confirm_destructive: true)",
    preview: preview ?? null,
  };
}
