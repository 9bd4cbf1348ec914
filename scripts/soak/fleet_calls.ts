/**
 * Calls to a fleet through its balancer, as a 2026-07-28 client sends them (one POST per call, no session),
 * and the retrying keyed add of a client that repeats a failed call with the same idempotency key.
 */
import { INSTANCE_HEADER, sleep } from "./fleet_parts.ts";

/** A tool's envelope, as far as the fleet's checks read it. */
export interface Envelope {
  ok: boolean;
  // deno-lint-ignore no-explicit-any
  data: any;
  error: { code: string; retryable: boolean; message: string } | null;
  meta: { exit_code: number };
}

/** One call's answer: who answered, and the tool result (or why there was none). */
export interface CallAnswer {
  /** The instance the balancer sent it to ({@linkcode INSTANCE_HEADER}), when it said. */
  instance: string | undefined;
  /** The HTTP status; 0 when the connection failed. */
  status: number;
  /** The `tools/call` result, when the answer was one. */
  // deno-lint-ignore no-explicit-any
  result?: any;
  /** Its envelope, when the result was a completed call. */
  envelope?: Envelope;
  /** What went wrong below the tool: a network error, a balancer's 502, a JSON-RPC error. */
  failure?: string;
}

let nextId = 0;

/** A 2026-07-28 `tools/call` through `url`; `extra` goes into the params (`requestState`, `inputResponses`). */
export async function callTool(
  url: string,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<CallAnswer> {
  const body = {
    jsonrpc: "2.0",
    id: ++nextId,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
        "io.modelcontextprotocol/clientInfo": { name: "fleet", version: "1.0.0" },
      },
    },
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": name,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    return { instance: undefined, status: 0, failure: `no answer: ${(error as Error).message}` };
  }
  const instance = response.headers.get(INSTANCE_HEADER) ?? undefined;
  const text = await response.text().catch(() => "");
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return { instance, status: response.status, failure: `HTTP ${response.status}: ${text.slice(0, 200)}` };
  }
  if (message.error !== undefined) {
    return { instance, status: response.status, failure: `JSON-RPC error ${JSON.stringify(message.error)}` };
  }
  const result = message.result;
  const envelope = result?.resultType === "input_required" ? undefined : result?.structuredContent;
  return { instance, status: response.status, result, ...(envelope === undefined ? {} : { envelope }) };
}

/** How a keyed add ended, after its retries. */
export interface KeyedOutcome {
  /** `acknowledged`: a success (created or replayed); `unknown`: the fleet says it cannot know; `failed`: out of tries. */
  kind: "acknowledged" | "unknown" | "failed";
  /** Every answer, in order. */
  answers: CallAnswer[];
  /** How many answers were a success with `effect: "created"` (more than one is a key answered twice). */
  created: number;
  /** How many were the retryable refusal of a store that could not be reached. */
  storeRefusals: number;
}

/**
 * Adds a note titled `title` with idempotency key `key`, repeating the same call (same key) while the answer
 * is a failure that may be retried: no answer, a balancer's error, or a retryable refusal. Stops at success,
 * at IDEMPOTENCY_OUTCOME_UNKNOWN (the earlier try's instance died holding the key), or after `deadlineMs`.
 */
export async function keyedAdd(
  url: string,
  key: string,
  title: string,
  options: { deadlineMs?: number; pauseMs?: number; onAnswer?: (answer: CallAnswer) => void } = {},
): Promise<KeyedOutcome> {
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  const answers: CallAnswer[] = [];
  let created = 0;
  let storeRefusals = 0;
  for (;;) {
    const answer = await callTool(url, "add", { title, idempotency_key: key });
    answers.push(answer);
    options.onAnswer?.(answer);
    const envelope = answer.envelope;
    if (envelope?.ok === true) {
      if (envelope.data?.effect === "created") created++;
      return { kind: "acknowledged", answers, created, storeRefusals };
    }
    if (envelope?.error?.code === "STATE_STORE_UNAVAILABLE") storeRefusals++;
    if (envelope?.error?.code === "IDEMPOTENCY_OUTCOME_UNKNOWN") {
      return { kind: "unknown", answers, created, storeRefusals };
    }
    const retryable = envelope === undefined || envelope.error?.retryable === true;
    if (!retryable || Date.now() > deadline) return { kind: "failed", answers, created, storeRefusals };
    await sleep(options.pauseMs ?? 100);
  }
}

/** Runs `work` over `items` with at most `width` at once, keeping the order of the results. */
export async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
