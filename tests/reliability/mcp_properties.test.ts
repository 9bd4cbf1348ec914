// Property tests of `mcp serve`: random sessions — random chunking of the input, early EOF, cancellations,
// a client that stops reading for a while, both eras and legacy batches, mutating calls with and without
// idempotency keys, small in-flight bounds — against the real `notes mcp serve` process and against
// `serveMcp` in-process, each checked against the invariants in mcp_scenario.ts. The seed is printed at the
// start; TOOLWIRE_PROPERTY_SEED (and TOOLWIRE_PROPERTY_PATH, from a failure report) replay a run, and
// TOOLWIRE_PROPERTY_RUNS changes how many sessions each property tries.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import fc from "fast-check";
import { CommandError, createTool, ExitCode } from "../../mod.ts";
import { commandCatalog } from "../../lib/command/mcp/command_catalog.ts";
import { type McpServerOptions, serveMcp } from "../../lib/protocol/mcp/line_transport.ts";
import { streamChannel } from "../../lib/runtime/stream_channel.ts";
import { finished, NOTES, RUNTIME, start, tempDir } from "../helpers/run.ts";
import {
  assertNoViolations,
  buildSession,
  type Chunk,
  inputBytes,
  type Observed,
  type Plan,
  planArbitrary,
  propertySettings,
  type Session,
  StallSchedule,
  type StoredNote,
  violations,
  WRITE_PAUSE_BUDGET_MS,
} from "./mcp_scenario.ts";

const env = (name: string) => process.env[name];
/** How long a server may take to exit once stdin is closed before the run counts as a hang. */
const EXIT_LIMIT_MS = RUNTIME === "deno" ? 30_000 : 20_000;
const DEFAULT_MAX_IN_FLIGHT = 64;
/** Sessions per property by default: each file stays well under a minute on either runtime. */
const PROCESS_RUNS = 25;
const IN_PROCESS_RUNS = 80;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** At most this many writes per session: a megabyte in 1-byte writes would take most of a property's time. */
const MAX_WRITES = 4_000;

/** Writes `bytes` cut as the plan says, cycling its chunks, pausing between them within the budget. */
async function writeChunked(
  bytes: Uint8Array,
  chunks: Chunk[],
  write: (part: Uint8Array) => void,
): Promise<void> {
  const smallest = Math.ceil(bytes.length / MAX_WRITES);
  let offset = 0;
  let paused = 0;
  for (let index = 0; offset < bytes.length; index++) {
    const chunk = chunks[index % chunks.length]!;
    const size = Math.max(chunk.size, smallest);
    write(bytes.subarray(offset, offset + size));
    offset += size;
    if (chunk.pauseMs > 0 && paused + chunk.pauseMs <= WRITE_PAUSE_BUDGET_MS) {
      paused += chunk.pauseMs;
      await sleep(chunk.pauseMs);
    }
  }
}

/** The notes in a `notes` store directory (none when it was never written). */
function storedNotes(home: string): StoredNote[] | { unreadable: string } {
  let text: string;
  try {
    text = readFileSync(join(home, "notes.json"), "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    return { unreadable: String(error) };
  }
  try {
    const parsed = JSON.parse(text) as { notes?: unknown };
    if (!Array.isArray(parsed.notes)) return { unreadable: "no notes array" };
    return parsed.notes.map((note: { id: number; title: string }) => ({ id: note.id, title: note.title }));
  } catch (error) {
    return { unreadable: `${String(error)}: ${text.slice(0, 200)}` };
  }
}

/** Runs one session against a real `notes mcp serve` on a fresh NOTES_HOME. */
async function runProcess(plan: Plan, session: Session): Promise<Observed & { stderr: string }> {
  const home = tempDir("toolwire-prop-");
  const flags = plan.maxInFlight === null ? [] : ["--max-in-flight", String(plan.maxInFlight)];
  const child = start([...NOTES, "mcp", "serve", ...flags], { env: { NOTES_HOME: home.path } });
  const stalls = new StallSchedule(plan.stalls, () => child.stdout!.pause(), () => child.stdout!.resume());
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  try {
    child.stdin!.on("error", () => {});
    const result = finished(child, 600_000);
    // The read stalls: a paused stdout fills the pipe, so the server's writes wait, its slots stay taken and
    // its reading of stdin stops, until the stall ends.
    let received = 0;
    child.stdout!.on("data", (chunk: Uint8Array) => stalls.seen(received += chunk.length));
    stalls.seen(0);
    await writeChunked(inputBytes(session), plan.chunks, (part) => void child.stdin!.write(part));
    child.stdin!.end();
    let hung = false;
    watchdog = setTimeout(() => {
      hung = true;
      stalls.dispose();
      child.kill("SIGKILL");
    }, EXIT_LIMIT_MS);
    const { code, stdout, stderr } = await result;
    return {
      stdout,
      stderr,
      ended: hung ? { failure: `the server did not exit within ${EXIT_LIMIT_MS} ms of EOF` } : { code },
      notes: storedNotes(home.path),
    };
  } finally {
    clearTimeout(watchdog);
    stalls.dispose();
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    home.cleanup();
  }
}

// ---- in-process ----

/** A server running in this process: bytes in, text out, and a switch to stop taking its output. */
interface MemoryServer {
  write(bytes: Uint8Array): void;
  end(): void;
  pauseOutput(): void;
  resumeOutput(): void;
  output(): string;
  /** Settles when the server has finished. */
  done: Promise<void>;
}

/**
 * The one place that knows how `serveMcp` takes its I/O (today: a Web ReadableStream and WritableStream):
 * a paused output holds the server's writes, as a client that stops reading would.
 */
function startMemoryServer(options: McpServerOptions, onOutput: (total: number) => void): MemoryServer {
  let input!: ReadableStreamDefaultController<Uint8Array>;
  const stdin = new ReadableStream<Uint8Array>({ start: (controller) => void (input = controller) });
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  const stdout = new WritableStream<Uint8Array>({
    async write(chunk) {
      while (gate !== undefined) await gate.promise;
      text += decoder.decode(chunk, { stream: true });
      onOutput(bytes += chunk.length);
    },
  });
  return {
    write: (bytes) => input.enqueue(bytes.slice()),
    end: () => input.close(),
    pauseOutput() {
      if (gate !== undefined) return;
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
    },
    resumeOutput() {
      const current = gate;
      gate = undefined;
      current?.open();
    },
    output: () => text,
    done: serveMcp({ channel: streamChannel(stdin, stdout) }, options),
  };
}

/**
 * A small tool like `notes` whose handlers are counted: `add` (mutating) waits a planned while — honouring
 * cancellation — then records its note; `list` and `show` read. The peak of handlers running at once is
 * kept, to check the in-flight bound.
 */
function countingTool(stateDir: string, delays: number[]) {
  const notes: StoredNote[] = [];
  let calls = 0;
  let running = 0;
  const stats = { peak: 0 };
  const tool = createTool({
    name: "counter",
    version: "1.0.0",
    description: "Counts what it runs",
    stateDir: () => stateDir,
  });
  const ok = {
    "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "none" as const },
  };
  const track = async <T>(signal: AbortSignal, work: () => T): Promise<T> => {
    running++;
    stats.peak = Math.max(stats.peak, running);
    try {
      const ms = delays[calls++ % delays.length]!;
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const timer = setTimeout(resolve, ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        }, { once: true });
      });
      return work();
    } finally {
      running--;
    }
  };
  tool.command("add", {
    description: "Add a note",
    danger_level: "mutating",
    required_scopes: [],
    flags: {
      title: { type: "string", required: true, description: "Title" },
      body: { type: "string", description: "Text", default: "" },
    },
    exit_codes: {
      "0": { name: "SUCCESS", description: "Added", retryable: false, side_effects: "complete" },
    },
    run: (ctx) =>
      track(ctx.signal, () => {
        const note = { id: notes.length + 1, title: ctx.flags.title };
        notes.push(note);
        return { effect: "created", note: { ...note, body: ctx.flags.body } };
      }),
  });
  tool.command("list", {
    description: "List notes",
    danger_level: "safe",
    required_scopes: [],
    flags: { limit: { type: "integer", description: "At most", default: 50 } },
    exit_codes: ok,
    run: (ctx) => track(ctx.signal, () => notes.slice(-ctx.flags.limit)),
  });
  tool.command("show", {
    description: "Show a note",
    danger_level: "safe",
    required_scopes: [],
    positionals: [{ name: "id", type: "integer", description: "Id" }],
    exit_codes: {
      ...ok,
      "5": { name: "NOT_FOUND", description: "No such note", retryable: false, side_effects: "none" },
    },
    run: (ctx) =>
      track(ctx.signal, () => {
        const note = notes.find((candidate) => candidate.id === ctx.args.id);
        if (note === undefined) {
          throw new CommandError(ExitCode.NOT_FOUND, `note ${ctx.args.id} does not exist`);
        }
        return { ...note };
      }),
  });
  return { tool, notes, stats };
}

/** Runs one session against `serveMcp` in this process, over the counting tool. */
async function runInProcess(plan: Plan, session: Session): Promise<Observed> {
  const state = tempDir("toolwire-prop-mem-");
  let stalls: StallSchedule | undefined;
  let hang: ReturnType<typeof setTimeout> | undefined;
  try {
    const { tool, notes, stats } = countingTool(state.path, plan.delays);
    const catalog = commandCatalog(tool, { commands: tool.registry.entries() }, { readOnly: false });
    const server = startMemoryServer({
      serverInfo: { name: "counter", version: "1.0.0" },
      catalog,
      ...(plan.maxInFlight === null ? {} : { maxInFlight: plan.maxInFlight }),
    }, (total) => stalls?.seen(total));
    stalls = new StallSchedule(plan.stalls, () => server.pauseOutput(), () => server.resumeOutput());
    stalls.seen(0);
    const outcome = server.done.then(
      () => ({ code: 0 }),
      (error: unknown) => ({ failure: `serveMcp rejected: ${String(error)}` }),
    );
    await writeChunked(inputBytes(session), plan.chunks, (part) => server.write(part));
    server.end();
    const limit = new Promise<{ failure: string }>((resolve) => {
      hang = setTimeout(
        () => resolve({ failure: `serveMcp did not finish within ${EXIT_LIMIT_MS} ms of EOF` }),
        EXIT_LIMIT_MS,
      );
    });
    const ended = await Promise.race([outcome, limit]);
    return { stdout: server.output(), ended, notes: [...notes], peakRunning: stats.peak };
  } finally {
    clearTimeout(hang);
    stalls?.dispose();
    state.cleanup();
  }
}

/**
 * Checks one property over random plans: replayable from the environment (see `propertySettings`), bounded
 * in count and in time. Shrinking a failure starts a server per step, so once the time limit (scaled with the
 * runs asked for) has passed, sessions are no longer run — they pass unseen — and the report names the
 * smallest failing case found by then, with the command that replays it. A session that has started always
 * runs to its end, so nothing outlives the test.
 */
async function checkProperty(
  label: string,
  suite: string,
  defaults: { runs: number; timeLimitMs: number; maxOps: number },
  runSession: (plan: Plan, session: Session) => Promise<Observed & { stderr?: string }>,
): Promise<void> {
  const settings = propertySettings(label, defaults.runs, env);
  let executed = 0;
  const began = Date.now();
  const deadline = began + defaults.timeLimitMs * Math.max(1, settings.runs / defaults.runs);
  const details = await fc.check(
    fc.asyncProperty(planArbitrary(defaults.maxOps), async (plan) => {
      if (Date.now() > deadline) return;
      executed++;
      const session = buildSession(plan);
      const observed = await runSession(plan, session);
      const stderr = observed.stderr === undefined ? "" : `; stderr ends: ${observed.stderr.slice(-400)}`;
      assertNoViolations(
        violations(session, observed, plan.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT),
        `${session.written}/${session.lines.length} lines written${stderr}`,
      );
    }),
    {
      seed: settings.seed,
      numRuns: settings.runs,
      ...(settings.path === undefined ? {} : { path: settings.path }),
      // The broken invariants go into the report itself, next to the random seed and the counterexample.
      includeErrorInReport: true,
    },
  );
  console.log(`[${label}] ${executed} sessions run in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  if (!details.failed) return;
  const replay =
    `TOOLWIRE_PROPERTY_SEED=${details.seed} TOOLWIRE_PROPERTY_PATH="${details.counterexamplePath}"`;
  throw new Error(
    `${fc.defaultReportMessage(details)}\n\nReplay this case alone:\n` +
      `  ${replay} node --import tsx --test --test-name-pattern "${suite}" tests/reliability/mcp_properties.test.ts\n` +
      `  ${replay} deno test -A --no-check --filter "${suite}" tests/reliability/mcp_properties.test.ts`,
  );
}

const PROCESS_SUITE = "mcp serve properties, real notes process";
const IN_PROCESS_SUITE = "mcp serve properties, serveMcp in-process";

describe(PROCESS_SUITE, () => {
  it("random chunking, EOF, cancellation, read stalls and eras keep every invariant", async () => {
    await checkProperty("mcp process property", PROCESS_SUITE, {
      runs: PROCESS_RUNS,
      timeLimitMs: 25_000,
      maxOps: 40,
    }, runProcess);
  });
});

describe(IN_PROCESS_SUITE, () => {
  it("the same sessions over a counting tool: exactly-once handlers and the in-flight bound", async () => {
    await checkProperty(
      "mcp in-process property",
      IN_PROCESS_SUITE,
      { runs: IN_PROCESS_RUNS, timeLimitMs: 20_000, maxOps: 60 },
      runInProcess,
    );
  });
});

describe("mcp serve: a burst then EOF (regression)", () => {
  const burst = (): string => {
    const lines = [JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "burst", version: "1.0.0" },
      },
    })];
    for (let id = 1; id <= 200; id++) {
      lines.push(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "add", arguments: { title: `burst-${id}` } },
        }),
      );
    }
    return `${lines.join("\n")}\n`;
  };

  for (const flags of [[], ["--max-in-flight", "3"]]) {
    it(`initialize and 200 adds in one write, stdin closed at once${flags.length ? ` (${flags.join(" ")})` : ""}: 201 answers, 200 notes`, async () => {
      const home = tempDir("toolwire-burst-");
      try {
        const child = start([...NOTES, "mcp", "serve", ...flags], { env: { NOTES_HOME: home.path } });
        child.stdin!.on("error", () => {});
        child.stdin!.end(burst());
        const result = await finished(child, EXIT_LIMIT_MS);
        assert.equal(result.code, 0, result.stderr);
        const ids = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line).id as number);
        const counts = new Map<number, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        const twice = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
        assert.equal(
          twice.length,
          0,
          `answered more than once: ${twice.length} ids, first ${twice.slice(0, 10).join(", ")}`,
        );
        assert.equal(counts.size, 201, "every request answered");
        const notes = storedNotes(home.path);
        assert.ok(Array.isArray(notes), JSON.stringify(notes));
        const titles = notes.map((note) => note.title);
        assert.equal(new Set(titles).size, titles.length, "no add ran twice");
        assert.equal(notes.length, 200);
      } finally {
        home.cleanup();
      }
    });
  }
});
