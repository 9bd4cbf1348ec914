/**
 * A legacy 2025-03-26 batch (docs/mcp_wire.md#batches): its messages start in order, each request in a slot
 * of its own held while it runs, so a batch never runs more requests at once than the bound allows; the
 * answers come back as one array once every one is in. Which era takes a batch is era.ts's to say.
 *
 * A batch is bounded twice (docs/limits.md): in messages, checked before any runs, and in the text of its
 * answer, which is held until the last answer is in. It starts its messages a few at a time between turns
 * of the event loop, so that other clients are answered while a big batch starts.
 * @module
 */
import type { InFlight } from "../in_flight.ts";
import {
  classifyMessage,
  type IncomingMessage,
  type JsonRpcId,
  type RpcError,
  RpcErrorCode,
} from "../json_rpc.ts";
import { errorReply, type Reply } from "./reply.ts";

/**
 * The most messages one batch may hold; a bigger batch is refused whole, with nothing run.
 *
 * @example
 * ```ts
 * MAX_BATCH_MESSAGES; // 1000
 * ```
 */
export const MAX_BATCH_MESSAGES = 1000;

/**
 * The most JSON text (in UTF-16 code units) a batch's answers may hold together. Past it, a request that
 * has not started is not run, and an answer that would not fit is dropped; each gets a short error instead.
 *
 * @example
 * ```ts
 * MAX_BATCH_ANSWER_CHARS; // 16777216
 * ```
 */
export const MAX_BATCH_ANSWER_CHARS = 16 * 1024 * 1024;

/** Messages started in one turn of the event loop. */
const MESSAGES_PER_TURN = 64;

/**
 * The error of a batch holding more than {@link MAX_BATCH_MESSAGES} messages, or `undefined`.
 *
 * @example
 * ```ts
 * batchSizeError(1001)?.message; // "Invalid request: a batch holds at most 1000 messages; this one holds 1001"
 * batchSizeError(3); // undefined
 * ```
 */
export function batchSizeError(size: number): RpcError | undefined {
  if (size <= MAX_BATCH_MESSAGES) return undefined;
  return {
    code: RpcErrorCode.INVALID_REQUEST,
    message: `Invalid request: a batch holds at most ${MAX_BATCH_MESSAGES} messages; this one holds ${size}`,
  };
}

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
 *   item: (_message, { respond }) => void respond(undefined),
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
   * Starts one message of the batch, as if it came alone. Returns a promise while it waits for a slot.
   */
  item(message: IncomingMessage, item: BatchItem): Promise<void> | undefined;
  /** The batch's answers, in order, once every one is in; empty when none of its messages is answered. */
  answer(replies: Reply[]): void;
}

/**
 * One message of a batch, as its session sees it.
 *
 * @example
 * ```ts
 * const item: BatchItem = { respond: (reply) => console.log(reply?.pieces.join("")), starting: () => true };
 * ```
 */
export interface BatchItem {
  /** Takes the message's answer (`undefined`: none). */
  respond(reply: Reply | undefined): void;
  /**
   * Asked as a request is about to run, once it has its slot: `false` when it must not, the batch's answer
   * having no room left; the batch then answers it itself.
   */
  starting(): boolean;
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
  const answer = new AnswerRoom();
  for (let index = 0; index < items.length; index++) {
    if (host.stopped()) break;
    if (index > 0 && index % MESSAGES_PER_TURN === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    const message = classifyMessage(items[index]);
    const id = message.kind === "request" ? message.id : undefined;
    if (id !== undefined && answer.full) {
      replies.push(Promise.resolve(overBound(id, false)));
      continue;
    }
    let respond!: (reply: Reply | undefined) => void;
    replies.push(new Promise((resolve) => (respond = resolve)));
    const waiting = host.item(message, {
      respond: (reply) => respond(answer.take(reply, id)),
      starting: () => {
        if (!answer.full) return true;
        respond(overBound(id ?? null, false));
        return false;
      },
    });
    if (waiting !== undefined) await waiting;
  }
  void Promise.all(replies).then((all) => {
    host.answer(all.filter((reply): reply is Reply => reply !== undefined));
    settle();
  });
}

/** What the batch's answers hold so far, against {@link MAX_BATCH_ANSWER_CHARS}. */
class AnswerRoom {
  #chars = 0;
  /** An answer did not fit: no more requests start. */
  full = false;

  /** The reply to keep for a message: its own while it fits, else the error that says it ran. */
  take(reply: Reply | undefined, id: JsonRpcId | undefined): Reply | undefined {
    if (reply === undefined) return undefined;
    let chars = 0;
    for (const piece of reply.pieces) chars += piece.length;
    if (this.#chars + chars <= MAX_BATCH_ANSWER_CHARS) {
      this.#chars += chars;
      return reply;
    }
    this.full = true;
    return overBound(id ?? null, true);
  }
}

/** A request's error for an answer the batch has no room for, saying whether it ran. */
function overBound(id: JsonRpcId | null, ran: boolean): Reply {
  const limit = `the batch's answer reached its bound (${MAX_BATCH_ANSWER_CHARS} characters)`;
  return errorReply(id, {
    code: RpcErrorCode.INTERNAL_ERROR,
    message: ran
      ? `Internal error: this request ran, but ${limit} and its answer was dropped; send it alone`
      : `Internal error: this request was not run: ${limit}; send it again, alone or in a smaller batch`,
    data: { ran },
  });
}
