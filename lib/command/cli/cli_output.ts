import { stdioWrite } from "../../runtime/mod.ts";
import { SerialWriter } from "../../framing/serial_writer.ts";
import type { ResponseEnvelope } from "../contract/envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import { envelopeJson } from "../run/envelope_json.ts";

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
    const { text, failed } = envelopeJson(envelope);
    await this.line(stream, text);
    return failed ? ExitCode.GENERAL_ERROR : envelope.meta.exit_code;
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
 * The envelope as JSON mode would print it: data that cannot be serialised becomes the same GENERAL_ERROR
 * envelope, so plain output fails the way JSON output does instead of in the renderer.
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
  const json = envelopeJson(envelope);
  return json.failed ? JSON.parse(json.text) as ResponseEnvelope : envelope;
}
