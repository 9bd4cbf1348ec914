/**
 * A small Debug Adapter Protocol client for tests, typed with @vscode/debugprotocol: it numbers its requests,
 * matches responses by `request_seq`, and keeps events until a test asks for them. Every message the adapter
 * wrote is kept in arrival order in {@linkcode DapClient.seen}.
 */
import type { DebugProtocol } from "@vscode/debugprotocol";

/** Where the client reads the adapter's messages and writes its own: a FramedPeer or an InMemoryPeer. */
export interface MessagePeer {
  send(message: object | string): void;
  next(timeoutMs?: number): Promise<unknown>;
}

/** A DAP client over a framed peer. */
export class DapClient {
  /** Every message read from the adapter, in order. */
  readonly seen: DebugProtocol.ProtocolMessage[] = [];
  readonly #peer: MessagePeer;
  readonly #inbox: DebugProtocol.ProtocolMessage[] = [];
  #seq = 1;

  constructor(peer: MessagePeer) {
    this.#peer = peer;
  }

  /** Sends a request without waiting; returns its seq. */
  send(command: string, args?: object): number {
    const request: DebugProtocol.Request = {
      seq: this.#seq++,
      type: "request",
      command,
      ...(args ? { arguments: args } : {}),
    };
    this.#peer.send(request);
    return request.seq;
  }

  /** Sends a request and resolves with its response. */
  async request<R extends DebugProtocol.Response = DebugProtocol.Response>(
    command: string,
    args?: object,
  ): Promise<R> {
    return await this.response<R>(this.send(command, args));
  }

  /** The response to the request with this seq. */
  async response<R extends DebugProtocol.Response = DebugProtocol.Response>(seq: number): Promise<R> {
    return (await this.#take((message) =>
      message.type === "response" && (message as DebugProtocol.Response).request_seq === seq
    )) as R;
  }

  /** The next event of this name. */
  async event<E extends DebugProtocol.Event = DebugProtocol.Event>(name: string): Promise<E> {
    return (await this.#take((message) =>
      message.type === "event" && (message as DebugProtocol.Event).event === name
    )) as E;
  }

  /** The next message, whatever it is: for tests that check the order of the wire. */
  async next(): Promise<DebugProtocol.ProtocolMessage> {
    return await this.#take(() => true);
  }

  async #take(
    wanted: (message: DebugProtocol.ProtocolMessage) => boolean,
  ): Promise<DebugProtocol.ProtocolMessage> {
    const kept = this.#inbox.findIndex(wanted);
    if (kept !== -1) return this.#inbox.splice(kept, 1)[0]!;
    for (;;) {
      const message = (await this.#peer.next()) as DebugProtocol.ProtocolMessage;
      this.seen.push(message);
      if (wanted(message)) return message;
      this.#inbox.push(message);
    }
  }
}
