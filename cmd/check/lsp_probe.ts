/**
 * Just enough of a Language Server Protocol client to check a server from outside: `initialize` first (its
 * response must be the first response on stdout; the server may send notifications before it), then the
 * `initialized` notification; a body that is not JSON and a header without a usable Content-Length, each to
 * be answered with a JSON-RPC error (id null, or -32700 Parse error); and a request every server answers,
 * if only with -32601 Method not found.
 */
import { BAD_HEADER, FramedWire, NOT_JSON } from "./framed_wire.ts";
import { clip } from "./evidence.ts";
import type { FramedProbe, Seen } from "./probe.ts";
import type { ServerSession } from "./server_session.ts";
import { isRecord } from "../../lib/bridge/mod.ts";

const CLIENT_INFO = { name: "toolwire-check", version: "1.0.0" };
/** A method no server implements: `$/` requests a server does not know must be answered -32601. */
const PING_METHOD = "$/toolwire-check/ping";
const PARSE_ERROR = -32700;

/** An LSP conversation over a {@linkcode ServerSession} read as Content-Length frames. */
export class LspProbe implements FramedProbe {
  readonly #wire: FramedWire;
  #nextId = 1;

  constructor(session: ServerSession, timeoutMs: number) {
    this.#wire = new FramedWire(session, timeoutMs, jsonRpcProblem);
  }

  /** See {@linkcode FramedWire.impurity}. */
  get impurity(): string | undefined {
    return this.#wire.impurity;
  }

  /** See {@linkcode FramedWire.lost}. */
  get lost(): boolean {
    return this.#wire.lost;
  }

  /** Sends `initialize`; ok when the first response answers it with capabilities. */
  async open(): Promise<Seen> {
    const id = this.#id();
    await this.#wire.send({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { processId: null, clientInfo: CLIENT_INFO, rootUri: null, capabilities: {} },
    });
    const first = await this.#wire.until(isResponse);
    if (first === undefined) return { ok: false, note: "no response to initialize" };
    if (first.id !== id || !isRecord(first.result) || !isRecord(first.result.capabilities)) {
      return {
        ok: false,
        note: `the first response does not answer initialize with capabilities: ${
          clip(JSON.stringify(first))
        }`,
      };
    }
    await this.#wire.send({ jsonrpc: "2.0", method: "initialized", params: {} });
    return { ok: true, note: "the first response answers initialize" };
  }

  /** Sends a frame whose body is not JSON, then a request; ok when the first gets an error, the second an answer. */
  async malformed(): Promise<Seen> {
    await this.#wire.send(NOT_JSON);
    const error = await this.#wire.until(isErrorAnswer);
    if (error === undefined) {
      return { ok: false, note: "no error response (id null or -32700) to a frame whose body is not JSON" };
    }
    const answered = `answered a body that is not JSON with error ${errorCode(error)}`;
    return (await this.ping())
      ? { ok: true, note: `${answered}, then answered a request` }
      : { ok: false, note: `${answered}, then stopped answering` };
  }

  /** Sends a header block without a usable Content-Length; ok when an error response comes back. */
  async badFraming(): Promise<Seen> {
    await this.#wire.sendRaw(BAD_HEADER);
    const error = await this.#wire.until(isErrorAnswer);
    return error === undefined
      ? {
        ok: false,
        note: "no error response (id null or -32700) to a header without a usable Content-Length",
      }
      : {
        ok: true,
        note: `answered a header without a usable Content-Length with error ${errorCode(error)}`,
      };
  }

  /** Sends a request for a method no server has; any response to it counts. */
  async ping(): Promise<boolean> {
    const id = this.#id();
    await this.#wire.send({ jsonrpc: "2.0", id, method: PING_METHOD });
    return (await this.#wire.until((message) => isResponse(message) && message.id === id)) !== undefined;
  }

  #id(): number {
    return this.#nextId++;
  }
}

function jsonRpcProblem(value: unknown): string | undefined {
  return isRecord(value) && value.jsonrpc === "2.0"
    ? undefined
    : "a frame's body is not a JSON-RPC 2.0 message";
}

function isResponse(message: Record<string, unknown>): boolean {
  return "id" in message && !("method" in message) && ("result" in message || "error" in message);
}

/** The answer to input that cannot be read: an error response without an id to give, or a parse error. */
function isErrorAnswer(message: Record<string, unknown>): boolean {
  return isResponse(message) && isRecord(message.error) &&
    (message.id === null || message.error.code === PARSE_ERROR);
}

function errorCode(message: Record<string, unknown>): string {
  return isRecord(message.error) ? String(message.error.code) : "?";
}
