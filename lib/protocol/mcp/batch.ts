/**
 * A legacy 2025-03-26 batch (docs/mcp_wire.md#batches): its messages start in order, each request in a slot
 * of its own held while it runs, so a batch never runs more requests at once than the bound allows; the
 * answers come back as one array once every one is in. Which era takes a batch is era.ts's to say.
 * @module
 */
import type { InFlight } from "../in_flight.ts";
import { classifyMessage, type IncomingMessage, type JsonRpcId } from "../json_rpc.ts";
import type { Reply } from "./reply.ts";

/**
 * What a batch needs of its session.
 *
 * @example
 * ```ts
 * import { InFlight } from "../in_flight.ts";
 *
 * const host: BatchHost = {
 *   requests: new InFlight(64),
 *   stopped: () => false,
 *   item: (_message, respond) => void respond(undefined),
 *   answer: (replies) => console.log(replies.length),
 * };
 * ```
 */
export interface BatchHost {
  /** The session's requests: the batch's answer is owed to them until it is given. */
  requests: InFlight<JsonRpcId>;
  /** Whether the session is stopping: no more of the batch starts. */
  stopped(): boolean;
  /**
   * Starts one message of the batch, as if it came alone; `respond` gets its answer (`undefined`: none).
   * Returns a promise while it waits for a slot.
   */
  item(message: IncomingMessage, respond: (reply: Reply | undefined) => void): Promise<void> | undefined;
  /** The batch's answers, in order, once every one is in; empty when none of its messages is answered. */
  answer(replies: Reply[]): void;
}

/**
 * Runs one batch; the promise settles once each of its messages has started.
 *
 * @example
 * ```ts
 * declare const host: BatchHost;
 * await runBatch([{ jsonrpc: "2.0", id: 1, method: "ping" }], host);
 * ```
 */
export async function runBatch(items: readonly unknown[], host: BatchHost): Promise<void> {
  // The batch's answer is owed from now on, so the end of the input waits for it.
  const settle = host.requests.owe();
  const replies: Array<Promise<Reply | undefined>> = [];
  for (const item of items) {
    if (host.stopped()) break;
    let respond!: (reply: Reply | undefined) => void;
    replies.push(new Promise((resolve) => (respond = resolve)));
    const waiting = host.item(classifyMessage(item), respond);
    if (waiting !== undefined) await waiting;
  }
  void Promise.all(replies).then((all) => {
    host.answer(all.filter((reply): reply is Reply => reply !== undefined));
    settle();
  });
}
