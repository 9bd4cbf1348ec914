/**
 * A bridged CLI made ready to serve over MCP: its manifest read and checked, its identity asked, and the
 * live catalog every session shares built over it.
 * @module
 */
import type { ServedTools } from "../command/builtins/mcp_listen/listen_flags.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import type { ExecTarget } from "./exec_catalog.ts";
import { loadExecIdentity } from "./exec_identity.ts";
import { loadExecManifest } from "./exec_manifest.ts";
import { LiveExecCatalog } from "./live_exec_catalog.ts";
import { quoteCommandLine } from "./command_line.ts";
import { sharedConfirmations, storeAnswers } from "../command/mcp/shared_state.ts";
import type { SharedState } from "../command/contract/state_store.ts";
import { IdempotencyStore } from "../command/run/idempotency_store.ts";

/**
 * What a server of a bridged CLI serves: its tools, and how the server introduces itself.
 *
 * @example
 * ```ts
 * declare const server: BridgedServer;
 * server.serverInfo.name; // the CLI's name, from its --version
 * ```
 */
export type BridgedServer = ServedTools & { instructions: string };

/**
 * Reads and checks the CLI's manifest (4 when it prints no valid one, 5 when it cannot be started), asks
 * its `--version` for the server's name, and builds the catalog every session shares — one that follows the
 * CLI's manifest every `watchIntervalMs` (0: never; `log` reports a new or refused one). `shared` is what
 * the instances of a fleet share: a destructive call runs only while `shared.store` answers; with its
 * confirmation secret, a state any of them asked for is accepted once by any, its nonce redeemed in
 * `shared.store`, else in `stateDir` (the processes of one host).
 *
 * @example
 * ```ts
 * import type { ExecTarget } from "./exec_catalog.ts";
 *
 * declare const target: ExecTarget;
 * const server = await prepareBridgedServer(target, { readOnly: false, watchIntervalMs: 2_000 }, new AbortController().signal, console.error);
 * ```
 */
export async function prepareBridgedServer(
  target: ExecTarget,
  options: { readOnly: boolean; watchIntervalMs: number; shared?: SharedState; stateDir?: string },
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<BridgedServer> {
  const manifest = await loadExecManifest(target, signal, (message) => log(`warning: ${message}`));
  const identity = await loadExecIdentity(target, signal);
  const store = options.shared?.store;
  const catalog = await LiveExecCatalog.create(target, manifest, { readOnly: options.readOnly }, {
    intervalMs: options.watchIntervalMs,
    log,
    confirmations: sharedConfirmations(
      options.shared ?? {},
      options.stateDir === undefined ? undefined : () => new IdempotencyStore(options.stateDir!),
    ),
    ...(store === undefined ? {} : { checkStore: () => storeAnswers(store) }),
  });
  const shown = quoteCommandLine(target.argv);
  return {
    catalog,
    serverInfo: { name: identity?.name ?? "toolwire", version: identity?.version ?? FRAMEWORK_VERSION },
    instructions:
      `${identity?.description ?? `The commands of '${shown}'`}. Each tool runs '${shown} <command>' ` +
      "as a child process; results are its JSON envelope.",
  };
}
