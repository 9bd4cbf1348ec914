import { monotonicMs, stdioWrite } from "../../runtime/mod.ts";
import { SerialWriter } from "../../framing/serial_writer.ts";
import { makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import { errorMessage } from "../run/thrown_error.ts";

/**
 * The process's stdout and stderr as ordered, flushable writers. stdout is opened only when first written:
 * a protocol command hands the raw stdout to its loop instead.
 *
 * @example
 * ```ts
 * const out = new CliOutput();
 * out.line("stderr", "warning: cache is cold");
 * await out.flush();
 * ```
 */
export class CliOutput {
  #stdout: SerialWriter | undefined;
  readonly #stderr = new SerialWriter({ write: stdioWrite("stderr") });

  /**
   * Writes one line (a newline is added) to stdout or stderr. A stdout line waits until every stderr line
   * written before it has left the process: the two streams have writers of their own, and a person who
   * sees both in one terminal must see a handler's log lines before the result they led to.
   */
  line(stream: "stdout" | "stderr", text: string): Promise<void> {
    if (stream === "stderr") return this.#stderr.write(`${text}\n`);
    return this.#stderr.flush().then(() => this.#writer("stdout").write(`${text}\n`));
  }

  /** Writes one envelope as one JSON line (REQ-F-004); resolves to the exit code the written envelope carries. */
  async envelope(stream: "stdout" | "stderr", envelope: ResponseEnvelope): Promise<number> {
    const { text, exitCode } = envelopeJson(envelope);
    await this.line(stream, text);
    return exitCode;
  }

  /** Resolves once everything written so far has left the process. */
  async flush(): Promise<void> {
    await Promise.all([this.#stdout?.flush(), this.#stderr.flush()]);
  }

  #writer(stream: "stdout" | "stderr"): SerialWriter {
    if (stream === "stderr") return this.#stderr;
    this.#stdout ??= new SerialWriter({ write: stdioWrite("stdout") });
    return this.#stdout;
  }
}

/**
 * Serialises an envelope to one line of JSON, with the exit code it stands for. Data that cannot be
 * serialised (a cycle, a BigInt) becomes a GENERAL_ERROR envelope instead of a crash or a torn line.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope;
 * envelopeJson(envelope).text; // '{"ok":true,"data":...}'
 * ```
 */
export function envelopeJson(envelope: ResponseEnvelope): { text: string; exitCode: number } {
  let text: string;
  try {
    text = JSON.stringify(envelope);
  } catch (error) {
    return { text: unserialisableJson(envelope, error), exitCode: ExitCode.GENERAL_ERROR };
  }
  return { text, exitCode: envelope.meta.exit_code };
}

/**
 * What stands for an envelope that JSON cannot carry: the JSON of a GENERAL_ERROR envelope saying why, with
 * the same duration. A function apart from the serialisers that every call runs ({@linkcode envelopeJson},
 * the MCP tool result): V8 compiles a function whole, on its first call and again into baseline code once it
 * runs often, so this rare failure kept inline would be compiled by every server that answers calls.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope;
 * try {
 *   JSON.stringify(envelope);
 * } catch (error) {
 *   unserialisableJson(envelope, error); // '{"ok":false,...,"error":{"code":"GENERAL_ERROR",...'
 * }
 * ```
 */
export function unserialisableJson(envelope: ResponseEnvelope, error: unknown): string {
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

/**
 * The envelope as JSON mode would print it: data that cannot be serialised (a cycle, a BigInt, nesting too
 * deep) becomes the same GENERAL_ERROR envelope, so plain output fails the way JSON output does instead of in
 * the renderer.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope;
 * const shown = serialisableEnvelope(envelope); // envelope itself when it serialises
 * ```
 */
export function serialisableEnvelope(envelope: ResponseEnvelope): ResponseEnvelope {
  try {
    JSON.stringify(envelope);
    return envelope;
  } catch {
    return JSON.parse(envelopeJson(envelope).text) as ResponseEnvelope;
  }
}
