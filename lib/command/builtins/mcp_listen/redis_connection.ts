/**
 * The `redis` npm client, loaded only when `mcp listen --state-store redis://…` asks for it: it is no
 * dependency of the library, so a tool that never serves a fleet never installs it (docs/scaling.md).
 * @module
 */
import { CommandError } from "../../contract/command_error.ts";
import { ExitCode } from "../../../exit_code.ts";
import type { RedisCommands } from "../../run/redis_state_store.ts";
import { errorMessage } from "../../run/thrown_error.ts";

/** The package's name, and the version range the library was proved with. */
export const REDIS_PACKAGE = { name: "redis", range: "^6.3.1" } as const;

/** How long a connection attempt may take before the client tries again. */
const SOCKET_CONNECT_TIMEOUT_MS = 2_000;
/** How long the server may take to answer at start before `mcp listen` gives up. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The part of a node-redis client used here. */
interface RedisClient {
  connect(): Promise<unknown>;
  set(key: string, value: string, options: object): Promise<string | null>;
  get(key: string): Promise<string | null>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  on(event: "error" | "ready", listener: (error?: unknown) => void): unknown;
  destroy(): void;
}

/** A connected client: its commands, and how to let it go. */
export interface RedisConnection {
  commands: RedisCommands;
  close(): Promise<void>;
}

/**
 * Loads the `redis` package and connects to `url`. Commands fail at once while the server is away (no
 * offline queue: a call must not wait on it); the time limit of a command that is not answered is the
 * store's own (`redisStateStore`), as the client's does not fire once a command was sent. The
 * client reconnects by itself, and `log` hears once when the server is lost and once when it is back. Throws PRECONDITION when
 * the package is not installed, UNAVAILABLE when the server does not answer within five seconds.
 *
 * @example
 * ```ts
 * const redis = await connectRedis("redis://127.0.0.1:6379/0", "127.0.0.1:6379", console.error);
 * await redis.close();
 * ```
 */
export async function connectRedis(
  url: string,
  shown: string,
  log: (message: string) => void,
): Promise<RedisConnection> {
  const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
  // Not a literal: neither the bundler nor a type checker may go looking for a package that is optional.
  const specifier = deno ? `npm:${REDIS_PACKAGE.name}@${REDIS_PACKAGE.range}` : REDIS_PACKAGE.name;
  let createClient: (options: object) => RedisClient;
  try {
    ({ createClient } = await import(specifier));
  } catch (error) {
    throw new CommandError(
      ExitCode.PRECONDITION,
      `--state-store needs the '${REDIS_PACKAGE.name}' npm package, which could not be loaded: ${
        errorMessage(error)
      }`,
      { suggestion: `npm install ${REDIS_PACKAGE.name}@${REDIS_PACKAGE.range} (next to the tool)` },
    );
  }
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: SOCKET_CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000),
    },
  });
  let lost = false;
  let connected = false;
  client.on("error", (error) => {
    if (lost || !connected) return;
    lost = true;
    log(
      `mcp listen: lost the state store ${shown} (${
        errorMessage(error)
      }); keyed calls are refused until it is back`,
    );
  });
  client.on("ready", () => {
    if (lost) log(`mcp listen: the state store ${shown} is back`);
    lost = false;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    client.destroy();
    throw new CommandError(
      ExitCode.UNAVAILABLE,
      `cannot reach the state store ${shown}: ${errorMessage(error)}`,
      { suggestion: "start Redis (or Valkey) there, or check the address, then start the server again" },
    );
  } finally {
    clearTimeout(timer);
  }
  connected = true;
  return {
    commands: {
      set: async (key, value, { px, nx }) =>
        (await client.set(key, value, nx ? { PX: px, NX: true } : { PX: px })) === "OK",
      get: (key) => client.get(key),
      eval: (script, keys, args) => client.eval(script, { keys, arguments: args }),
    },
    // The listener has closed by then, so no call still needs the client: nothing is waited for.
    close: () => Promise.resolve(client.destroy()),
  };
}
