// SlotPool, the one in-flight bound of MCP sessions, socket listeners and LSP/DAP sessions (InFlight).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SlotPool } from "../../lib/protocol/slot_pool.ts";
import { InFlight } from "../../lib/protocol/in_flight.ts";

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

  it("whenFree waits for room without taking it", async () => {
    const pool = new SlotPool(1);
    assert.equal(pool.whenFree(), undefined);
    pool.take();
    let free = false;
    const waiting = pool.whenFree()!.then(() => (free = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(free, false);
    pool.give();
    await waiting;
    assert.equal(pool.taken, 0, "nothing was taken by waiting for room");
  });
});

describe("InFlight on a SlotPool", () => {
  it("runs at most its limit at once; a cancelled handler that keeps running keeps its slot", async () => {
    const inFlight = new InFlight<number, string>(2);
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const work = () => async () => {
      peak = Math.max(peak, ++running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
    };
    for (const id of [1, 2]) {
      await inFlight.room();
      inFlight.start(id, `r${id}`, work());
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Both slots are taken: room() waits until a handler finishes, cancelled or not.
    let roomy = false;
    const room = inFlight.room().then(() => (roomy = true));
    assert.equal(inFlight.cancel(1), "r1");
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(roomy, false, "a cancelled handler still running still counts");
    releases.shift()!();
    await room;
    inFlight.start(3, "r3", work());
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(peak, 2);
    while (releases.length > 0) releases.shift()!();
    await inFlight.answered();
  });
});
