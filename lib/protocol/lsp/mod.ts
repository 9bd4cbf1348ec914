/**
 * The Language Server Protocol lifecycle for protocol commands (`protocol: "lsp"`, REQ-C-032).
 * @module
 */
export * from "./lsp_response_error.ts";
export * from "./serve_lsp.ts";
