/**
 * The one place a caller's scopes are checked (docs/auth.md): which tools an authenticated caller sees, and
 * whether it may call one — a refusal leaves its audit line and is a typed value, which HTTP answers with
 * 403 and an `insufficient_scope` challenge and a line transport or a batch as a JSON-RPC error.
 * @module
 */
import type { RpcError } from "../json_rpc.ts";
import { auditLine } from "./call_audit.ts";
import { mayUse, type McpCaller, scopeRefusal } from "./caller.ts";
import type { McpTool, ToolCatalog } from "./tool_catalog.ts";

/**
 * A call refused for want of scopes: the tool, the scopes it requires, and the JSON-RPC error that says so.
 *
 * @example
 * ```ts
 * declare const refusal: ScopeRefusal;
 * console.error(`${refusal.tool} needs ${refusal.required.join(" ")}`);
 * ```
 */
export interface ScopeRefusal {
  readonly tool: string;
  readonly required: readonly string[];
  readonly error: RpcError;
}

/**
 * Whether `caller` may call `tool`: `undefined` when it may (or nobody was authenticated), else the refusal,
 * after its audit line went to `log`.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * const refusal = checkScopes({ catalog, caller: { subject: "ci", scopes: [], claims: {} }, tool: "remove" });
 * ```
 */
export function checkScopes(
  check: { catalog: ToolCatalog; caller: McpCaller | undefined; tool: string; log?: (line: string) => void },
): ScopeRefusal | undefined {
  const { caller, tool } = check;
  if (caller === undefined) return undefined;
  const required = check.catalog.requiredScopes?.(tool);
  if (required === undefined || mayUse(caller, required)) return undefined;
  check.log?.(auditLine(caller, tool, "denied"));
  return { tool, required, error: scopeRefusal(tool, required) };
}

/**
 * The tools `caller` may see: all of them when nobody was authenticated.
 *
 * @example
 * ```ts
 * import type { ToolCatalog } from "./tool_catalog.ts";
 *
 * declare const catalog: ToolCatalog;
 * visibleTools(catalog, undefined); // catalog.tools()
 * ```
 */
export function visibleTools(catalog: ToolCatalog, caller: McpCaller | undefined): readonly McpTool[] {
  const tools = catalog.tools();
  if (caller === undefined) return tools;
  return tools.filter((tool) => mayUse(caller, catalog.requiredScopes?.(tool.name)));
}
