/**
 * `tools/list` paging: a page of at most `pageSize` tools and, when more follow, an opaque cursor naming where
 * the next page starts. A cursor is checked before it is used: anything this server did not make, or one
 * past the end of the list (the list may have changed), is refused.
 * @module
 */
import { type RpcError, RpcErrorCode } from "../json_rpc.ts";
import type { McpTool } from "./tool_catalog.ts";

/** One page of tools, or why the cursor was refused. */
export type ToolsPage = { tools: readonly McpTool[]; nextCursor?: string } | { error: RpcError };

/**
 * The page a `tools/list` request asks for.
 *
 * @example
 * ```ts
 * import type { McpTool } from "./tool_catalog.ts";
 *
 * declare const tools: McpTool[];
 * const first = toolsPage(tools, undefined, 100);
 * const second = "nextCursor" in first ? toolsPage(tools, first.nextCursor, 100) : undefined;
 * ```
 */
export function toolsPage(tools: readonly McpTool[], cursor: unknown, pageSize: number): ToolsPage {
  const size = Math.max(1, pageSize);
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = decodeCursor(cursor, tools.length);
    if (decoded === undefined) {
      return { error: { code: RpcErrorCode.INVALID_PARAMS, message: "Invalid params: unknown cursor" } };
    }
    offset = decoded;
  }
  const end = offset + size;
  return {
    tools: tools.slice(offset, end),
    ...(end < tools.length ? { nextCursor: encodeCursor(end) } : {}),
  };
}

function encodeCursor(offset: number): string {
  return btoa(JSON.stringify({ offset }));
}

function decodeCursor(cursor: unknown, length: number): number | undefined {
  if (typeof cursor !== "string" || cursor.length > 200) return undefined;
  try {
    const offset = (JSON.parse(atob(cursor)) as { offset?: unknown }).offset;
    return Number.isSafeInteger(offset) && (offset as number) >= 0 && (offset as number) < length
      ? (offset as number)
      : undefined;
  } catch {
    return undefined;
  }
}
