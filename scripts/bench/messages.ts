/**
 * The requests the bench sends — the era handshakes done by hand, tools/list, `echo {text}` calls — and the
 * checks on their answers: the echoed text must round-trip, in the result shape of the server's era.
 */
import { BenchError, type Json, preview } from "./line_client.ts";
import { type Era, type ServerSpec, SETTINGS } from "./settings.ts";

const MODERN_VERSION = "2026-07-28";
/** The version a legacy `initialize` asks for. */
export const LEGACY_VERSION = "2025-11-25";
const META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "toolwire-bench", version: "1.0.0" },
});

/**
 * A tools/call of `echo` with `text`, as one line.
 *
 * @example
 * ```ts
 * server.queue(callLine("modern", 7, "hello"));
 * ```
 */
export function callLine(era: Era, id: number, text: string): string {
  const args = `{"text":${JSON.stringify(text)}}`;
  const meta = era === "modern" ? `,"_meta":${META}` : "";
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${args}${meta}}}\n`;
}

/**
 * A legacy `initialize`, as one line.
 *
 * @example
 * ```ts
 * server.queue(initializeLine(1));
 * ```
 */
export function initializeLine(id: number): string {
  return `${
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: { name: "toolwire-bench", version: "1.0.0" },
      },
    })
  }\n`;
}

/** The notification that ends the legacy handshake. */
export const INITIALIZED_LINE = `{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;

/**
 * A modern `server/discover`, as one line: what a modern client sends first.
 *
 * @example
 * ```ts
 * server.queue(discoverLine(1));
 * ```
 */
export function discoverLine(id: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"server/discover","params":{"_meta":${META}}}\n`;
}

/**
 * A tools/list in the server's era, as one line.
 *
 * @example
 * ```ts
 * server.queue(toolsListLine("legacy", 2));
 * ```
 */
export function toolsListLine(era: Era, id: number): string {
  const params = era === "modern" ? `{"_meta":${META}}` : "{}";
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":${params}}\n`;
}

/**
 * Checks the answer to {@linkcode initializeLine} or {@linkcode discoverLine}. The bare loop answers every
 * request alike, so only its being a result counts there.
 *
 * @example
 * ```ts
 * checkHandshake(spec, result);
 * ```
 */
export function checkHandshake(spec: ServerSpec, result: Json): void {
  if (spec.kind === "bare") return;
  const ok = spec.era === "legacy"
    ? result.protocolVersion === LEGACY_VERSION
    : Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_VERSION);
  if (!ok) throw new BenchError(`the ${spec.era} handshake was answered ${preview(result)}`);
}

/**
 * Checks that a tools/list answer lists `echo` (the bare loop: that it is a result).
 *
 * @example
 * ```ts
 * checkToolsList(spec, result);
 * ```
 */
export function checkToolsList(spec: ServerSpec, result: Json): void {
  if (spec.kind === "bare") return;
  const tools = result.tools;
  if (!Array.isArray(tools) || !tools.some((tool) => (tool as Json | null)?.name === "echo")) {
    throw new BenchError(`tools/list has no echo tool: ${preview(result)}`);
  }
}

const FILLER = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/**
 * The text of small call `i`: unique, `smallTextBytes` long.
 *
 * @example
 * ```ts
 * smallText(3); // "3:abcdef…"
 * ```
 */
export function smallText(i: number): string {
  const head = `${i}:`;
  return head + FILLER.repeat(2).slice(0, SETTINGS.smallTextBytes - head.length);
}

const bigBase = new Map<number, string>();

/**
 * The text of big call `i`: unique, `mib` MiB long.
 *
 * @example
 * ```ts
 * bigText(8, 0).length; // 8 * 1024 * 1024
 * ```
 */
export function bigText(mib: number, i: number): string {
  let base = bigBase.get(mib);
  if (base === undefined) {
    base = FILLER.repeat((mib * 1024 * 1024) / FILLER.length);
    bigBase.set(mib, base);
  }
  const head = `${mib}MiB#${i}:`;
  return head + base.slice(head.length);
}

/**
 * The echoed text of a tools/call result, checked for the server's result shape.
 *
 * @example
 * ```ts
 * if (echoed(spec, result) !== "hello") throw new BenchError("wrong echo");
 * ```
 */
export function echoed(spec: Pick<ServerSpec, "era" | "envelope">, result: Json): string {
  if (spec.era === "modern" && result.resultType !== "complete") {
    throw new BenchError(`no resultType "complete": ${preview(result)}`);
  }
  if (spec.era === "legacy" && result.resultType !== undefined) {
    throw new BenchError(`a legacy result with resultType: ${preview(result)}`);
  }
  if (result.isError === true) throw new BenchError(`isError result: ${preview(result)}`);
  const content = result.content as Array<{ type?: unknown; text?: unknown }> | undefined;
  if (!Array.isArray(content) || content[0]?.type !== "text" || typeof content[0].text !== "string") {
    throw new BenchError(`no text content: ${preview(result)}`);
  }
  const structured = result.structuredContent as Json | undefined;
  if (spec.envelope) {
    // structuredContent is the command's envelope; content[0].text is the same envelope as JSON text.
    const data = structured?.data as Json | undefined;
    if (structured?.ok !== true || typeof data?.text !== "string") {
      throw new BenchError(`not an ok envelope: ${preview(result)}`);
    }
    if (!content[0].text.startsWith('{"ok":true,"data":{"text":')) {
      throw new BenchError(`content is not the envelope: ${preview(result)}`);
    }
    return data.text;
  }
  if (typeof structured?.text !== "string" || content[0].text !== structured.text) {
    throw new BenchError(`content and structuredContent disagree: ${preview(result)}`);
  }
  return structured.text;
}
