// Exactly once per idempotency key (docs/idempotency.md): concurrent calls with one key, across processes
// and MCP servers; a store that cannot be written; a crash between the change and the record; expiry.
// Real `notes` and `lab` processes on a temporary NOTES_HOME / XDG_STATE_HOME.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool, RegistrationError } from "../../mod.ts";
import { backdate, deadPid, plantLock, sleep, waitForFile } from "../helpers/locks.ts";
import { modern, WireSession } from "../helpers/mcp_wire.ts";
import {
  finished,
  type Loose,
  NOTES,
  onlyEnvelope,
  programArgv,
  run,
  type RunResult,
  start,
  tempDir,
} from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const DAY = 86_400_000;
const RECORD = /^[0-9a-f]{64}\.json$/;
const STACK_FRAME = /\n\s+at /;

function storedNotes(home: string): Loose[] {
  const file = join(home, "notes.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).notes : [];
}

async function withHome(body: (home: string, env: Record<string, string>) => Promise<void>): Promise<void> {
  const home = tempDir();
  try {
    await body(home.path, { NOTES_HOME: home.path });
  } finally {
    home.cleanup();
  }
}

/**
 * Holds `notes.lock` as a live process would (this test's own pid) while `body` starts calls: every add then
 * waits inside its handler, so calls with one key are certain to overlap. Returns once the lock is released.
 */
async function holdingNotesLock<T>(home: string, body: () => Promise<T>): Promise<T> {
  const lock = join(home, "notes.lock");
  plantLock(lock, process.pid);
  try {
    return await body();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Waits until the first call has reserved its key, then long enough for the others to be inside too. */
async function letCallsOverlap(home: string): Promise<void> {
  await waitForFile(join(home, ".idempotency"), RECORD, 3_000);
  await sleep(500);
}

function assertOneEnvelopeNoStack(result: RunResult, code: number, errorCode: string): void {
  assert.equal(result.code, code, result.stdout + result.stderr);
  const envelope = onlyEnvelope(result.stdout);
  assert.equal(envelope.error.code, errorCode);
  assert.doesNotMatch(result.stderr, STACK_FRAME, "no stack trace");
}

async function declaredCodes(argv: readonly string[], path: string[]): Promise<Record<string, Loose>> {
  const result = await run([...argv, ...path, "--schema"]);
  return onlyEnvelope(result.stdout).data.exit_codes;
}

describe("idempotency: concurrent calls with one key run once", () => {
  it("four parallel CLI runs with one key: one note, one 'created', three replays", async () => {
    await withHome(async (home, env) => {
      const argv = [...NOTES, "add", "--title", "once", "--idempotency-key", "cli-once"];
      const results = await holdingNotesLock(home, async () => {
        const runs = [0, 1, 2, 3].map(() => run(argv, { env }));
        await letCallsOverlap(home);
        return runs;
      }).then((runs) => Promise.all(runs));
      for (const result of results) assert.equal(result.code, 0, result.stdout + result.stderr);
      const effects = results.map((result) => onlyEnvelope(result.stdout).data.effect).sort();
      assert.deepEqual(effects, ["created", "noop", "noop", "noop"]);
      assert.equal(new Set(results.map((result) => onlyEnvelope(result.stdout).data.note.id)).size, 1);
      assert.deepEqual(storedNotes(home).map((note) => note.title), ["once"]);
    });
  });

  it("one key with other arguments at the same time: one succeeds, the other exits 6 and does nothing", async () => {
    await withHome(async (home, env) => {
      const results = await holdingNotesLock(home, async () => {
        const runs = ["first", "second"].map((title) =>
          run([...NOTES, "add", "--title", title, "--idempotency-key", "same"], { env })
        );
        await letCallsOverlap(home);
        return runs;
      }).then((runs) => Promise.all(runs));
      assert.deepEqual(
        results.map((result) => result.code).sort(),
        [0, 6],
        results.map((r) => r.stdout).join(""),
      );
      const refused = results.find((result) => result.code === 6)!;
      assert.equal(onlyEnvelope(refused.stdout).error.code, "IDEMPOTENCY_CONFLICT");
      assert.equal(storedNotes(home).length, 1);
    });
  });

  it("two mcp serve processes on one NOTES_HOME, two same-key calls each: one execution", async () => {
    await withHome(async (home, env) => {
      const servers = [0, 1].map(() => new WireSession([...NOTES, "mcp", "serve"], { env }));
      try {
        await Promise.all(
          servers.map((server, s) =>
            server.request(modern(`ready-${s}`, "tools/call", { name: "list", arguments: {} }))
          ),
        );
        const replies = await holdingNotesLock(home, async () => {
          const pending = servers.map((server, s) => {
            for (const call of ["a", "b"]) {
              server.send(
                modern(`${s}-${call}`, "tools/call", {
                  name: "add",
                  arguments: { title: "once", idempotency_key: "mcp-once" },
                }),
              );
            }
            return server.take(2, 30_000);
          });
          await letCallsOverlap(home);
          return pending;
        }).then((pending) => Promise.all(pending));
        const envelopes = replies.flat().map((reply) => reply.result.structuredContent);
        assert.deepEqual(envelopes.map((envelope) => envelope.data?.effect).sort(), [
          "created",
          "noop",
          "noop",
          "noop",
        ]);
        assert.deepEqual(storedNotes(home).map((note) => note.title), ["once"]);
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
    });
  });

  it("a same-key caller that cannot wait for the running one gets the retryable 12 IDEMPOTENCY_IN_PROGRESS", async () => {
    await withHome(async (home, env) => {
      const argv = [...NOTES, "add", "--title", "slow", "--idempotency-key", "busy"];
      const [first, impatient] = await holdingNotesLock(home, async () => {
        const first = run(argv, { env });
        await waitForFile(join(home, ".idempotency"), RECORD);
        return [first, await run([...argv, "--timeout", "1"], { env })] as const;
      });
      assertOneEnvelopeNoStack(impatient, 12, "IDEMPOTENCY_IN_PROGRESS");
      assert.equal(onlyEnvelope(impatient.stdout).error.retryable, true);
      assert.equal(onlyEnvelope((await first).stdout).data.effect, "created");
      assert.equal(onlyEnvelope((await run(argv, { env })).stdout).data.effect, "noop");
      assert.equal(storedNotes(home).length, 1);
      assert.equal((await declaredCodes(NOTES, ["add"]))["12"].retryable, true);
    });
  });
});

describe("idempotency: a store that cannot be written", () => {
  for (
    const [what, setUp] of [
      [".idempotency is a regular file", (home: string) => {
        mkdirSync(home);
        writeFileSync(join(home, ".idempotency"), "");
      }],
      ["NOTES_HOME is a regular file", (home: string) => writeFileSync(home, "")],
    ] as const
  ) {
    it(`${what}: one envelope with exit 4, no stack trace, nothing done, and the retry does nothing either`, async () => {
      const dir = tempDir();
      try {
        const home = join(dir.path, "home");
        setUp(home);
        const argv = [...NOTES, "add", "--title", "x", "--idempotency-key", "k"];
        for (const attempt of [1, 2]) {
          const result = await run(argv, { env: { NOTES_HOME: home } });
          assertOneEnvelopeNoStack(result, 4, "IDEMPOTENCY_STORE_UNAVAILABLE");
          assert.equal(onlyEnvelope(result.stdout).error.retryable, false, `attempt ${attempt}`);
          assert.equal(existsSync(join(home, "notes.json")), false, "the handler never ran");
        }
        assert.equal((await declaredCodes(NOTES, ["add"]))["4"].side_effects, "none");
      } finally {
        dir.cleanup();
      }
    });
  }

  it("over MCP: an isError envelope with IDEMPOTENCY_STORE_UNAVAILABLE, and the server keeps serving", async () => {
    await withHome(async (home, env) => {
      writeFileSync(join(home, ".idempotency"), "");
      const server = new WireSession([...NOTES, "mcp", "serve"], { env });
      const reply = await server.request(
        modern(1, "tools/call", { name: "add", arguments: { title: "x", idempotency_key: "k" } }),
      );
      assert.equal(reply.result.isError, true, JSON.stringify(reply));
      assert.equal(reply.result.structuredContent.error.code, "IDEMPOTENCY_STORE_UNAVAILABLE");
      assert.equal(reply.result.structuredContent.meta.exit_code, 4);
      const plain = await server.request(
        modern(2, "tools/call", { name: "add", arguments: { title: "no key" } }),
      );
      assert.equal(plain.result.isError, false);
      const closed = await server.close();
      assert.equal(closed.code, 0, closed.stderr);
      assert.deepEqual(storedNotes(home).map((note) => note.title), ["no key"]);
    });
  });

  it("the record cannot be written after the change: the change is reported once, and the retry hears 'outcome unknown'", async () => {
    const dir = tempDir();
    try {
      const store = join(dir.path, "lab", "idempotency");
      const tally = join(dir.path, "tally");
      const env = { XDG_STATE_HOME: dir.path };
      const argv = [...LAB, "tally", "--file", tally, "--break-store", store, "--idempotency-key", "t1"];
      mkdirSync(store, { recursive: true });
      const first = await run(argv, { env });
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.doesNotMatch(first.stderr, STACK_FRAME);
      const envelope = onlyEnvelope(first.stdout);
      assert.equal(envelope.data.lines, 1);
      assert.deepEqual(envelope.warnings.map((warning: Loose) => warning.code), ["IDEMPOTENCY_NOT_RECORDED"]);
      // The disk is back; the reservation the first call wrote is still there.
      rmSync(store);
      renameSync(`${store}.away`, store);
      const retry = await run([...argv, "--timeout", "5"], { env });
      assertOneEnvelopeNoStack(retry, 6, "IDEMPOTENCY_OUTCOME_UNKNOWN");
      assert.equal(readFileSync(tally, "utf8"), "ran\n", "the handler ran once");
    } finally {
      dir.cleanup();
    }
  });
});

describe("idempotency: a crash between the change and the record", () => {
  it("kill -9 of the process holding the reservation: the retry answers outcome unknown (exit 6) and runs nothing", async () => {
    await withHome(async (home, env) => {
      const argv = [...NOTES, "add", "--title", "x", "--idempotency-key", "crash"];
      await holdingNotesLock(home, async () => {
        const child = start(argv, { env });
        const exited = finished(child);
        await waitForFile(join(home, ".idempotency"), RECORD);
        child.kill("SIGKILL");
        assert.equal((await exited).signal, "SIGKILL");
      });
      // The killed process left its key lock behind: a dead pid, broken at once (the time limit would show a stall).
      const retry = await run([...argv, "--timeout", "5"], { env });
      assertOneEnvelopeNoStack(retry, 6, "IDEMPOTENCY_OUTCOME_UNKNOWN");
      assert.equal(typeof onlyEnvelope(retry.stdout).error.context.reserved_at, "string");
      assert.equal(storedNotes(home).length, 0, "the retry did not run the handler");
      assert.deepEqual(
        readdirSync(join(home, ".idempotency")).filter((name) => !RECORD.test(name)),
        [],
        "the dead lock is gone",
      );
      // Other keys are unaffected.
      assert.equal(
        (await run([...NOTES, "add", "--title", "y", "--idempotency-key", "fresh"], { env })).code,
        0,
      );
    });
  });

  it("a failure that declares no side effects frees the key: the retry runs", async () => {
    await withHome(async (_home, env) => {
      const remove = [...NOTES, "remove", "1", "--confirm-destructive", "--idempotency-key", "rm-1"];
      const missing = await run(remove, { env });
      assert.equal(missing.code, 5, missing.stdout);
      assert.equal((await run([...NOTES, "add", "--title", "now it exists"], { env })).code, 0);
      const retry = await run(remove, { env });
      assert.equal(retry.code, 0, retry.stdout);
      assert.equal(onlyEnvelope(retry.stdout).data.effect, "deleted");
    });
  });
});

describe("idempotency: records expire", () => {
  const digest = (key: string) => createHash("sha256").update(key).digest("hex");

  function plantExpired(dir: string, count: number): string[] {
    mkdirSync(dir, { recursive: true });
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `${digest(`planted-${i}`)}.json`;
      const twoDaysAgo = new Date(Date.now() - 2 * DAY).toISOString();
      const record = {
        state: "done",
        fingerprint: "sha256:other",
        command: "add",
        data: { effect: "created" },
        reserved_at: twoDaysAgo,
        stored_at: twoDaysAgo,
      };
      writeFileSync(join(dir, name), JSON.stringify(record));
      backdate(join(dir, name), 2 * DAY);
      names.push(name);
    }
    return names;
  }

  it("a keyed call removes expired records, stale locks and temporary files, and an expired key runs afresh", async () => {
    await withHome(async (home, env) => {
      const dir = join(home, ".idempotency");
      const planted = plantExpired(dir, 40);
      const lock = join(dir, `${digest("crashed")}.lock`);
      plantLock(lock, await deadPid(), 2 * DAY);
      const temporary = join(dir, `${planted[0]}.0f0f.tmp`);
      writeFileSync(temporary, "{");
      backdate(temporary, 2 * DAY);
      // An expired record of this very key, with other arguments: no longer a conflict.
      writeFileSync(join(dir, `${digest("reused")}.json`), readFileSync(join(dir, planted[1]!)));
      backdate(join(dir, `${digest("reused")}.json`), 2 * DAY);

      const result = await run([...NOTES, "add", "--title", "x", "--idempotency-key", "reused"], { env });
      assert.equal(result.code, 0, result.stdout);
      assert.equal(onlyEnvelope(result.stdout).data.effect, "created");
      assert.deepEqual(readdirSync(dir), [`${digest("reused")}.json`]);
    });
  });

  it("cleaning is bounded per call: 150 expired records take three calls, 64 at most each", async () => {
    await withHome(async (home, env) => {
      const dir = join(home, ".idempotency");
      const planted = new Set(plantExpired(dir, 150));
      const left = () => readdirSync(dir).filter((name) => planted.has(name)).length;
      await run([...NOTES, "add", "--title", "a", "--idempotency-key", "a"], { env });
      assert.equal(left(), 150 - 64);
      await run([...NOTES, "add", "--title", "b", "--idempotency-key", "b"], { env });
      await run([...NOTES, "add", "--title", "c", "--idempotency-key", "c"], { env });
      assert.equal(left(), 0);
      assert.equal(readdirSync(dir).length, 3);
    });
  });

  it("the lifetime is a tool option: a positive number of seconds", () => {
    const options = { name: "x", version: "1.0.0", description: "x" };
    assert.equal(createTool({ ...options, idempotencyLifetimeSeconds: 60 }).idempotencyLifetimeSeconds, 60);
    assert.equal(createTool(options).idempotencyLifetimeSeconds, 86_400);
    assert.throws(() => createTool({ ...options, idempotencyLifetimeSeconds: 0 }), RegistrationError);
  });
});
