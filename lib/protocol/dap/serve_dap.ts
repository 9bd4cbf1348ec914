/**
 * The Debug Adapter Protocol session over stdio (DAP "Base Protocol", "Overview: Initialization" and
 * "Debug session end"), one rule at a time:
 * - Framing: Content-Length headers, bodies are JSON objects. The client sends `{seq, type: "request",
 *   command, arguments}`; the adapter answers `{seq, type: "response", request_seq, success, command,
 *   message?, body?}` and sends events `{seq, type: "event", event, body?}`, numbering its own messages 1, 2, …
 * - A message that is not a readable request is never fatal: when its `seq` can be read it gets a failed
 *   response, otherwise an `output` event with category `stderr` says what was wrong. An oversized body is
 *   skipped and handled the same way from its first bytes. A header block without a usable Content-Length
 *   loses the message boundary: an `output` event, then the session ends with exit 1
 *   ({@linkcode ProtocolEndCode.FRAMING_ERROR}).
 * - `initialize` comes first and once: its response carries the capabilities, then the `initialized` event
 *   follows. Any other request before it fails.
 * - `disconnect` aborts the requests in progress, runs the disconnect hook, answers, sends `terminated`, and
 *   ends the session cleanly (exit 0). stdin EOF ends it cleanly too, once the requests in progress are answered.
 * - `cancel` aborts the request named by `requestId`, which is answered at once with success false and
 *   message "cancelled"; the handler's late result is dropped. Unknown commands fail with a message.
 * - Requests run concurrently, up to a bound; each message is written whole, never interleaved. Responses
 *   from the client (to reverse requests) match nothing the adapter sent and are ignored.
 */
import type { ProtocolFailure, ProtocolIO } from "../protocol_io.ts";
import { type ContentLengthFramerOptions, encodeContentLength } from "../../framing/content_length_framer.ts";
import {
  ContentLengthServer,
  errorText,
  type FrameAnswers,
  type FrameOutcome,
  frameResponse,
} from "../content_length_server.ts";
import { whenSettled } from "../in_flight.ts";
import { peekTopLevelMembers } from "../peek_members.ts";
import { decodeJson } from "../json_rpc.ts";

/**
 * What a DAP handler receives besides the arguments.
 *
 * @example
 * ```ts
 * const next: DapRequestHandler = async (_args, { sendEvent }) => {
 *   await sendEvent("stopped", { reason: "step", threadId: 1 });
 * };
 * ```
 */
export interface DapContext {
  /** Fires when the client cancels this request (`cancel`), disconnects, or the session ends. */
  signal: AbortSignal;
  /** Sends an event to the client, e.g. `stopped` or `output`. Throws when `body` cannot be serialised. */
  sendEvent(event: string, body?: object): Promise<void>;
  /** A diagnostic line for people, on stderr (stdout carries the protocol only). */
  log(message: string): void;
}

/**
 * Answers one request with its response `body` (`undefined` for none); throw to fail it — the error's message
 * becomes the response's `message`. `args` is the request's `arguments` as sent: an object, or `undefined`.
 *
 * @example
 * ```ts
 * const evaluate: DapRequestHandler = (args) => {
 *   const { expression } = args as { expression: string };
 *   if (expression === "") throw new Error("nothing to evaluate");
 *   return { result: expression, variablesReference: 0 };
 * };
 * ```
 */
export type DapRequestHandler = (args: unknown, context: DapContext) => unknown;

/**
 * What a debug adapter answers. `initialize`, `disconnect` and `cancel` are handled by {@linkcode serveDap};
 * give the other requests by command name.
 *
 * @example
 * ```ts
 * const handlers: DapHandlers = {
 *   initialize: () => ({ supportsConfigurationDoneRequest: true }),
 *   requests: { launch: () => undefined, threads: () => ({ threads: [{ id: 1, name: "main" }] }) },
 * };
 * ```
 */
export interface DapHandlers {
  /** Answers `initialize` with the adapter's capabilities (DAP `Capabilities`). */
  initialize(args: unknown, context: DapContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Request handlers by command, e.g. `launch`, `threads`, `stackTrace`. */
  requests?: Readonly<Record<string, DapRequestHandler>>;
  /** Runs on `disconnect`, before it is answered: end the debuggee, release what the adapter holds. */
  disconnect?(args: unknown, context: DapContext): void | Promise<void>;
}

/**
 * Options for {@linkcode serveDap}: the framer's limits, and how many requests run at once.
 *
 * @example
 * ```ts
 * import type { ProtocolIO } from "@toolwire/toolwire";
 *
 * declare const io: ProtocolIO;
 * declare const handlers: DapHandlers;
 * await serveDap(io, handlers, { maxMessageBytes: 8 << 20, maxInFlight: 16 });
 * ```
 */
export interface DapOptions extends ContentLengthFramerOptions {
  /** Requests handled at once; at the bound, reading pauses until one is answered. @default 64 */
  maxInFlight?: number;
}

/**
 * Serves the Debug Adapter Protocol on a protocol command's stdin and stdout until the client ends the
 * session. Resolves `undefined` after `disconnect` or stdin EOF (exit 0, no envelope), or a
 * {@linkcode ProtocolFailure} with exit code 1 for input that cannot be framed. See the module comment for
 * every rule.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * declare const handlers: DapHandlers;
 * const tool = createTool({ name: "dbg", version: "1.0.0", description: "A debugger" });
 * tool.command("debug-adapter", {
 *   description: "Serve the Debug Adapter Protocol over stdio",
 *   danger_level: "safe",
 *   required_scopes: [],
 *   stdout: "protocol",
 *   protocol: "dap",
 *   exit_codes: {
 *     "0": {
 *       name: "SUCCESS",
 *       description: "disconnect, or stdin closed",
 *       retryable: false,
 *       side_effects: "none",
 *     },
 *   },
 *   serve: () => (io) => serveDap(io, handlers),
 * });
 * ```
 */
export async function serveDap(
  io: ProtocolIO,
  handlers: DapHandlers,
  options: DapOptions = {},
): Promise<void | ProtocolFailure> {
  return await new DapServer(io, handlers, options).run();
}

/** A request as it was read, before its command is known to be served. */
interface DapRequest {
  seq: number;
  command: string;
  args: unknown;
}

type DapResponse = { success: true; body: unknown } | { success: false; message: string };

class DapServer {
  readonly #io: ProtocolIO;
  readonly #handlers: DapHandlers;
  /** Its `ended` is the signal of the initialize and disconnect handlers. */
  readonly #loop: ContentLengthServer<number>;
  /** The command of each request in progress, for the response a `cancel` gives it. */
  readonly #commands = new Map<number, string>();
  #seq = 0;
  #initialized = false;

  constructor(io: ProtocolIO, handlers: DapHandlers, options: DapOptions) {
    this.#io = io;
    this.#handlers = handlers;
    this.#loop = new ContentLengthServer(io, "dap", options);
  }

  run(): Promise<void | ProtocolFailure> {
    const answers: FrameAnswers = {
      name: "dap",
      message: (bytes) => this.#onMessage(bytes),
      oversized: (head, problem) => {
        const { seq, type, command } = peekTopLevelMembers(head, ["seq", "type", "command"]);
        if (type !== "request" || !isSeq(seq)) return this.#output(problem);
        const name = typeof command === "string" ? command : "";
        return this.#respond(seq, name, { success: false, message: problem });
      },
      framingLost: (problem) => this.#output(`${problem}, so the session ends`),
    };
    return this.#loop.run(answers);
  }

  async #onMessage(bytes: Uint8Array): Promise<FrameOutcome> {
    const decoded = decodeJson(bytes);
    if (!decoded.ok) {
      await this.#output(decoded.error.message);
      return undefined;
    }
    const request = await this.#readRequest(decoded.value);
    if (request === undefined) return undefined;
    return await this.#onRequest(request);
  }

  /** The request in a message, or `undefined` once what was wrong with it has been reported. */
  async #readRequest(value: unknown): Promise<DapRequest | undefined> {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      await this.#output("a DAP message is a JSON object");
      return undefined;
    }
    const message = value as Record<string, unknown>;
    // The adapter sends no reverse requests, so a response from the client answers nothing.
    if (message.type === "response") return undefined;
    const command = typeof message.command === "string" ? message.command : "";
    if (!isSeq(message.seq)) {
      await this.#output(
        `a DAP message needs seq, an integer from 0 to 2^53 - 1; got ${shown(message.seq)}`,
      );
      return undefined;
    }
    let problem: string | undefined;
    if (message.type !== "request") {
      problem = `a client sends requests only; got type ${JSON.stringify(message.type) ?? "none"}`;
    } else if (typeof message.command !== "string") problem = "a request needs a command string";
    else if (message.arguments !== undefined && !isObject(message.arguments)) {
      problem = "arguments must be an object";
    }
    if (problem === undefined) return { seq: message.seq, command, args: message.arguments };
    await this.#respond(message.seq, command, { success: false, message: problem });
    return undefined;
  }

  async #onRequest(request: DapRequest): Promise<FrameOutcome> {
    const { seq, command } = request;
    if (command === "initialize") {
      await this.#initialize(request);
      return undefined;
    }
    if (!this.#initialized) {
      await this.#respond(seq, command, { success: false, message: `send initialize before ${command}` });
      return undefined;
    }
    if (command === "disconnect") return { end: await this.#disconnect(request) };
    if (command === "cancel") {
      await this.#cancel(request);
      return undefined;
    }
    const handler = this.#handlers.requests !== undefined && Object.hasOwn(this.#handlers.requests, command)
      ? this.#handlers.requests[command]
      : undefined;
    if (handler === undefined) {
      await this.#respond(seq, command, { success: false, message: `unrecognized request '${command}'` });
      return undefined;
    }
    if (this.#loop.requests.has(seq)) {
      await this.#respond(seq, command, {
        success: false,
        message: `seq ${seq} belongs to a request still in progress`,
      });
      return undefined;
    }
    const requests = this.#loop.requests;
    this.#commands.set(seq, command);
    await requests.start(
      seq,
      whenSettled(async (scope) => {
        const response = await settle(() => handler(request.args, this.#context(scope.signal)));
        if (requests.claim(seq)) await this.#respond(seq, command, response);
        this.#commands.delete(seq);
      }),
    );
    return undefined;
  }

  async #initialize({ seq, args }: DapRequest): Promise<void> {
    if (this.#initialized) {
      return await this.#respond(seq, "initialize", {
        success: false,
        message: "initialize may be sent only once",
      });
    }
    const context = this.#context(this.#loop.ended.signal);
    const response = await settle(() => this.#handlers.initialize(args, context));
    await this.#respond(seq, "initialize", response);
    if (!response.success) return;
    this.#initialized = true;
    // DAP: the initialized event comes after the initialize response, announcing configuration requests.
    await this.#event("initialized");
  }

  async #disconnect({ seq, args }: DapRequest): Promise<undefined> {
    this.#loop.requests.abortAll(new DOMException("The client disconnected", "AbortError"));
    const context = this.#context(this.#loop.ended.signal);
    const response = await settle(() => this.#handlers.disconnect?.(args, context));
    await this.#respond(seq, "disconnect", response);
    await this.#event("terminated");
    return undefined;
  }

  async #cancel({ seq, args }: DapRequest): Promise<void> {
    const target = (args as { requestId?: unknown } | undefined)?.requestId;
    const command = isSeq(target) ? this.#commands.get(target) : undefined;
    const cancelled = command !== undefined &&
      this.#loop.requests.cancel(
        target as number,
        new DOMException("The client cancelled the request", "AbortError"),
      );
    // DAP: the cancelled request is answered first, with the predefined message "cancelled".
    if (cancelled) {
      await this.#respond(target as number, command, { success: false, message: "cancelled" });
    }
    await this.#respond(seq, "cancel", { success: true, body: undefined });
  }

  #respond(requestSeq: number, command: string, response: DapResponse): Promise<void> {
    const head = { type: "response", request_seq: requestSeq, command };
    const message = response.success
      ? { ...head, success: true, ...(response.body === undefined ? {} : { body: response.body }) }
      : { ...head, success: false, message: response.message };
    const bytes = frameResponse(
      (framed: Record<string, unknown>) => this.#frame(framed),
      message,
      (reason) => ({ ...head, success: false, message: `the response body ${reason}` }),
    );
    return this.#loop.send(bytes);
  }

  #event(event: string, body?: object): Promise<void> {
    const message = { type: "event", event, ...(body === undefined ? {} : { body }) };
    return this.#loop.send(this.#frame(message));
  }

  #output(problem: string): Promise<void> {
    return this.#event("output", { category: "stderr", output: `dap: ${problem}\n` });
  }

  /** Numbers and frames one message; the number is taken only once the message is known to serialise. */
  #frame(message: Record<string, unknown>): Uint8Array {
    const text = JSON.stringify({ seq: this.#seq + 1, ...message });
    this.#seq++;
    return encodeContentLength(text);
  }

  #context(signal: AbortSignal): DapContext {
    return {
      signal,
      sendEvent: (event, body) => this.#event(event, body),
      log: (message) => this.#io.log(message),
    };
  }
}

/** Runs a handler and turns its outcome into a response. */
async function settle(call: () => unknown): Promise<DapResponse> {
  try {
    return { success: true, body: await call() };
  } catch (error) {
    return { success: false, message: errorText(error) };
  }
}

/** A received value for a message; a number too large for a double parsed as Infinity is named so, not null. */
function shown(value: unknown): string {
  return typeof value === "number" ? String(value) : JSON.stringify(value) ?? "none";
}

function isSeq(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
