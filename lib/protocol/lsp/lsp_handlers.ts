/**
 * What an LSP server built with {@linkcode serveLsp} is made of: its handlers, what they receive, and the
 * server's options.
 * @module
 */
import type { ContentLengthFramerOptions } from "../../framing/content_length_framer.ts";

/**
 * What a handler receives besides the params.
 *
 * @example
 * ```ts
 * declare function lookUp(params: unknown, signal: AbortSignal): Promise<{ contents: string }>;
 *
 * const hover: LspRequestHandler = async (params, { signal, log }) => {
 *   log("hover requested");
 *   return await lookUp(params, signal);
 * };
 * ```
 */
export interface LspContext {
  /** Fires when the client cancels this request (`$/cancelRequest`) or the session ends. */
  signal: AbortSignal;
  /**
   * Sends a notification to the client, e.g. `textDocument/publishDiagnostics`. Throws when `params` cannot
   * be serialised as JSON; resolves once the message is handed to stdout.
   */
  notify(method: string, params?: object): Promise<void>;
  /** A diagnostic line for people, on stderr (stdout carries the protocol only). */
  log(message: string): void;
}

/**
 * Answers one request: the result (`undefined` is sent as `null`), or throw {@linkcode LspResponseError}.
 * `params` is what the client sent, unchecked: an object, or `undefined`.
 *
 * @example
 * ```ts
 * const completion: LspRequestHandler = (params) => {
 *   const { position } = params as { position: { line: number; character: number } };
 *   return position.line === 0 ? [{ label: "title" }] : [];
 * };
 * ```
 */
export type LspRequestHandler = (params: unknown, context: LspContext) => unknown;

/**
 * Handles one notification; a throw is logged on stderr, never answered.
 *
 * @example
 * ```ts
 * const didOpen: LspNotificationHandler = async (params, { notify }) => {
 *   const { textDocument } = params as { textDocument: { uri: string } };
 *   await notify("textDocument/publishDiagnostics", { uri: textDocument.uri, diagnostics: [] });
 * };
 * ```
 */
export type LspNotificationHandler = (params: unknown, context: LspContext) => void | Promise<void>;

/**
 * The answer to `initialize`.
 *
 * @example
 * ```ts
 * const result: LspInitializeResult = { capabilities: { hoverProvider: true }, serverInfo: { name: "notes" } };
 * ```
 */
export interface LspInitializeResult {
  /** The server's capabilities (LSP `ServerCapabilities`). */
  capabilities: Record<string, unknown>;
  /** The server's name and version. */
  serverInfo?: { name: string; version?: string };
}

/**
 * What an LSP server answers. The lifecycle methods — `initialize`, `initialized`, `shutdown`, `exit`,
 * `$/cancelRequest` — are handled by {@linkcode serveLsp}; give the rest by method name.
 *
 * @example
 * ```ts
 * const opened: unknown[] = [];
 * const handlers: LspHandlers = {
 *   initialize: () => ({ capabilities: { hoverProvider: true } }),
 *   requests: { "textDocument/hover": () => ({ contents: "hello" }) },
 *   notifications: { "textDocument/didOpen": (params) => void opened.push(params) },
 * };
 * ```
 */
export interface LspHandlers {
  /** Answers `initialize` with the server's capabilities. */
  initialize(params: unknown, context: LspContext): LspInitializeResult | Promise<LspInitializeResult>;
  /** Request handlers by method, e.g. `textDocument/completion`. */
  requests?: Readonly<Record<string, LspRequestHandler>>;
  /** Notification handlers by method, e.g. `textDocument/didOpen` or `initialized`. */
  notifications?: Readonly<Record<string, LspNotificationHandler>>;
  /** Runs on `shutdown`, before it is answered: release what the server holds. */
  shutdown?(context: LspContext): void | Promise<void>;
}

/**
 * Options for {@linkcode serveLsp}: the framer's limits, and how many requests run at once.
 *
 * @example
 * ```ts
 * const options: LspOptions = { maxMessageBytes: 8 << 20, maxInFlight: 16 };
 * ```
 */
export interface LspOptions extends ContentLengthFramerOptions {
  /** Requests handled at once; at the bound, reading pauses until one is answered. @default 64 */
  maxInFlight?: number;
}
