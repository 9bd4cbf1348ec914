// The state-store seam (docs/scaling.md): the file store as a StateStore (one reservation wins, entries
// expire), and Redis through the `redis` client and the three-method adapter — one reservation of many
// concurrent ones across two clients, idempotency keys held by one of two "instances" at a time, confirmations
// signed by one and redeemed once by either, and every command refused with StateStoreUnavailableError once
// Redis is stopped. The Redis part starts Debian's redis-server (installed with apt-get when missing and run
// as root) and is skipped, saying why, without it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { IdempotencyStore } from "../../lib/command/run/idempotency_store.ts";
import { SharedIdempotencyStore } from "../../lib/command/run/shared_idempotency_store.ts";
import { ConfirmationStates } from "../../lib/command/mcp/confirmation_state.ts";
import {
  createTool,
  type RedisCommands,
  redisStateStore,
  RegistrationError,
  type StateStore,
  StateStoreUnavailableError,
} from "../../mod.ts";
import { ensurePrograms, freePort, sleep, startRedisServer } from "../../scripts/soak/fleet_parts.ts";
import { StoreLink } from "../../scripts/soak/store_link.ts";
import { tempDir } from "../helpers/run.ts";

const SECRET = new TextEncoder().encode("0123456789abcdef0123456789abcdef");

/** Of `count` concurrent reservations of one key spread over `stores`, how many won. */
async function winners(stores: StateStore[], count: number, key: string): Promise<number> {
  const results = await Promise.all(
    Array.from(
      { length: count },
      (_, index) => stores[index % stores.length]!.reserve(key, `v${index}`, 60_000),
    ),
  );
  return results.filter(Boolean).length;
}

describe("the file store as a StateStore", () => {
  it("of 20 concurrent reservations of one key by two stores on one directory, exactly one wins", async () => {
    const dir = tempDir();
    try {
      const stores = [new IdempotencyStore(dir.path), new IdempotencyStore(dir.path)];
      assert.equal(await winners(stores, 20, "nonce:1"), 1);
      const value = await stores[1]!.read("nonce:1");
      assert.match(value ?? "", /^v\d+$/);
      assert.equal(await stores[0]!.reserve("nonce:1", "again", 60_000), false);
    } finally {
      dir.cleanup();
    }
  });

  it("an entry expires: read gives nothing and it can be reserved again; release frees it", async () => {
    const dir = tempDir();
    try {
      const store = new IdempotencyStore(dir.path);
      assert.equal(await store.reserve("k", "1", 30), true);
      await sleep(60);
      assert.equal(await store.read("k"), undefined);
      assert.equal(await store.reserve("k", "2", 60_000), true);
      assert.equal(await store.read("k"), "2");
      assert.equal(await store.swap({ key: "k", expect: "2", value: undefined, ttlMs: 0 }), true);
      assert.equal(await store.read("k"), undefined);
    } finally {
      dir.cleanup();
    }
  });

  it("swap changes an entry only from what it holds, only while its fence holds, and removes one likewise", async () => {
    const dir = tempDir();
    try {
      const store = new IdempotencyStore(dir.path);
      await swapRules(store);
    } finally {
      dir.cleanup();
    }
  });
});

/** The rules of StateStore.swap, on any store. */
async function swapRules(store: StateStore): Promise<void> {
  const change = { key: "rec", ttlMs: 60_000 };
  assert.equal(await store.swap({ ...change, expect: "x", value: "a" }), false, "absent is not 'x'");
  assert.equal(await store.swap({ ...change, expect: undefined, value: "a" }), true);
  assert.equal(
    await store.swap({ ...change, expect: undefined, value: "b" }),
    false,
    "present is not absent",
  );
  assert.equal(await store.swap({ ...change, expect: "b", value: "c" }), false);
  assert.equal(await store.read("rec"), "a");
  const fence = { key: "lock", value: "token-1" };
  assert.equal(await store.swap({ ...change, expect: "a", value: "c", fence }), false, "the fence is absent");
  assert.equal(await store.reserve("lock", "token-2", 60_000), true);
  assert.equal(
    await store.swap({ ...change, expect: "a", value: "c", fence }),
    false,
    "the fence holds another",
  );
  assert.equal(await store.read("rec"), "a");
  assert.equal(await store.swap({ ...change, expect: "token-2", value: "token-1", key: "lock" }), true);
  assert.equal(await store.swap({ ...change, expect: "a", value: "c", fence }), true, "the fence holds");
  assert.equal(await store.read("rec"), "c");
  assert.equal(await store.swap({ ...change, expect: "a", value: undefined }), false);
  assert.equal(await store.swap({ ...change, expect: "c", value: undefined }), true);
  assert.equal(await store.read("rec"), undefined);
  assert.equal(await store.swap({ key: "brief", expect: undefined, value: "s", ttlMs: 30 }), true);
  await sleep(60);
  assert.equal(await store.read("brief"), undefined, "a swapped value expires");
  assert.equal(await store.swap({ key: "brief", expect: undefined, value: "t", ttlMs: 60_000 }), true);
}

interface NodeRedis {
  connect(): Promise<unknown>;
  set(key: string, value: string, options: object): Promise<string | null>;
  get(key: string): Promise<string | null>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  on(event: string, listener: (error: unknown) => void): unknown;
  destroy(): void;
}

/** The README's adapter over node-redis. */
function adapter(client: NodeRedis): RedisCommands {
  return {
    set: async (key, value, { px, nx }) =>
      (await client.set(key, value, nx ? { PX: px, NX: true } : { PX: px })) === "OK",
    get: (key) => client.get(key),
    eval: (script, keys, args) => client.eval(script, { keys, arguments: args }),
  };
}

const parts = ensurePrograms(["redis-server"], (line) => console.log(line));
describe("Redis as the shared store, through node-redis", {
  skip: parts.ok ? false : `needs redis-server: ${parts.reason}`,
}, () => {
  const dir = tempDir("toolwire-redis-");
  let port = 0;
  let server: { stop(): Promise<void> } | undefined;
  const clients: NodeRedis[] = [];
  const stores: StateStore[] = [];

  before(async () => {
    port = await freePort();
    server = await startRedisServer(dir.path, port);
    const { createClient } = await import("redis");
    for (let index = 0; index < 2; index++) {
      const client = createClient({
        url: `redis://127.0.0.1:${port}/0`,
        disableOfflineQueue: true,
        socket: { reconnectStrategy: () => 100 },
      }) as unknown as NodeRedis;
      client.on("error", () => {});
      await client.connect();
      clients.push(client);
      stores.push(redisStateStore(adapter(client), { prefix: "test:" }));
    }
  });
  /** A store over a client of its own that reaches Redis through a StoreLink, with a bound of `timeoutMs`. */
  async function linkedStore(timeoutMs: number) {
    const link = await StoreLink.start(port);
    const { createClient } = await import("redis");
    const client = createClient({
      url: `redis://127.0.0.1:${link.port}/0`,
      disableOfflineQueue: true,
      socket: { reconnectStrategy: () => 100 },
    }) as unknown as NodeRedis;
    client.on("error", () => {});
    await client.connect();
    const store = redisStateStore(adapter(client), { prefix: "test:", timeoutMs });
    return {
      link,
      store,
      close: async () => {
        link.release();
        client.destroy();
        await link.close();
      },
    };
  }

  after(async () => {
    for (const client of clients) client.destroy();
    await server?.stop();
    dir.cleanup();
  });

  it("of 50 concurrent reservations of one key by two clients, exactly one wins (SET NX PX); it expires", async () => {
    assert.equal(await winners(stores, 50, "nonce:a"), 1);
    // Long enough that a loaded machine still makes the second try within it.
    assert.equal(await stores[0]!.reserve("short", "1", 1_000), true);
    assert.equal(await stores[1]!.reserve("short", "1", 1_000), false);
    await sleep(1_200);
    assert.equal(await stores[1]!.read("short"), undefined);
    assert.equal(await stores[1]!.reserve("short", "2", 60_000), true);
  });

  it("10 concurrent calls with one idempotency key on two instances: the handler runs once, the others replay", async () => {
    const instances = stores.map((store) => new SharedIdempotencyStore(store, { lifetimeSeconds: 60 }));
    let ran = 0;
    const seen = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        instances[index % 2]!.withKey("key-1", async (slot) => {
          if (slot.state.kind === "done") return `replay:${JSON.stringify(slot.state.result.data)}`;
          assert.equal(slot.state.kind, "free");
          await slot.reserve("sha256:fp", "add");
          ran++;
          await sleep(30);
          await slot.complete({ id: 1 });
          return "ran";
        }, { timeoutMs: 10_000 })),
    );
    assert.equal(ran, 1);
    assert.equal(seen.filter((answer) => answer === "ran").length, 1);
    assert.equal(seen.filter((answer) => answer === 'replay:{"id":1}').length, 9);
    assert.deepEqual((await instances[1]!.get("key-1"))?.data, { id: 1 });
  });

  it("a confirmation issued by one instance is redeemed once, by whichever asks first; a key of its own refuses it", async () => {
    const [a, b] = stores.map((nonces) => new ConfirmationStates({ secret: SECRET, nonces }));
    const state = await a!.issue("remove", { id: 3 });
    const answers = await Promise.all([
      b!.redeem(state, "remove", { id: 3 }),
      a!.redeem(state, "remove", { id: 3 }),
    ]);
    assert.deepEqual(answers.sort(), ["spent", undefined].sort());
    assert.equal(await b!.redeem(state, "remove", { id: 3 }), "spent");
    assert.equal(
      await new ConfirmationStates().redeem(await a!.issue("remove", { id: 4 }), "remove", { id: 4 }),
      "tampered",
    );
  });

  it("swap is one atomic script: its rules, and of 20 concurrent swaps from one value by two clients one wins", async () => {
    await swapRules(stores[0]!);
    await stores[0]!.reserve("contended", "v0", 60_000);
    const swaps = await Promise.all(
      Array.from(
        { length: 20 },
        (_, index) =>
          stores[index % 2]!.swap({ key: "contended", expect: "v0", value: `v${index + 1}`, ttlMs: 60_000 }),
      ),
    );
    assert.equal(swaps.filter(Boolean).length, 1);
  });

  it("a command the server does not answer (the link holds its bytes) is refused within the store's bound", {
    timeout: 20_000,
  }, async () => {
    const linked = await linkedStore(500);
    try {
      assert.equal(await linked.store.reserve("held", "1", 60_000), true);
      linked.link.hold();
      const started = Date.now();
      await assert.rejects(linked.store.read("held"), StateStoreUnavailableError);
      await assert.rejects(
        linked.store.swap({ key: "held", expect: "1", value: "2", ttlMs: 60_000 }),
        StateStoreUnavailableError,
      );
      // A bound, not a speed: without one, these wait for as long as the link holds (here: until released).
      assert.ok(Date.now() - started < 5_000, `refused after ${Date.now() - started} ms`);
      linked.link.release();
    } finally {
      await linked.close();
    }
  });

  it("the lease: a holder whose renewals went unanswered past its lease runs no handler, and withdraws its reservation", async () => {
    const linked = await linkedStore(500);
    try {
      const keys = new SharedIdempotencyStore(linked.store, { lifetimeSeconds: 60 });
      let ran = false;
      const refused = await keys.withKey("lease-1", async (slot) => {
        assert.equal(slot.state.kind, "free");
        // Renewals (every 3.3 s) go unanswered past the lease the holder counts (7 s); the lock itself lives
        // on in Redis (10 s), so the fenced reservation lands: only the lease check stops the handler.
        linked.link.hold();
        await sleep(8_000);
        linked.link.release();
        try {
          await slot.reserve("sha256:fp", "add");
        } catch (error) {
          return error;
        }
        ran = true;
      }, { timeoutMs: 10_000 });
      assert.equal(ran, false);
      assert.ok(refused instanceof StateStoreUnavailableError, String(refused));
      assert.match((refused as Error).message, /could not be renewed in time/);
      // The withdrawal frees the key: the next call finds it free and runs.
      const next = await keys.withKey("lease-1", (slot) => Promise.resolve(slot.state.kind), {
        timeoutMs: 10_000,
      });
      assert.equal(next, "free");
    } finally {
      await linked.close();
    }
  });

  it("with Redis stopped, every command rejects with StateStoreUnavailableError; a keyed call never reaches its handler", async () => {
    await server!.stop();
    server = undefined;
    await assert.rejects(stores[0]!.reserve("x", "1", 1000), StateStoreUnavailableError);
    await assert.rejects(stores[0]!.read("x"), StateStoreUnavailableError);
    await assert.rejects(
      stores[0]!.swap({ key: "x", expect: undefined, value: "1", ttlMs: 1000 }),
      StateStoreUnavailableError,
    );
    const keys = new SharedIdempotencyStore(stores[1]!);
    let reached = false;
    await assert.rejects(
      keys.withKey("key-2", () => {
        reached = true;
        return Promise.resolve();
      }, { timeoutMs: 1000 }),
      StateStoreUnavailableError,
    );
    assert.equal(reached, false);
    assert.equal(await keys.get("key-1"), undefined, "get never fails: a store out of reach has no result");
    const states = new ConfirmationStates({ secret: SECRET, nonces: stores[0]! });
    await assert.rejects(
      states.redeem(await states.issue("remove", { id: 5 }), "remove", { id: 5 }),
      StateStoreUnavailableError,
    );
  });
});

describe("a confirmation secret shorter than 32 bytes is refused", () => {
  it("by ConfirmationStates (RangeError) and by createTool's sharedState (RegistrationError); 32 bytes are taken", () => {
    assert.throws(() => new ConfirmationStates({ secret: SECRET.slice(1) }), RangeError);
    assert.ok(new ConfirmationStates({ secret: SECRET }));
    const options = { name: "fleetcheck", version: "1.0.0", description: "A check" };
    assert.throws(
      () => createTool({ ...options, sharedState: { confirmationSecret: SECRET.slice(1) } }),
      RegistrationError,
    );
    assert.equal(createTool({ ...options, sharedState: { confirmationSecret: SECRET } }).name, "fleetcheck");
  });
});
