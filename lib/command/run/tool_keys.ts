import type { ToolHost } from "../contract/tool_host.ts";
import type { IdempotencyKeys } from "./idempotency_record.ts";
import { IdempotencyStore } from "./idempotency_store.ts";
import { SharedIdempotencyStore } from "./shared_idempotency_store.ts";
import type { StateStore } from "../contract/state_store.ts";

/**
 * Where a tool's idempotency keys live: in `store` when its instances share one, else in its state directory.
 *
 * @example
 * ```ts
 * import type { ToolHost } from "../contract/tool_host.ts";
 *
 * declare const tool: ToolHost;
 * const keys = toolKeys(tool, tool.sharedState?.store);
 * ```
 */
export function toolKeys(
  tool: Pick<ToolHost, "stateDir" | "idempotencyLifetimeSeconds">,
  store: StateStore | undefined,
): IdempotencyKeys {
  const lifetime = { lifetimeSeconds: tool.idempotencyLifetimeSeconds };
  return store === undefined
    ? new IdempotencyStore(tool.stateDir(), lifetime)
    : new SharedIdempotencyStore(store, { ...lifetime, prefix: "idempotency:" });
}
