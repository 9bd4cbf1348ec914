/**
 * The `subscriptions/listen` streams of one connection (2026-07-28): which are open, what acknowledges one,
 * what a changed tool list sends on each, and the final result each gets when the session ends.
 * @module
 */
import { errorResponse, type JsonRpcId, notification, resultResponse, RpcErrorCode } from "../json_rpc.ts";
import { isRecord } from "../../json.ts";

/** Open subscriptions per connection; one more is refused. */
export const MAX_SUBSCRIPTIONS = 16;

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/**
 * One connection's subscriptions. Each is keyed by its request id, which tags every message sent on it.
 *
 * @example
 * ```ts
 * declare function send(message: Record<string, unknown>): void;
 *
 * const subscriptions = new Subscriptions(true);
 * send(subscriptions.open(7, { notifications: { toolsListChanged: true } }));
 * for (const message of subscriptions.toolsChanged()) send(message);
 * ```
 */
export class Subscriptions {
  readonly #ids = new Set<JsonRpcId>();
  readonly #toolsCanChange: boolean;

  /** `toolsCanChange`: whether the tool list can change at all (only then is `toolsListChanged` honoured). */
  constructor(toolsCanChange: boolean) {
    this.#toolsCanChange = toolsCanChange;
  }

  /** How many are open. */
  get count(): number {
    return this.#ids.size;
  }

  /** Whether `id` names an open subscription. */
  has(id: JsonRpcId): boolean {
    return this.#ids.has(id);
  }

  /** Opens one: the acknowledgement to send first (with the honoured subset), or the error answering it. */
  open(id: JsonRpcId, params: Record<string, unknown> | undefined): Record<string, unknown> {
    const wanted = params?.notifications;
    if (!isRecord(wanted)) {
      return errorResponse(id, {
        code: RpcErrorCode.INVALID_PARAMS,
        message: "Invalid params: notifications must be an object",
      });
    }
    if (this.#ids.size >= MAX_SUBSCRIPTIONS) {
      return errorResponse(id, {
        code: RpcErrorCode.INVALID_PARAMS,
        message: `Invalid params: at most ${MAX_SUBSCRIPTIONS} subscriptions per connection are open at once`,
      });
    }
    // Only a changing tool list has anything to tell; prompts and resources are not served.
    const honoured = wanted.toolsListChanged === true && this.#toolsCanChange
      ? { toolsListChanged: true }
      : {};
    this.#ids.add(id);
    return notification("notifications/subscriptions/acknowledged", {
      _meta: { [SUBSCRIPTION_ID]: id },
      notifications: honoured,
    });
  }

  /** Ends one the client cancelled: nothing more is sent on it, not even a result. Whether it was open. */
  cancel(id: JsonRpcId): boolean {
    return this.#ids.delete(id);
  }

  /** What each open subscription is sent when the tool list changed. */
  toolsChanged(): Array<Record<string, unknown>> {
    return [...this.#ids].map((id) =>
      notification("notifications/tools/list_changed", { _meta: { [SUBSCRIPTION_ID]: id } })
    );
  }

  /** The final results of every open subscription, as the session ends; they are closed then. */
  end(serverMeta: Record<string, unknown>): Array<Record<string, unknown>> {
    const results = [...this.#ids].map((id) =>
      resultResponse(id, { resultType: "complete", _meta: { ...serverMeta, [SUBSCRIPTION_ID]: id } })
    );
    this.#ids.clear();
    return results;
  }
}
