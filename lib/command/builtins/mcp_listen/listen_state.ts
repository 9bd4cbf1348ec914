/**
 * What `mcp listen --state-store … --confirmation-secret-file …` shares with the other instances of a fleet:
 * the flags read and checked, the secret read, the store connected. Loaded on first use, and only then does
 * the `redis` client load.
 * @module
 */
import { CommandError } from "../../contract/command_error.ts";
import { ExitCode } from "../../../exit_code.ts";
import { readPrivateFile } from "../../../runtime/private_file.ts";
import { MIN_CONFIRMATION_SECRET_BYTES } from "../../mcp/confirmation_state.ts";
import type { SharedState } from "../../contract/state_store.ts";
import { redisStateStore } from "../../run/redis_state_store.ts";
import { connectRedis } from "./redis_connection.ts";

/** Longest confirmation secret file accepted: a key, not a document. */
export const MAX_CONFIRMATION_SECRET_BYTES = 4096;

/** A listener's shared state, and how to let it go once the listener has closed. */
export interface OpenSharedState {
  shared: SharedState;
  close(): Promise<void>;
}

/**
 * Reads `--confirmation-secret-file` and connects `--state-store`, each checked: a bad value is ARG_ERROR,
 * a missing `redis` package PRECONDITION, a store that does not answer UNAVAILABLE. `connect: false` (a dry
 * run) checks both flags and connects nothing. Keys written to the store start with `<prefix>:`.
 *
 * @example
 * ```ts
 * const state = await openSharedState({ "state-store": "redis://127.0.0.1:6379/0" }, { prefix: "notes", connect: true, log: console.error });
 * await state.close();
 * ```
 */
export async function openSharedState(
  flags: { "state-store"?: string | undefined; "confirmation-secret-file"?: string | undefined },
  options: { prefix: string; connect: boolean; log: (message: string) => void },
): Promise<OpenSharedState> {
  const shared: SharedState = {};
  const secretFile = flags["confirmation-secret-file"];
  if (secretFile !== undefined) shared.confirmationSecret = await readSecret(secretFile);
  const address = flags["state-store"];
  if (address === undefined) return { shared, close: () => Promise.resolve() };
  const shown = storeAddress(address);
  if (!options.connect) return { shared, close: () => Promise.resolve() };
  const redis = await connectRedis(address, shown, options.log);
  shared.store = redisStateStore(redis.commands, { prefix: `${options.prefix}:` });
  if (shared.confirmationSecret === undefined) {
    options.log(
      "mcp listen: --state-store without --confirmation-secret-file: a confirmation is accepted only by the instance that asked for it",
    );
  }
  return { shared, close: () => redis.close() };
}

/** The secret's bytes, a trailing line break apart (so `openssl rand -hex 32 > file` and an editor agree). */
async function readSecret(path: string): Promise<Uint8Array> {
  const file = await readPrivateFile(path, MAX_CONFIRMATION_SECRET_BYTES).catch((error: unknown) => {
    throw refused(path, `cannot be read (${(error as { code?: string }).code ?? "error"})`);
  });
  if (file.kind === "missing") throw refused(path, "does not exist");
  if (file.kind === "not_file") throw refused(path, "is not a regular file");
  if (file.kind === "shared") {
    throw refused(path, "can be read or written by others than its owner", `chmod 600 ${path}`);
  }
  if (file.kind !== "ok") throw refused(path, `holds more than ${MAX_CONFIRMATION_SECRET_BYTES} bytes`);
  let end = file.bytes.length;
  while (end > 0 && (file.bytes[end - 1] === 0x0a || file.bytes[end - 1] === 0x0d)) end--;
  if (end < MIN_CONFIRMATION_SECRET_BYTES) {
    throw refused(path, `holds ${end} bytes; a key needs at least ${MIN_CONFIRMATION_SECRET_BYTES}`);
  }
  return file.bytes.slice(0, end);
}

function refused(path: string, why: string, fix?: string): CommandError {
  return new CommandError(ExitCode.ARG_ERROR, `--confirmation-secret-file ${path} ${why}`, {
    suggestion: fix ?? `write a random key to it: openssl rand -hex 32 > ${path} && chmod 600 ${path}`,
  });
}

/** The store's address as it may be shown: host, port and database, never a password. */
function storeAddress(address: string): string {
  let url: URL | undefined;
  try {
    url = new URL(address);
  } catch {
    url = undefined;
  }
  const database = url?.pathname.replace(/^\//, "") ?? "";
  if (
    url === undefined || (url.protocol !== "redis:" && url.protocol !== "rediss:") || url.hostname === "" ||
    !/^\d*$/.test(database) || url.search !== "" || url.hash !== ""
  ) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      "--state-store expects redis://<host>:<port>/<db> (or rediss:// for TLS)",
    );
  }
  return `${url.protocol}//${url.host}/${database || "0"}`;
}
