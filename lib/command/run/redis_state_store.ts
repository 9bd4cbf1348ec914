import { type StateStore, StateStoreUnavailableError } from "../contract/state_store.ts";
import { errorMessage } from "./thrown_error.ts";

/**
 * The three Redis commands a {@linkcode StateStore} needs, over whichever client you use (node-redis,
 * ioredis; Valkey speaks the same): the library itself depends on none. `set` is `SET key value PX ms`,
 * with `NX` when `nx` is true, and answers whether it set the key; `get` is `GET`; `del` is `DEL`.
 *
 * @example
 * ```ts
 * // node-redis (npm install redis)
 * declare const client: {
 *   set(key: string, value: string, options: object): Promise<string | null>;
 *   get(key: string): Promise<string | null>;
 *   del(key: string): Promise<number>;
 * };
 * const commands: RedisCommands = {
 *   set: async (key, value, { px, nx }) =>
 *     (await client.set(key, value, nx ? { PX: px, NX: true } : { PX: px })) === "OK",
 *   get: (key) => client.get(key),
 *   del: (key) => client.del(key),
 * };
 * // ioredis: set: async (key, value, { px, nx }) =>
 * //   (await (nx ? redis.set(key, value, "PX", px, "NX") : redis.set(key, value, "PX", px))) === "OK"
 * ```
 */
export interface RedisCommands {
  /** `SET key value PX px [NX]`: `true` when the key was set. */
  set(key: string, value: string, options: { px: number; nx: boolean }): Promise<boolean>;
  /** `GET key`: its value, or null. */
  get(key: string): Promise<string | null | undefined>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
}

/**
 * A {@linkcode StateStore} in Redis or Valkey, through the client's three commands: a reservation is one
 * `SET NX PX` (atomic in the server, whichever instance asks), a record a `SET PX`, and Redis expires both.
 * Every key starts with `prefix`, so one database can hold several tools. A command that fails — the server
 * is down, the connection dropped, the client timed out — rejects with {@linkcode StateStoreUnavailableError}.
 *
 * For exactly-once across a Redis restart the server must keep what it acknowledged: run it with
 * `appendonly yes` and `appendfsync always` (docs/scaling.md).
 *
 * @example
 * ```ts
 * declare const commands: RedisCommands;
 * const store = redisStateStore(commands, { prefix: "notes:" });
 * await store.reserve("nonce:4f2a", "1", 600_000); // true once
 * ```
 */
export function redisStateStore(commands: RedisCommands, options: { prefix?: string } = {}): StateStore {
  const prefix = options.prefix ?? "toolwire:";
  const guarded = async <T>(what: string, command: () => Promise<T>): Promise<T> => {
    try {
      return await command();
    } catch (error) {
      throw new StateStoreUnavailableError(`the state store could not ${what}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  };
  const px = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs));
  return {
    reserve: (key, value, ttlMs) =>
      guarded("reserve a key", () => commands.set(prefix + key, value, { px: px(ttlMs), nx: true })),
    record: (key, value, ttlMs) =>
      guarded("record a result", async () => {
        await commands.set(prefix + key, value, { px: px(ttlMs), nx: false });
      }),
    read: (key) => guarded("read a key", async () => (await commands.get(prefix + key)) ?? undefined),
    release: (key) =>
      guarded("remove a key", async () => {
        await commands.del(prefix + key);
      }),
  };
}
