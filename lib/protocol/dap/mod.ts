/**
 * The Debug Adapter Protocol session for protocol commands (`protocol: "dap"`, REQ-C-032).
 * @module
 */
export * from "./serve_dap.ts";
