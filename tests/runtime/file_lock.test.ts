// The library file lock, through the notes store that uses it (real `notes` processes and MCP servers on
// one NOTES_HOME), and its API in-process.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FileLockTimeoutError, withFileLock } from "../../mod.ts";
import { backdate, deadPid, plantLock } from "../helpers/locks.ts";
import { modern, WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, onlyEnvelope, run, tempDir } from "../helpers/run.ts";

const MINUTE = 60_000;

function storedNotes(home: string): Loose[] {
  return JSON.parse(readFileSync(join(home, "notes.json"), "utf8")).notes;
}

async function withHome(body: (home: string, env: Record<string, string>) => Promise<void>): Promise<void> {
  const home = tempDir();
  try {
    await body(home.path, { NOTES_HOME: home.path });
  } finally {
    home.cleanup();
  }
}

describe("file lock: a holder that is gone", () => {
  it("a lock whose pid is dead is broken at once (no stall), and the dead writer's temporary files are removed", async () => {
    await withHome(async (home, env) => {
      plantLock(join(home, "notes.lock"), await deadPid());
      writeFileSync(join(home, "notes.json.4242.1700000000000.tmp"), '{"next_id": 7, "no');
      const lockLeftover = join(home, "notes.lock.0123456789abcdef.tmp");
      writeFileSync(lockLeftover, "{}");
      backdate(lockLeftover, MINUTE);
      // The old store waited 10 s for any lock younger than that: here the time limit ends such a wait.
      const result = await run([...NOTES, "add", "--title", "after the crash", "--timeout", "5"], { env });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.equal(onlyEnvelope(result.stdout).data.note.id, 1);
      assert.deepEqual(readdirSync(home), ["notes.json"]);
    });
  });

  it("a breaker that died while breaking (its guard left behind) is broken in turn", async () => {
    await withHome(async (home, env) => {
      const dead = await deadPid();
      plantLock(join(home, "notes.lock"), dead);
      plantLock(join(home, "notes.lock.break"), dead);
      const result = await run([...NOTES, "add", "--title", "x", "--timeout", "5"], { env });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.deepEqual(readdirSync(home), ["notes.json"]);
    });
  });

  it("a lock with unreadable content is stale once older than a short grace; the old store's lock directory too", async () => {
    await withHome(async (home, env) => {
      const lock = join(home, "notes.lock");
      writeFileSync(lock, "\0\0 not a lock");
      const fresh = await run([...NOTES, "add", "--title", "waited out the grace", "--timeout", "8"], {
        env,
      });
      assert.equal(fresh.code, 0, fresh.stdout + fresh.stderr);
      writeFileSync(lock, "garbage");
      backdate(lock, MINUTE);
      assert.equal(
        (await run([...NOTES, "add", "--title", "old garbage", "--timeout", "5"], { env })).code,
        0,
      );
      mkdirSync(lock);
      writeFileSync(join(lock, "owner"), "x");
      backdate(lock, MINUTE);
      assert.equal(
        (await run([...NOTES, "add", "--title", "old directory", "--timeout", "5"], { env })).code,
        0,
      );
      assert.deepEqual(storedNotes(home).map((note) => note.title), [
        "waited out the grace",
        "old garbage",
        "old directory",
      ]);
      assert.deepEqual(readdirSync(home), ["notes.json"]);
    });
  });

  it("a live holder is waited for and never broken", async () => {
    await withHome(async (home, env) => {
      const lock = join(home, "notes.lock");
      plantLock(lock, process.pid);
      const planted = readFileSync(lock, "utf8");
      const result = await run([...NOTES, "add", "--title", "blocked", "--timeout", "1"], { env });
      assert.equal(result.code, 10, result.stdout + result.stderr);
      assert.equal(onlyEnvelope(result.stdout).error.code, "TIMEOUT");
      assert.equal(readFileSync(lock, "utf8"), planted, "the holder's lock is untouched");
      rmSync(lock);
      assert.equal((await run([...NOTES, "add", "--title", "free now", "--timeout", "5"], { env })).code, 0);
      assert.deepEqual(storedNotes(home).map((note) => note.title), ["free now"]);
    });
  });
});

describe("file lock: many writers racing on a stale lock", () => {
  it("4 servers x 20 concurrent adds, 5 rounds, a stale lock planted each round: every acknowledged note is stored", async () => {
    await withHome(async (home, env) => {
      const servers = Array.from({ length: 4 }, () => new WireSession([...NOTES, "mcp", "serve"], { env }));
      try {
        await Promise.all(servers.map((server, i) => server.request(modern(`ready-${i}`, "tools/list"))));
        const acknowledged: number[] = [];
        for (let round = 0; round < 5; round++) {
          // What the old store saw when a writer was killed mid-write a minute ago.
          const lock = join(home, "notes.lock");
          if (round === 1) {
            mkdirSync(lock);
          } else {
            plantLock(lock, await deadPid());
          }
          backdate(lock, MINUTE);
          const replies = await Promise.all(servers.map((server, s) => {
            for (let i = 0; i < 20; i++) {
              server.send(
                modern(`${round}-${s}-${i}`, "tools/call", {
                  name: "add",
                  arguments: { title: `r${round} s${s} n${i}` },
                }),
              );
            }
            return server.take(20, 30_000);
          }));
          for (const reply of replies.flat()) {
            assert.equal(reply.result?.isError, false, JSON.stringify(reply));
            acknowledged.push(reply.result.structuredContent.data.note.id);
          }
        }
        const stored = storedNotes(home).map((note) => note.id);
        assert.equal(new Set(acknowledged).size, 400, "each acknowledged add got an id of its own");
        assert.deepEqual(
          acknowledged.filter((id) => !stored.includes(id)),
          [],
          "acknowledged notes missing from the store",
        );
        assert.equal(stored.length, 400);
        assert.deepEqual(
          readdirSync(home).filter((name) => name !== "notes.json"),
          [],
          "no lock or temporary file left",
        );
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
    });
  });
});

describe("file lock: the API", () => {
  it("serialises concurrent read-modify-writes in one process and removes the lock afterwards", async () => {
    const dir = tempDir();
    try {
      const counter = join(dir.path, "counter");
      writeFileSync(counter, "0");
      const lock = join(dir.path, "counter.lock");
      await Promise.all(Array.from({ length: 40 }, () =>
        withFileLock(lock, async () => {
          const value = Number(readFileSync(counter, "utf8"));
          await new Promise((resolve) => setTimeout(resolve, 1));
          writeFileSync(counter, String(value + 1));
        })));
      assert.equal(readFileSync(counter, "utf8"), "40");
      // A waiter queued behind a holder in this process gives up on time, or when its signal fires.
      await withFileLock(lock, async () => {
        await assert.rejects(withFileLock(lock, () => {}, { timeoutMs: 0 }), FileLockTimeoutError);
        await assert.rejects(withFileLock(lock, () => {}, { timeoutMs: 20 }), FileLockTimeoutError);
        const controller = new AbortController();
        const queued = withFileLock(lock, () => {}, { signal: controller.signal });
        controller.abort(new Error("gave up in the queue"));
        await assert.rejects(queued, /gave up in the queue/);
      });
      assert.equal(await withFileLock(lock, () => "free again"), "free again");
      await assert.rejects(withFileLock(lock, () => Promise.reject(new Error("inside"))), /inside/);
      assert.deepEqual(readdirSync(dir.path), ["counter"]);
    } finally {
      dir.cleanup();
    }
  });

  it("timeoutMs 0 gives up at once on a live holder; an aborted signal gives up and never runs fn", async () => {
    const dir = tempDir();
    try {
      const lock = join(dir.path, "busy.lock");
      plantLock(lock, process.pid);
      let ran = false;
      const busy = await withFileLock(lock, () => (ran = true), { timeoutMs: 0 }).catch((error: unknown) =>
        error
      );
      assert.ok(busy instanceof FileLockTimeoutError, String(busy));
      assert.equal(busy.path, lock);
      const controller = new AbortController();
      const waiting = withFileLock(lock, () => (ran = true), { signal: controller.signal });
      controller.abort(new Error("caller gave up"));
      await assert.rejects(waiting, /caller gave up/);
      assert.equal(ran, false);
      // Refreshed recently by a live pid, but not for longer than staleMs: a holder that stopped refreshing.
      backdate(lock, 2_000);
      assert.equal(await withFileLock(lock, () => "taken", { staleMs: 1_000, timeoutMs: 0 }), "taken");
    } finally {
      dir.cleanup();
    }
  });
});
