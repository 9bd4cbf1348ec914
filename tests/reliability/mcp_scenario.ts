/**
 * Random MCP sessions and the invariants every session must keep, shared by the property tests that run
 * them against the real `notes mcp serve` process and against `serveMcp` in-process. A plan says what the
 * client writes (which requests, in which era, cut into which chunks, stopping where), and how it reads
 * (when it stops reading stdout for a while). The checker then compares what came back — every stdout
 * byte, the exit, and the notes that ended up in the store — with what was asked.
 */
import fc from "fast-check";
import { modernMeta } from "../helpers/mcp_wire.ts";

/** Which era the client speaks: modern `_meta` on every request, legacy `initialize`, or legacy with batches. */
export type Era = "modern" | "legacy" | "legacy-batch";

/** One step of the client. `glue` puts a request into the previous line's batch (legacy 2025-03-26 only). */
export type Op =
  | { kind: "add"; key: number | null; alt: boolean; body: number; glue: boolean }
  | { kind: "list"; glue: boolean }
  | { kind: "show"; id: number; glue: boolean }
  | { kind: "cancel"; target: number };

/** One write of the input: how many bytes, then how long to wait before the next. */
export interface Chunk {
  size: number;
  pauseMs: number;
}

/** When the client stops reading the server's output (once this many bytes have come), and for how long. */
export interface Stall {
  afterBytes: number;
  forMs: number;
}

/** Everything random about one session. */
export interface Plan {
  era: Era;
  /** `--max-in-flight`; null leaves the default. */
  maxInFlight: number | null;
  ops: Op[];
  /** Lines written before stdin is closed, modulo the line count plus one; null writes every line. */
  eof: number | null;
  chunks: Chunk[];
  stalls: Stall[];
  /** Milliseconds each handler run waits before its effect, cycled (used by the in-process variant). */
  delays: number[];
}

/** The largest pause of all writes of one session, in total, so that a session stays short. */
export const WRITE_PAUSE_BUDGET_MS = 200;

const glue = fc.integer({ min: 0, max: 9 }).map((n) => n < 6);

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      key: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null, freq: 2 }),
      alt: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
      body: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, {
        weight: 1,
        arbitrary: fc.integer({ min: 1, max: 60_000 }),
      }),
      glue,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("list" as const), glue }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("show" as const), id: fc.integer({ min: 1, max: 6 }), glue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), target: fc.nat() }) },
);

const chunk: fc.Arbitrary<Chunk> = fc.record({
  size: fc.oneof(
    fc.integer({ min: 1, max: 16 }),
    fc.integer({ min: 17, max: 4096 }),
    fc.integer({ min: 4097, max: 65_536 }),
  ),
  pauseMs: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 15 }),
  }),
});

/** Random plans. `maxOps` bounds the session's length. */
export function planArbitrary(maxOps = 50): fc.Arbitrary<Plan> {
  return fc.record({
    era: fc.constantFrom<Era>("modern", "legacy", "legacy-batch"),
    maxInFlight: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 3 }),
    ops: fc.array(op, { minLength: 1, maxLength: maxOps, size: "medium" }),
    eof: fc.option(fc.nat(), { nil: null, freq: 2 }),
    chunks: fc.array(chunk, { minLength: 1, maxLength: 12 }),
    stalls: fc.array(
      fc.record({
        afterBytes: fc.integer({ min: 0, max: 150_000 }),
        forMs: fc.integer({ min: 10, max: 250 }),
      }),
      {
        maxLength: 3,
      },
    ),
    delays: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 8 }),
  });
}

/**
 * Applies a plan's read stalls: told how many output bytes have arrived so far, it stops the reading at each
 * stall's mark and starts it again after the stall's time. `dispose` ends any stall at once.
 */
export class StallSchedule {
  readonly #pending: Stall[];
  readonly #pause: () => void;
  readonly #resume: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(stalls: Stall[], pause: () => void, resume: () => void) {
    this.#pending = [...stalls].sort((a, b) => a.afterBytes - b.afterBytes);
    this.#pause = pause;
    this.#resume = resume;
  }

  /** Output has reached `total` bytes. */
  seen(total: number): void {
    if (this.#timer !== undefined || this.#pending.length === 0 || this.#pending[0]!.afterBytes > total) {
      return;
    }
    const stall = this.#pending.shift()!;
    this.#pause();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#resume();
    }, stall.forMs);
  }

  dispose(): void {
    this.#pending.length = 0;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#resume();
  }
}

/** A request of the session, with what the checker needs to judge its answer. */
export interface SessionRequest {
  id: number | string;
  /** Index of the line that carries it. */
  line: number;
  method: string;
  /** The tool called, for `tools/call`. */
  tool?: "add" | "list" | "show";
  /** An add's title: unique per unkeyed add, shared by the calls of one key with the same arguments. */
  title?: string;
  /** An add's idempotency key. */
  key?: string;
  /** The line of the first `notifications/cancelled` naming it, if any. */
  cancelLine?: number;
}

/** The lines a plan writes, and its requests by id. */
export interface Session {
  era: Era;
  lines: string[];
  requests: Map<string, SessionRequest>;
  /** Lines actually written before stdin closes. */
  written: number;
}

const idKey = (id: unknown) => JSON.stringify(id);

/** The legacy version a plan's era opens with. */
function legacyVersion(era: Era): string {
  return era === "legacy-batch" ? "2025-03-26" : "2025-11-25";
}

/** Turns a plan into lines of JSON-RPC and the table of its requests. */
export function buildSession(plan: Plan): Session {
  const messages: Array<Record<string, unknown> | Array<Record<string, unknown>>> = [];
  const requests = new Map<string, SessionRequest>();
  const order: SessionRequest[] = [];
  const register = (request: SessionRequest) => {
    requests.set(idKey(request.id), request);
    order.push(request);
  };
  if (plan.era !== "modern") {
    register({ id: "init", line: 0, method: "initialize" });
    messages.push({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: {
        protocolVersion: legacyVersion(plan.era),
        capabilities: {},
        clientInfo: { name: "property", version: "1.0.0" },
      },
    });
    messages.push({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  let lastWasRequest = false;
  plan.ops.forEach((step, index) => {
    if (step.kind === "cancel") {
      const calls = order.filter((request) => request.method === "tools/call");
      lastWasRequest = false;
      if (calls.length === 0) return;
      const target = calls[step.target % calls.length]!;
      target.cancelLine ??= messages.length;
      messages.push({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: target.id, reason: "property test" },
      });
      return;
    }
    // Numbers and strings both, never equal as JSON: 1 and "r2" are different ids.
    const id = index % 2 === 0 ? index + 1 : `r${index + 1}`;
    const args: Record<string, unknown> = {};
    const request: SessionRequest = { id, line: 0, method: "tools/call", tool: step.kind };
    if (step.kind === "add") {
      if (step.key === null) {
        request.title = `add-${index}`;
        args.title = request.title;
        if (step.body > 0) args.body = "b".repeat(step.body);
      } else {
        request.key = `k${step.key}`;
        // The same key with other arguments (alt) is an idempotency conflict, never a second note.
        request.title = `key-${step.key}${step.alt ? "-alt" : ""}`;
        args.title = request.title;
        args.idempotency_key = request.key;
      }
    } else if (step.kind === "list") {
      args.limit = 5;
    } else {
      args.id = step.id;
    }
    const params = { name: step.kind, arguments: args };
    const message = plan.era === "modern"
      ? { jsonrpc: "2.0", id, method: "tools/call", params: { ...params, _meta: modernMeta() } }
      : { jsonrpc: "2.0", id, method: "tools/call", params };
    const previous = messages[messages.length - 1];
    if (plan.era === "legacy-batch" && step.glue && lastWasRequest && previous !== undefined) {
      request.line = messages.length - 1;
      messages[messages.length - 1] = Array.isArray(previous) ? [...previous, message] : [previous, message];
    } else {
      request.line = messages.length;
      messages.push(message);
    }
    lastWasRequest = true;
    register(request);
  });
  const lines = messages.map((message) => JSON.stringify(message));
  const written = plan.eof === null ? lines.length : plan.eof % (lines.length + 1);
  return { era: plan.era, lines, requests, written };
}

/** The bytes written before stdin closes. */
export function inputBytes(session: Session): Uint8Array {
  return new TextEncoder().encode(
    session.lines.slice(0, session.written).map((line) => `${line}\n`).join(""),
  );
}

/** A note as the checker reads it from the store. */
export interface StoredNote {
  id: number;
  title: string;
}

/** What one session produced. */
export interface Observed {
  /** Every byte the server wrote to stdout. */
  stdout: string;
  /** How the server ended after EOF: an exit code, or a description of a hang or a crash. */
  ended: { code: number } | { failure: string };
  /** The notes in the store afterwards, or why the store could not be read. */
  notes: StoredNote[] | { unreadable: string };
  /** The most handler runs seen at once (in-process only). */
  peakRunning?: number;
}

// deno-lint-ignore no-explicit-any
type Loose = any;

/**
 * Every broken invariant of one session, as readable sentences; empty when the session was correct:
 *
 * - stdout is whole lines of JSON-RPC responses (arrays only for legacy 2025-03-26 batches), nothing else;
 * - a request is answered at most once, and exactly once when it was written and not cancelled;
 * - the server exits 0 after EOF;
 * - the store reads, and holds exactly the adds that ran: an unkeyed add at most once (exactly once when
 *   answered), one idempotency key at most one note (exactly one, the one every answer names, when any
 *   call with it succeeded), and nothing that was never asked;
 * - at most `maxInFlight` handlers run at once, when that was measured.
 */
export function violations(session: Session, observed: Observed, maxInFlight: number): string[] {
  const problems: string[] = [];
  const answers = new Map<string, Loose[]>();
  const text = observed.stdout;
  if (text !== "" && !text.endsWith("\n")) {
    problems.push(`stdout ends with a partial line: ${JSON.stringify(text.slice(-80))}`);
  }
  for (const line of text.split("\n").filter((line) => line !== "")) {
    let parsed: Loose;
    try {
      parsed = JSON.parse(line);
    } catch {
      problems.push(`a stdout line is not JSON: ${JSON.stringify(line.slice(0, 120))}`);
      continue;
    }
    if (Array.isArray(parsed) && session.era !== "legacy-batch") {
      problems.push(`a batch answer outside the batching era: ${line.slice(0, 120)}`);
    }
    if (Array.isArray(parsed) && parsed.length === 0) problems.push("an empty batch answer");
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof message !== "object" || message === null || message.jsonrpc !== "2.0") {
        problems.push(`not a JSON-RPC 2.0 message: ${JSON.stringify(message).slice(0, 120)}`);
        continue;
      }
      if (!("id" in message) || "method" in message) {
        problems.push(
          `not a response (nothing asked for notifications or requests): ${
            JSON.stringify(message).slice(0, 120)
          }`,
        );
        continue;
      }
      const key = idKey(message.id);
      if (!session.requests.has(key)) {
        problems.push(`an answer to an id never sent: ${JSON.stringify(message).slice(0, 200)}`);
        continue;
      }
      answers.set(key, [...(answers.get(key) ?? []), message]);
    }
  }

  const keyed = new Map<string, { titles: Set<string>; ids: Set<number> }>();
  const unkeyed = new Map<string, number>();
  for (const [key, request] of session.requests) {
    const got = answers.get(key) ?? [];
    const written = request.line < session.written;
    const cancelled = request.cancelLine !== undefined && request.cancelLine < session.written;
    if (got.length > 1) {
      problems.push(`request ${key} (${request.tool ?? request.method}) answered ${got.length} times`);
    }
    if (!written && got.length > 0) problems.push(`request ${key} was never written but was answered`);
    if (written && !cancelled && got.length === 0) {
      problems.push(`request ${key} (${request.tool ?? request.method}) was never answered`);
    }
    if (request.key !== undefined) {
      const entry = keyed.get(request.key) ?? { titles: new Set(), ids: new Set() };
      entry.titles.add(request.title!);
      keyed.set(request.key, entry);
    }
    const answer = got[0];
    if (answer === undefined) continue;
    if ("error" in answer) {
      problems.push(
        `request ${key} (${request.tool ?? request.method}) got a JSON-RPC error: ${
          JSON.stringify(answer.error).slice(0, 200)
        }`,
      );
      continue;
    }
    const result = answer.result;
    if (request.method === "initialize") {
      if (result?.protocolVersion !== legacyVersion(session.era)) {
        problems.push(`initialize answered ${JSON.stringify(result).slice(0, 200)}`);
      }
      continue;
    }
    const wantsResultType = session.era === "modern" ? "complete" : undefined;
    if (result?.resultType !== wantsResultType) {
      problems.push(`request ${key}: resultType ${JSON.stringify(result?.resultType)} in era ${session.era}`);
    }
    const envelope = result?.structuredContent;
    if (typeof envelope !== "object" || envelope === null) {
      problems.push(`request ${key}: no envelope in ${JSON.stringify(result).slice(0, 200)}`);
      continue;
    }
    if (request.tool === "list" && envelope.ok !== true) {
      problems.push(`list ${key} failed: ${JSON.stringify(envelope.error)}`);
    }
    if (request.tool === "show" && envelope.ok !== true && envelope.error?.code !== "NOT_FOUND") {
      problems.push(`show ${key} failed: ${JSON.stringify(envelope.error)}`);
    }
    if (request.tool !== "add") continue;
    if (request.key === undefined) {
      if (envelope.ok !== true) problems.push(`add ${key} failed: ${JSON.stringify(envelope.error)}`);
      else unkeyed.set(request.title!, envelope.data?.note?.id);
    } else if (envelope.ok === true) {
      keyed.get(request.key)!.ids.add(envelope.data?.note?.id);
    }
  }

  if ("code" in observed.ended) {
    if (observed.ended.code !== 0) problems.push(`the server exited ${observed.ended.code} after EOF, not 0`);
  } else {
    problems.push(observed.ended.failure);
  }

  if (!Array.isArray(observed.notes)) {
    problems.push(`the store is unreadable: ${observed.notes.unreadable}`);
  } else {
    const notes = observed.notes;
    const ids = new Set(notes.map((note) => note.id));
    if (ids.size !== notes.length) {
      problems.push(`two notes share an id: ${JSON.stringify(notes.map((note) => note.id))}`);
    }
    const byTitle = new Map<string, StoredNote[]>();
    for (const note of notes) byTitle.set(note.title, [...(byTitle.get(note.title) ?? []), note]);
    const asked = new Set(
      [...session.requests.values()].filter((r) => r.line < session.written && r.title !== undefined).map((
        r,
      ) => r.title),
    );
    for (const title of byTitle.keys()) {
      if (!asked.has(title)) problems.push(`a note nobody asked for: ${title}`);
    }
    for (const request of session.requests.values()) {
      if (request.tool !== "add" || request.key !== undefined) continue;
      const found = byTitle.get(request.title!) ?? [];
      if (found.length > 1) problems.push(`${request.title} executed ${found.length} times`);
      const acknowledged = unkeyed.get(request.title!);
      if (acknowledged !== undefined && !found.some((note) => note.id === acknowledged)) {
        problems.push(
          `${request.title} was acknowledged as note ${acknowledged}, which the store does not hold`,
        );
      }
    }
    for (const [key, { titles, ids: answeredIds }] of keyed) {
      const found = [...titles].flatMap((title) => byTitle.get(title) ?? []);
      if (found.length > 1) {
        problems.push(
          `idempotency key ${key} executed ${found.length} times (notes ${
            found.map((n) => n.id).join(", ")
          })`,
        );
      }
      if (answeredIds.size > 1) {
        problems.push(
          `idempotency key ${key} was answered with different notes: ${[...answeredIds].join(", ")}`,
        );
      }
      for (const id of answeredIds) {
        if (!found.some((note) => note.id === id)) {
          problems.push(
            `idempotency key ${key} was acknowledged as note ${id}, which the store does not hold`,
          );
        }
      }
    }
  }

  if (observed.peakRunning !== undefined && observed.peakRunning > maxInFlight) {
    problems.push(`${observed.peakRunning} handlers ran at once with max-in-flight ${maxInFlight}`);
  }
  return problems;
}

/** Throws one error listing the broken invariants (the first few), for fast-check to report. */
export function assertNoViolations(problems: string[], context: string): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 12).map((problem) => `  - ${problem}`).join("\n");
  const more = problems.length > 12 ? `\n  ... and ${problems.length - 12} more` : "";
  throw new Error(`${problems.length} invariant(s) broken (${context}):\n${shown}${more}`);
}

/** The seed, run count and replay path of this file's properties, from the environment when set. */
export interface PropertySettings {
  seed: number;
  runs: number;
  path: string | undefined;
}

/**
 * Reads `TOOLWIRE_PROPERTY_SEED`, `TOOLWIRE_PROPERTY_RUNS` and `TOOLWIRE_PROPERTY_PATH`; a fresh seed
 * otherwise. The seed is printed, so any run can be repeated.
 */
export function propertySettings(
  label: string,
  defaultRuns: number,
  env: (name: string) => string | undefined,
): PropertySettings {
  const seedText = env("TOOLWIRE_PROPERTY_SEED");
  const runsText = env("TOOLWIRE_PROPERTY_RUNS");
  const seed = seedText ? Number(seedText) : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
  if (!Number.isSafeInteger(seed)) {
    throw new Error(`TOOLWIRE_PROPERTY_SEED must be an integer, got ${seedText}`);
  }
  const runs = runsText ? Number(runsText) : defaultRuns;
  if (!Number.isSafeInteger(runs) || runs < 1) {
    throw new Error(`TOOLWIRE_PROPERTY_RUNS must be a positive integer, got ${runsText}`);
  }
  const path = env("TOOLWIRE_PROPERTY_PATH") || undefined;
  console.log(
    `[${label}] seed ${seed}, ${runs} runs${
      path ? `, path ${path}` : ""
    } (replay: TOOLWIRE_PROPERTY_SEED=${seed})`,
  );
  return { seed, runs, path };
}
