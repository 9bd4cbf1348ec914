import { getEnv } from "../../runtime/mod.ts";
import type { CommandDefinition } from "../contract/command_definition.ts";
import type { ToolHost } from "../contract/tool_host.ts";
import { executeCommand } from "../run/executor.ts";
import { IdempotencyStore } from "../run/idempotency_store.ts";
import { toolKeys } from "../run/tool_keys.ts";
import { sharedConfirmations, storeAnswers } from "./shared_state.ts";
import type { SharedState } from "../contract/state_store.ts";
import { type CatalogCommands, ManifestCatalog } from "./manifest_catalog.ts";
import type { ServeFilter } from "./tool_mapping.ts";
import { limitMs } from "../run/time_limit.ts";

interface PreparedCommand {
  definition: CommandDefinition;
  timeoutMs: number;
}

/**
 * The tool's own commands as MCP tools, run in-process through the same executor as the CLI (one path for
 * every invocation, docs/contract.md#phases): the handler, its time limit, idempotency replay, and the
 * CONFIRMATION_REQUIRED preview of an unconfirmed destructive call. `shared` is what the instances of a
 * fleet share (each part given overrides the tool's {@linkcode ToolOptions.sharedState}): idempotency keys
 * then live in its store, and confirmations are signed with its secret.
 *
 * @example
 * ```ts
 * import { processChannel } from "@toolwire/toolwire/framing";
 * import type { Tool } from "@toolwire/toolwire";
 * import { serveMcp } from "@toolwire/toolwire/mcp";
 *
 * declare const tool: Tool;
 * const catalog = commandCatalog(tool, await tool.manifest(), { readOnly: false });
 * await serveMcp({ channel: processChannel() }, { serverInfo: { name: "tool", version: "1.0.0" }, catalog });
 * ```
 */
export function commandCatalog(
  tool: ToolHost,
  manifest: { commands: CatalogCommands },
  filter: ServeFilter,
  shared: SharedState = {},
): ManifestCatalog {
  const { store: sharedStore, confirmationSecret } = { ...tool.sharedState, ...shared };
  // The file store is made per call (it costs nothing); a shared one is one connection for every call.
  const sharedKeys = sharedStore === undefined ? undefined : toolKeys(tool, sharedStore);
  const store = () => sharedKeys ?? toolKeys(tool, undefined);
  // What a call needs of its command besides its arguments — the definition and its time limit — is looked up
  // on the command's first call and kept: per call it was a registry lookup and a rounding of the limit.
  const prepared = new Map<string, PreparedCommand>();
  const prepare = (path: string): PreparedCommand => {
    const definition = tool.registry.get(path)?.definition as CommandDefinition | undefined;
    // The manifest was built from this registry: a served path without a definition is a framework bug.
    if (definition === undefined) throw new Error(`mcp: no command registered at ${path}`);
    const command = { definition, timeoutMs: limitMs(definition.timeout_seconds ?? tool.timeoutSeconds) };
    prepared.set(path, command);
    return command;
  };
  return new ManifestCatalog(manifest.commands, filter, (call) => {
    const command = prepared.get(call.path) ?? prepare(call.path);
    return executeCommand({
      path: call.path,
      definition: command.definition,
      exitCodes: call.entry.exit_codes,
      input: { flags: call.flags, args: call.args },
      idempotencyKey: call.idempotencyKey,
      store: call.idempotencyKey === undefined ? undefined : store(),
      dryRun: call.dryRun,
      unconfirmed: call.unconfirmed,
      timeoutMs: command.timeoutMs,
      signal: call.context.cancellation,
      env: getEnv,
      log: (message) => call.context.log("info", message),
      progress: (update) => call.context.progress(update),
      caller: call.context.caller,
    });
  }, {
    hasResult: async (key) => (await store().get(key)) !== undefined,
    confirmations: sharedConfirmations(
      { store: sharedStore, confirmationSecret },
      () => new IdempotencyStore(tool.stateDir(), { lifetimeSeconds: tool.idempotencyLifetimeSeconds }),
    ),
    ...(sharedStore === undefined ? {} : { checkStore: () => storeAnswers(sharedStore) }),
  });
}
