/**
 * What the checker asks of a protocol server it speaks, the same questions for every protocol, so a report
 * reads alike for mcp-stdio, LSP and DAP: does the first response answer the first request, is a malformed
 * message answered inside the protocol, does the server still answer, and was every stdout byte a message.
 */
import { DapProbe } from "./dap_probe.ts";
import { LspProbe } from "./lsp_probe.ts";
import { McpProbe } from "./mcp_probe.ts";
import type { Framing, ServerSession } from "./server_session.ts";
import type { FramedProbe, ProtocolProbe } from "./probe.ts";

/** The protocols the checker speaks, and how each frames its messages. */
const SPOKEN: Readonly<Record<string, Framing>> = {
  "mcp-stdio": "line",
  lsp: "content-length",
  dap: "content-length",
};

/**
 * The protocols the checker speaks, for a report's evidence.
 *
 * @example
 * ```ts
 * `the checker speaks ${SPOKEN_PROTOCOLS}`; // "the checker speaks mcp-stdio, lsp and dap"
 * ```
 */
export const SPOKEN_PROTOCOLS = "mcp-stdio, lsp and dap";

/**
 * How a protocol frames its messages, or `undefined` for a protocol the checker does not speak.
 *
 * @example
 * ```ts
 * framingOf("lsp"); // "content-length"
 * framingOf("line-echo"); // undefined
 * ```
 */
export function framingOf(protocol: string): Framing | undefined {
  return Object.hasOwn(SPOKEN, protocol) ? SPOKEN[protocol] : undefined;
}

/**
 * A client for a session's protocol, or `undefined` for a protocol the checker does not speak.
 *
 * @example
 * ```ts
 * import { ServerSession } from "./server_session.ts";
 *
 * const server = new ServerSession(["dbg", "debug-adapter"], "content-length");
 * const probe = probeFor("dap", server, 10_000);
 * if (probe !== undefined) console.log((await probe.open()).note);
 * ```
 */
export function probeFor(
  protocol: string,
  session: ServerSession,
  timeoutMs: number,
): ProtocolProbe | FramedProbe | undefined {
  switch (protocol) {
    case "mcp-stdio":
      return new McpProbe(session, timeoutMs);
    case "lsp":
      return new LspProbe(session, timeoutMs);
    case "dap":
      return new DapProbe(session, timeoutMs);
    default:
      return undefined;
  }
}

/**
 * Whether a probe can also break the framing (Content-Length protocols).
 *
 * @example
 * ```ts
 * import type { ProtocolProbe } from "./probe.ts";
 *
 * declare const probe: ProtocolProbe;
 * if (isFramed(probe)) await probe.badFraming();
 * ```
 */
export function isFramed(probe: ProtocolProbe): probe is FramedProbe {
  return "badFraming" in probe;
}
