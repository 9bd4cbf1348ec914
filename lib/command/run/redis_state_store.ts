import { type StateStore, StateStoreUnavailableError, type StateSwap } from "../contract/state_store.ts";
import { errorMessage } from "./thrown_error.ts";

/**
 * The Redis commands a {@linkcode StateStore} needs, over whichever client you use (node-redis, ioredis;
 * Valkey speaks the same): none is a dependency of the library. `set` is `SET key value PX ms`, with `NX`
 * when `nx` is true, and answers whether it set the key; `get` is `GET`; `eval` is `EVAL script numkeys
 * keys… args…`, answering the script's reply.
 *
 * @example
 * ```ts
 * // node-redis (npm install redis)
 * declare const client: {
 *   set(key: string, value: string, options: object): Promise<string | null>;
 *   get(key: string): Promise<string | null>;
 *   eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
 * };
 * const commands: RedisCommands = {
 *   set: async (key, value, { px, nx }) =>
 *     (await client.set(key, value, nx ? { PX: px, NX: true } : { PX: px })) === "OK",
 *   get: (key) => client.get(key),
 *   eval: (script, keys, args) => client.eval(script, { keys, arguments: args }),
 * };
 * // ioredis: set: async (key, value, { px, nx }) =>
 * //   (await (nx ? redis.set(key, value, "PX", px, "NX") : redis.set(key, value, "PX", px))) === "OK"
 * //   eval: (script, keys, args) => redis.eval(script, keys.length, ...keys, ...args)
 * ```
 */
export interface RedisCommands {
  /** `SET key value PX px [NX]`: `true` when the key was set. */
  set(key: string, value: string, options: { px: number; nx: boolean }): Promise<boolean>;
  /** `GET key`: its value, or null. */
  get(key: string): Promise<string | null | undefined>;
  /** `EVAL script numkeys keys… args…`: the script's reply (an integer reply as a number). */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
}

/** What {@linkcode redisStateStore} is given besides the commands. */
export interface RedisStateStoreOptions {
  /**
   * Starts every key, so that one database can hold several tools.
   * @default "toolwire:"
   */
  prefix?: string;
  /**
   * How long one command may take before it fails with {@linkcode StateStoreUnavailableError}, in
   * milliseconds, timed here and not by the client (a client's own timeout may not fire for a command
   * already sent to a server that stopped answering).
   * @default 2000
   */
  timeoutMs?: number;
}

/** How long a command may take, unless the options say otherwise. */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000;

/**
 * {@linkcode StateStore.swap} in one script, atomic in the server. KEYS[1] is the key, KEYS[2] the fence's
 * key when there is one; ARGV: whether a value is expected ("1") or absence ("0"), the expected value,
 * whether to set ("1") or delete ("0"), the new value, its expiry in ms, the fence's value.
 */
const SWAP_SCRIPT = `local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if #KEYS > 1 and redis.call('GET', KEYS[2]) ~= ARGV[6] then return 0 end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
else
  redis.call('DEL', KEYS[1])
end
return 1`;

/**
 * A {@linkcode StateStore} in Redis or Valkey, through the client's commands: a reservation is one
 * `SET NX PX` and a swap one Lua script (both atomic in the server, whichever instance asks), and Redis
 * expires what they write. Every key starts with the prefix. A command that fails — the server is down,
 * the connection dropped — or that is not answered within the time limit rejects with
 * {@linkcode StateStoreUnavailableError}; one that timed out may still take effect later, which is why
 * writes that matter are swaps fenced on what the caller saw.
 *
 * For exactly-once across a Redis restart the server must keep what it acknowledged: run it with
 * `appendonly yes` and `appendfsync always` (docs/scaling.md).
 *
 * @example
 * ```ts
 * declare const commands: RedisCommands;
 * const store = redisStateStore(commands, { prefix: "notes:", timeoutMs: 2_000 });
 * await store.reserve("nonce:4f2a", "1", 600_000); // true once
 * ```
 */
export function redisStateStore(commands: RedisCommands, options: RedisStateStoreOptions = {}): StateStore {
  const prefix = options.prefix ?? "toolwire:";
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const guarded = <T>(what: string, command: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new StateStoreUnavailableError(`the state store did not answer ${what} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      // A command is a promise already, or throws before it has one: either way it ends up here.
      Promise.resolve().then(command).then(resolve, (error: unknown) => {
        reject(
          new StateStoreUnavailableError(`the state store failed ${what}: ${errorMessage(error)}`, {
            cause: error,
          }),
        );
      }).finally(() => clearTimeout(timer));
    });
  const px = (ttlMs: number) => String(Math.max(1, Math.ceil(ttlMs)));
  const swapArgs = (change: StateSwap) => {
    const keys = [prefix + change.key, ...(change.fence ? [prefix + change.fence.key] : [])];
    const args = [
      change.expect === undefined ? "0" : "1",
      change.expect ?? "",
      change.value === undefined ? "0" : "1",
      change.value ?? "",
      px(change.ttlMs),
      change.fence?.value ?? "",
    ];
    return { keys, args };
  };
  return {
    reserve: (key, value, ttlMs) =>
      guarded("a reservation", () => commands.set(prefix + key, value, { px: Number(px(ttlMs)), nx: true })),
    read: (key) => guarded("a read", async () => (await commands.get(prefix + key)) ?? undefined),
    swap: (change) =>
      guarded("a swap", async () => {
        const { keys, args } = swapArgs(change);
        return Number(await commands.eval(SWAP_SCRIPT, keys, args)) === 1;
      }),
  };
}
