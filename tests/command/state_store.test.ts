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
      await store.release("k");
      assert.equal(await store.read("k"), undefined);
      await store.record("k", "3", 60_000);
      assert.equal(await store.read("k"), "3");
    } finally {
      dir.cleanup();
    }
  });
});

interface NodeRedis {
  connect(): Promise<unknown>;
  set(key: string, value: string, options: object): Promise<string | null>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
  on(event: string, listener: (error: unknown) => void): unknown;
  destroy(): void;
}

/** The README's adapter over node-redis. */
function adapter(client: NodeRedis): RedisCommands {
  return {
    set: async (key, value, { px, nx }) =>
      (await client.set(key, value, nx ? { PX: px, NX: true } : { PX: px })) === "OK",
    get: (key) => client.get(key),
    del: (key) => client.del(key),
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

  it("with Redis stopped, every command rejects with StateStoreUnavailableError; a keyed call never reaches its handler", async () => {
    await server!.stop();
    server = undefined;
    await assert.rejects(stores[0]!.reserve("x", "1", 1000), StateStoreUnavailableError);
    await assert.rejects(stores[0]!.read("x"), StateStoreUnavailableError);
    await assert.rejects(stores[0]!.record("x", "1", 1000), StateStoreUnavailableError);
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
