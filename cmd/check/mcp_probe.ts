/**
 * Just enough of an MCP client to check a server from outside (the wire: docs/mcp_wire.md): opens
 * with `server/discover` — which every era answers, with a result or an error — continues in the modern era
 * when the server offers 2026-07-28, else with the legacy `initialize` handshake, and matches responses to
 * requests by id.
 */
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

/** An MCP conversation over a {@linkcode ServerSession}. */
export class McpProbe {
  readonly #session: ServerSession;
  readonly #timeoutMs: number;
  #era: "modern" | "legacy" = "legacy";
  #nextId = 1;

  constructor(session: ServerSession, timeoutMs: number) {
    this.#session = session;
    this.#timeoutMs = timeoutMs;
  }

  /** The era the server was found to speak. */
  get era(): "modern" | "legacy" {
    return this.#era;
  }

  /**
   * Sends `server/discover` and returns the very first stdout line — which must answer it — then finishes
   * the opening (a legacy `initialize` when the server is not modern). `undefined` when no line came.
   */
  async open(): Promise<{ firstLine: string | undefined; response: RpcResponse | undefined }> {
    const id = this.#id();
    await this.#session.send(JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: modernMeta() } }));
    const firstLine = await this.#session.nextLine(this.#timeoutMs);
    const response = parseResponse(firstLine);
    if (response?.id !== id) return { firstLine, response: undefined };
    const versions = response.result?.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN_VERSION)) {
      this.#era = "modern";
      return { firstLine, response };
    }
    await this.request("initialize", { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
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
      const response = parseResponse(await this.#session.nextLine(deadline - Date.now()));
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

/** A stdout line as a JSON-RPC response, or `undefined` when it is not one. */
function parseResponse(line: string | undefined): RpcResponse | undefined {
  if (line === undefined) return undefined;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value !== "object" || value === null || value.jsonrpc !== "2.0" || !("id" in value)) return undefined;
    if (!("result" in value) && !("error" in value)) return undefined;
    return value as unknown as RpcResponse;
  } catch {
    return undefined;
  }
}
