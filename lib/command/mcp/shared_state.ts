import type { SharedState, StateStore } from "../contract/state_store.ts";
import { ConfirmationStates } from "./confirmation_state.ts";

/**
 * The confirmations of a server with this shared state: with a secret, states any instance accepts once,
 * their nonces redeemed in the shared store (or `local`, the tool's state directory, which the processes of
 * one host share; without either, in this process, which then accepts only the states it issued itself);
 * without a secret, a key and nonces of this process alone.
 *
 * @example
 * ```ts
 * import type { StateStore } from "../contract/state_store.ts";
 *
 * declare const local: StateStore;
 * const states = sharedConfirmations({}, () => local); // per process: `local` is never used
 * ```
 */
export function sharedConfirmations(
  shared: SharedState,
  local: (() => StateStore) | undefined,
): ConfirmationStates {
  const secret = shared.confirmationSecret;
  if (secret === undefined) return new ConfirmationStates();
  const nonces = shared.store ?? local?.();
  return new ConfirmationStates(nonces === undefined ? { secret } : { secret, nonces });
}

/**
 * Settles when the store answers a read, rejects with its `StateStoreUnavailableError` when it cannot be
 * reached: what a destructive call waits on before it runs in a fleet.
 *
 * @example
 * ```ts
 * import type { StateStore } from "../contract/state_store.ts";
 *
 * declare const shared: StateStore;
 * await storeAnswers(shared); // throws while Redis is down
 * ```
 */
export async function storeAnswers(store: StateStore): Promise<void> {
  await store.read("ready");
}
