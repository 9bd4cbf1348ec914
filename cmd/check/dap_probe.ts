/**
 * Just enough of a Debug Adapter Protocol client to check an adapter from outside: `initialize` first (its
 * response must be the first response on stdout; events may come before it), a body that is not JSON and a
 * header without a usable Content-Length — each to be answered inside the protocol, with an `output` event or
 * a failed response, since a message without a readable `seq` has nothing to respond to — and `threads`, a
 * request every adapter answers, if only with `success: false`.
 */
import { BAD_HEADER, FramedWire, NOT_JSON } from "./framed_wire.ts";
import { clip } from "./evidence.ts";
import type { FramedProbe, Seen } from "./probe.ts";
import type { ServerSession } from "./server_session.ts";
import { isRecord } from "../../lib/bridge/mod.ts";

const INITIALIZE_ARGUMENTS = {
  clientID: "toolwire-check",
  clientName: "toolwire check",
  adapterID: "toolwire-check",
  pathFormat: "path",
  linesStartAt1: true,
  columnsStartAt1: true,
};

/** A DAP conversation over a {@linkcode ServerSession} read as Content-Length frames. */
export class DapProbe implements FramedProbe {
  readonly #wire: FramedWire;
  #seq = 1;

  constructor(session: ServerSession, timeoutMs: number) {
    this.#wire = new FramedWire(session, timeoutMs, dapProblem);
  }

  /** See {@linkcode FramedWire.impurity}. */
  get impurity(): string | undefined {
    return this.#wire.impurity;
  }

  /** See {@linkcode FramedWire.lost}. */
  get lost(): boolean {
    return this.#wire.lost;
  }

  /** Sends `initialize`; ok when the first response is its successful response. */
  async open(): Promise<Seen> {
    const seq = await this.#request("initialize", INITIALIZE_ARGUMENTS);
    const first = await this.#wire.until((message) => message.type === "response");
    if (first === undefined) return { ok: false, note: "no response to initialize" };
    if (first.request_seq !== seq || first.command !== "initialize" || first.success !== true) {
      return {
        ok: false,
        note: `the first response is not initialize's successful response: ${clip(JSON.stringify(first))}`,
      };
    }
    return { ok: true, note: "the first response answers initialize" };
  }

  /** Sends a frame whose body is not JSON, then a request; ok when the first is reported, the second answered. */
  async malformed(): Promise<Seen> {
    await this.#wire.send(NOT_JSON);
    const complaint = await this.#wire.until(isComplaint);
    if (complaint === undefined) {
      return { ok: false, note: "no output event or failed response to a frame whose body is not JSON" };
    }
    const answered = `answered a body that is not JSON with ${describe(complaint)}`;
    return (await this.ping())
      ? { ok: true, note: `${answered}, then answered a request` }
      : { ok: false, note: `${answered}, then stopped answering` };
  }

  /** Sends a header block without a usable Content-Length; ok when an output event or failed response comes. */
  async badFraming(): Promise<Seen> {
    await this.#wire.sendRaw(BAD_HEADER);
    const complaint = await this.#wire.until(isComplaint);
    return complaint === undefined
      ? { ok: false, note: "no output event or failed response to a header without a usable Content-Length" }
      : { ok: true, note: `answered a header without a usable Content-Length with ${describe(complaint)}` };
  }

  /** Sends `threads`; any response to it counts. */
  async ping(): Promise<boolean> {
    const seq = await this.#request("threads");
    return (await this.#wire.until((message) =>
      message.type === "response" && message.request_seq === seq
    )) !== undefined;
  }

  async #request(command: string, args?: Record<string, unknown>): Promise<number> {
    const seq = this.#seq++;
    await this.#wire.send({
      seq,
      type: "request",
      command,
      ...(args === undefined ? {} : { arguments: args }),
    });
    return seq;
  }
}

function dapProblem(value: unknown): string | undefined {
  const ok = isRecord(value) && typeof value.seq === "number" &&
    ["request", "response", "event"].includes(value.type as string);
  return ok ? undefined : "a frame's body is not a DAP message (seq, and type request, response or event)";
}

/** How an adapter reports input it cannot read: an `output` event, or a failed response. */
function isComplaint(message: Record<string, unknown>): boolean {
  return (message.type === "event" && message.event === "output") ||
    (message.type === "response" && message.success === false);
}

function describe(message: Record<string, unknown>): string {
  return message.type === "event" ? "an output event" : "a failed response";
}
