/**
 * The Debug Adapter Protocol session for protocol commands (`protocol: "dap"`, REQ-C-032), as
 * `@toolwire/toolwire/dap` (`toolwire/dap` on npm): `serveDap` runs the framing and the lifecycle, the
 * handlers answer the requests.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 * import { serveDap } from "@toolwire/toolwire/dap";
 *
 * const tool = createTool({ name: "debugger", version: "1.0.0", description: "A debug adapter" });
 * tool.command("dap", {
 *   description: "Serve the Debug Adapter Protocol over stdio",
 *   danger_level: "safe", required_scopes: [], stdout: "protocol", protocol: "dap",
 *   exit_codes: {
 *     "0": { name: "SUCCESS", description: "Clean shutdown", retryable: false, side_effects: "none" },
 *   },
 *   serve: () => (io) => serveDap(io, { initialize: () => ({ supportsConfigurationDoneRequest: true }) }),
 * });
 * ```
 * @module
 */
export {
  type DapContext,
  type DapHandlers,
  type DapOptions,
  type DapRequestHandler,
  serveDap,
} from "./serve_dap.ts";
export { ProtocolEndCode } from "../session_end.ts";
