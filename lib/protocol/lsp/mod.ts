/**
 * The Language Server Protocol lifecycle for protocol commands (`protocol: "lsp"`, REQ-C-032), as
 * `@toolwire/toolwire/lsp` (`toolwire/lsp` on npm): `serveLsp` runs the framing and the lifecycle, the
 * handlers answer the methods.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 * import { serveLsp } from "@toolwire/toolwire/lsp";
 *
 * const tool = createTool({ name: "editor-help", version: "1.0.0", description: "A language server" });
 * tool.command("lsp", {
 *   description: "Serve the Language Server Protocol over stdio",
 *   danger_level: "safe", required_scopes: [], stdout: "protocol", protocol: "lsp",
 *   exit_codes: {
 *     "0": { name: "SUCCESS", description: "Clean shutdown", retryable: false, side_effects: "none" },
 *   },
 *   serve: () => (io) => serveLsp(io, { initialize: () => ({ capabilities: {} }) }),
 * });
 * ```
 * @module
 */
export { LspResponseError } from "./lsp_response_error.ts";
export type {
  LspContext,
  LspHandlers,
  LspInitializeResult,
  LspNotificationHandler,
  LspOptions,
  LspRequestHandler,
} from "./lsp_handlers.ts";
export { serveLsp } from "./serve_lsp.ts";
export { ProtocolEndCode } from "../session_end.ts";
