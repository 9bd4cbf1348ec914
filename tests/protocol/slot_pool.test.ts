// SlotPool and InFlight: the one in-flight bound of MCP sessions, socket listeners and LSP/DAP sessions.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SlotPool } from "../../lib/protocol/slot_pool.ts";
import { InFlight, whenSettled } from "../../lib/protocol/in_flight.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("SlotPool", () => {
  it("hands out slots up to its size, then first come first served as slots come back", async () => {
    const pool = new SlotPool(2);
    assert.equal(pool.take(), undefined);
    assert.equal(pool.take(), undefined);
    const order: string[] = [];
    const a = pool.take()!.then(() => order.push("a"));
    const b = pool.take()!.then(() => order.push("b"));
    pool.give();
    await a;
    assert.deepEqual(order, ["a"], "a freed slot goes to the first waiter only");
    assert.equal(pool.taken, 2);
    pool.give();
    await b;
    assert.deepEqual(order, ["a", "b"]);
  });

  it("a pool inside another takes a slot of both, and gives both back", async () => {
    const shared = new SlotPool(1);
    const first = new SlotPool(4, shared);
    const second = new SlotPool(4, shared);
    assert.equal(first.take(), undefined);
    let started = false;
    const waiting = second.take()!.then(() => (started = true));
    await tick();
    assert.equal(started, false, "the shared pool is full, so the second connection waits");
    assert.equal(second.taken, 1, "its own slot is held meanwhile");
    first.give();
    await waiting;
    assert.equal(shared.taken, 1);
    assert.equal(first.taken, 0);
  });
});

describe("InFlight", () => {
  it("runs at most its limit at once; a cancelled handler that keeps running keeps its slot", async () => {
    const inFlight = new InFlight<number>(2);
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const work = async () => {
      peak = Math.max(peak, ++running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
    };
    assert.equal(inFlight.start(1, whenSettled(work)), undefined);
    assert.equal(inFlight.start(2, whenSettled(work)), undefined);
    let third = false;
    const waiting = inFlight.start(3, (_scope, done) => {
      third = true;
      done();
    })!;
    assert.ok(waiting instanceof Promise, "the third request waits for a slot");
    assert.equal(inFlight.cancel(1, new Error("cancelled")), true);
    await tick();
    assert.equal(third, false, "a cancelled handler still running still counts");
    releases.shift()!();
    await waiting;
    assert.equal(third, true);
    assert.equal(peak, 2);
    while (releases.length > 0) releases.shift()!();
    await inFlight.answered();
  });

  it("gives a slot back once per request: done called twice, a work that throws, a promise that rejects", async () => {
    const inFlight = new InFlight<number>(1);
    let twice!: () => void;
    inFlight.start(1, (_scope, done) => (twice = done));
    const second = inFlight.start(2, () => {
      throw new Error("a handler's bug");
    })!;
    assert.ok(second instanceof Promise, "the bound is one");
    twice();
    twice();
    await second;
    const third = inFlight.start(3, whenSettled(() => Promise.reject(new Error("failed"))));
    assert.equal(third, undefined, "the throwing work gave its slot back");
    const fourth = inFlight.start(4, () => {})!;
    assert.ok(fourth instanceof Promise, "a second done gave no slot back: the rejected one still holds it");
    await fourth;
    assert.equal(inFlight.idle, false, "the fourth never called done");
  });

  it("answers each request once: a claim after a cancel loses, and a cancel after a claim does nothing", () => {
    const inFlight = new InFlight<string>(4);
    inFlight.start("a", () => {});
    inFlight.start("b", () => {});
    assert.equal(inFlight.cancel("a", new Error("x")), true);
    assert.equal(inFlight.claim("a"), false);
    assert.equal(inFlight.claim("b"), true);
    assert.equal(inFlight.cancel("b", new Error("x")), false);
  });

  it("answered() waits for work and owed answers, not for cancelled requests", async () => {
    const inFlight = new InFlight<number>(4);
    let finish!: () => void;
    inFlight.start(1, (_scope, done) => (finish = done));
    inFlight.start(2, () => {});
    inFlight.cancel(2, new Error("gone"));
    const settle = inFlight.owe();
    let done = false;
    const answered = inFlight.answered()!.then(() => (done = true));
    finish();
    await tick();
    assert.equal(done, false, "an owed answer is still outstanding");
    settle();
    await answered;
    assert.equal(inFlight.answered(), undefined);
  });

  it("abortAll aborts the unclaimed requests' scopes, which may still answer", async () => {
    const inFlight = new InFlight<number>(4);
    const reasons: unknown[] = [];
    inFlight.start(1, (scope, done) =>
      scope.addEventListener("abort", () => {
        reasons.push(scope.reason);
        assert.equal(inFlight.claim(1), true);
        done();
      }));
    inFlight.abortAll("shutting down");
    await inFlight.answered();
    assert.deepEqual(reasons, ["shutting down"]);
  });
});
