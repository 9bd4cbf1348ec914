/**
 * Just enough of an MCP client to check a server from outside (the wire: docs/mcp_wire.md): opens
 * with `server/discover` — which every era answers, with a result or an error — continues in the modern era
 * when the server offers 2026-07-28, else with the legacy `initialize` handshake, and matches responses to
 * requests by id.
 */
import { isRecord, parseJson } from "../../lib/bridge/mod.ts";
import { clip } from "./evidence.ts";
import type { ProtocolProbe, Seen } from "./probe.ts";
import type { ServerSession } from "./server_session.ts";

const MODERN_VERSION = "2026-07-28";
const LEGACY_VERSION = "2025-11-25";
const CLIENT_INFO = { name: "toolwire-check", version: "1.0.0" };

/** A JSON-RPC response as read off the wire. */
export interface RpcResponse {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code?: unknown; message?: unknown };
}

/** An MCP conversation over a {@linkcode ServerSession} read as lines. */
export class McpProbe implements ProtocolProbe {
  readonly #session: ServerSession;
  readonly #timeoutMs: number;
  #era: "modern" | "legacy" = "legacy";
  #nextId = 1;
  #impurity: string | undefined;
  /** Lines stay lines whatever one of them holds: reading never gets lost. */
  readonly lost = false;

  constructor(session: ServerSession, timeoutMs: number) {
    this.#session = session;
    this.#timeoutMs = timeoutMs;
  }

  /** The era the server was found to speak. */
  get era(): "modern" | "legacy" {
    return this.#era;
  }

  /** The first stdout line after the opening one that was not a JSON-RPC 2.0 message. */
  get impurity(): string | undefined {
    return this.#impurity;
  }

  /** Opens the session; ok when the very first stdout line answers `server/discover`. */
  async open(): Promise<Seen> {
    const { firstLine, response } = await this.discover();
    if (response !== undefined) {
      return { ok: true, note: `the first stdout line answers server/discover (${this.#era} era)` };
    }
    return {
      ok: false,
      note: firstLine === undefined
        ? "no stdout line in time"
        : `the first stdout line is not the response: ${clip(firstLine)}`,
    };
  }

  /** Sends a line that is not JSON, then `tools/list`; ok when the first gets -32700 and the second an answer. */
  async malformed(): Promise<Seen> {
    await this.#session.send("{this is not json");
    const parseError = await this.reply((reply) => reply.error?.code === -32700);
    if (parseError === undefined) return { ok: false, note: "no -32700 answer to a malformed line" };
    return (await this.ping())
      ? { ok: true, note: "answered -32700, then answered tools/list" }
      : { ok: false, note: "answered -32700, then stopped answering" };
  }

  /** Sends `tools/list`; whether it was answered. */
  async ping(): Promise<boolean> {
    return (await this.request("tools/list")) !== undefined;
  }

  /**
   * Sends `server/discover` and returns the very first stdout line — which must answer it — then finishes
   * the opening (a legacy `initialize` when the server is not modern). `undefined` when no line came.
   */
  async discover(): Promise<{ firstLine: string | undefined; response: RpcResponse | undefined }> {
    const id = this.#id();
    await this.#session.send(
      JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: modernMeta() } }),
    );
    const firstLine = await this.#session.nextLine(this.#timeoutMs);
    const response = parseResponse(firstLine);
    if (response?.id !== id) return { firstLine, response: undefined };
    const versions = response.result?.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN_VERSION)) {
      this.#era = "modern";
      return { firstLine, response };
    }
    await this.request("initialize", {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    await this.#session.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    return { firstLine, response };
  }

  /** Sends a request and waits for its response, skipping notifications; `undefined` when none came in time. */
  async request(method: string, params: Record<string, unknown> = {}): Promise<RpcResponse | undefined> {
    const id = this.#id();
    const withMeta = this.#era === "modern" ? { ...params, _meta: modernMeta() } : params;
    await this.#session.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: withMeta }));
    return await this.reply((response) => response.id === id);
  }

  /** Reads lines until one is a response `matches` accepts; `undefined` when none came in time. */
  async reply(matches: (response: RpcResponse) => boolean): Promise<RpcResponse | undefined> {
    const deadline = Date.now() + this.#timeoutMs;
    while (Date.now() < deadline) {
      const line = await this.#session.nextLine(deadline - Date.now());
      if (line === undefined) return undefined;
      if (!isJsonRpc(line)) this.#impurity ??= `a stdout line is not a JSON-RPC 2.0 message: ${clip(line)}`;
      const response = parseResponse(line);
      if (response !== undefined && matches(response)) return response;
    }
    return undefined;
  }

  /** Every tool name `tools/list` offers, following `nextCursor` (at most 50 pages). */
  async toolNames(): Promise<string[] | undefined> {
    const names: string[] = [];
    let cursor: unknown;
    for (let page = 0; page < 50; page++) {
      const response = await this.request("tools/list", cursor === undefined ? {} : { cursor });
      const tools = response?.result?.tools;
      if (!Array.isArray(tools)) return undefined;
      for (const tool of tools) if (typeof tool?.name === "string") names.push(tool.name);
      cursor = response?.result?.nextCursor;
      if (typeof cursor !== "string") return names;
    }
    return names;
  }

  #id(): string {
    return `check-${this.#nextId++}`;
  }
}

function modernMeta(): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
  };
}

/** Whether a stdout line holds a JSON-RPC 2.0 message, or a batch of them. */
function isJsonRpc(line: string): boolean {
  const value = parseJson(line);
  const messages = Array.isArray(value) ? value : [value];
  return messages.length > 0 && messages.every((message) => isRecord(message) && message.jsonrpc === "2.0");
}

/** A stdout line as a JSON-RPC response, or `undefined` when it is not one. */
function parseResponse(line: string | undefined): RpcResponse | undefined {
  const value = line === undefined ? undefined : parseJson(line);
  if (!isRecord(value) || value.jsonrpc !== "2.0" || !("id" in value)) return undefined;
  if (!("result" in value) && !("error" in value)) return undefined;
  return value as unknown as RpcResponse;
}
