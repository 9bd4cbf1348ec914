import { fileStamp } from "../runtime/file_probes.ts";
import { programFiles } from "../runtime/program_resolution.ts";
import { currentHost } from "../runtime/program_host.ts";
import type { Manifest } from "../command/contract/manifest.ts";
import type {
  ToolCall,
  ToolCallContext,
  ToolCallOutcome,
  ToolCatalog,
} from "../protocol/mcp/tool_catalog.ts";
import { execCatalog, type ExecTarget } from "./exec_catalog.ts";
import { reloadExecManifest } from "./exec_manifest.ts";
import type { ManifestCatalog, ManifestCatalogOptions } from "../command/mcp/manifest_catalog.ts";
import type { ConfirmationStates } from "../command/mcp/confirmation_state.ts";
import type { ServeFilter } from "../command/mcp/tool_mapping.ts";
import { errorMessage } from "../command/run/thrown_error.ts";
import { clearLongTimeout, type LongTimeout, setLongTimeout } from "../command/run/time_limit.ts";
import { CommandError } from "../command/contract/command_error.ts";
import { ExitCode } from "../exit_code.ts";

/** How long one look may take when the CLI's calls have no time limit (`--call-timeout 0`). */
export const LOOK_TIMEOUT_MS = 60_000;

/** Options of {@linkcode LiveExecCatalog}. */
export interface LiveExecOptions {
  /** How often the CLI's files are looked at, in ms; 0 = never (the tool list stays as it started). */
  intervalMs: number;
  /** Every this many looks, the CLI is asked for its manifest even when none of its files changed. @default 5 */
  askEvery?: number;
  /** A diagnostic line (stderr): a new tool list, or a new manifest that was refused. */
  log(message: string): void;
  /**
   * The confirmations of every catalog this one serves, kept across new manifests: a fleet's, signed with its
   * shared secret. @default a key per catalog (a state asked for before a new manifest is refused after)
   */
  confirmations?: ConfirmationStates;
  /** What a destructive call waits on: the fleet's store answering ({@linkcode ManifestCatalogOptions.checkStore}). */
  checkStore?(): Promise<void>;
}

/**
 * The tools of a bridged CLI, following the CLI as it changes under a running server. While someone watches
 * (a session calls `watch`), the files the CLI's command line names — the program and any script — are
 * looked at every `intervalMs`; when one was replaced or rewritten, and every `askEvery` looks in any case,
 * the CLI is asked whether its manifest changed (`manifest --etag <held>`, which a toolwire CLI answers
 * without printing the manifest again). The ask may take as long as a call (`target.callTimeoutMs`, or
 * {@linkcode LOOK_TIMEOUT_MS} when calls have no limit); a CLI that takes longer has its process group
 * stopped. A changed manifest is checked like the first one; then it is served and every watcher is told. A
 * manifest that fails its checks, or an ask that fails or runs out of time, is reported on the log, the old
 * tool list goes on, and the looks go on. A call runs against the catalog it started with, to the end.
 *
 * @example
 * ```ts
 * import { processChannel } from "@toolwire/toolwire/framing";
 * import { serveMcp } from "@toolwire/toolwire/mcp";
 * import { loadExecManifest } from "./exec_manifest.ts";
 *
 * const target = { argv: ["python3", "tool.py"], callTimeoutMs: 60_000 };
 * const manifest = await loadExecManifest(target, AbortSignal.timeout(10_000));
 * const catalog = await LiveExecCatalog.create(target, manifest, { readOnly: false }, {
 *   intervalMs: 2_000,
 *   log: (message) => console.error(message),
 * });
 * await serveMcp({ channel: processChannel() }, { serverInfo: { name: "tool", version: "1.0.0" }, catalog });
 * ```
 */
export class LiveExecCatalog implements ToolCatalog {
  readonly #target: ExecTarget;
  readonly #filter: ServeFilter;
  readonly #options: LiveExecOptions;
  readonly #watchers = new Set<() => void>();
  #current: ManifestCatalog;
  #etag: string;
  #stamps: string;
  #timer: LongTimeout | undefined;
  #looks = 0;
  #stopped = new AbortController();

  private constructor(
    target: ExecTarget,
    filter: ServeFilter,
    options: LiveExecOptions,
    current: ManifestCatalog,
    etag: string,
    stamps: string,
  ) {
    this.#target = target;
    this.#filter = filter;
    this.#options = options;
    this.#current = current;
    this.#etag = etag;
    this.#stamps = stamps;
  }

  /** The catalog of `manifest`, watching `target` for a new one. */
  static async create(
    target: ExecTarget,
    manifest: Manifest,
    filter: ServeFilter,
    options: LiveExecOptions,
  ): Promise<LiveExecCatalog> {
    const current = execCatalog(target, manifest, filter, fleetOptions(options));
    return new LiveExecCatalog(target, filter, options, current, manifest.etag, await programStamps(target));
  }

  /** The tools of the manifest served now. */
  tools(): ReturnType<ToolCatalog["tools"]> {
    return this.#current.tools();
  }

  /** The scopes the served manifest's command requires (docs/auth.md). */
  requiredScopes(name: string): readonly string[] | undefined {
    return this.#current.requiredScopes(name);
  }

  /** Runs a call against the manifest served when it started. */
  call(call: ToolCall, context: ToolCallContext): Promise<ToolCallOutcome> {
    return this.#current.call(call, context);
  }

  /** Tells `onChange` about every new tool list until the returned function is called. */
  watch(onChange: () => void): () => void {
    this.#watchers.add(onChange);
    if (this.#watchers.size === 1 && this.#options.intervalMs > 0) {
      this.#stopped = new AbortController();
      this.#schedule();
    }
    return () => {
      this.#watchers.delete(onChange);
      if (this.#watchers.size > 0) return;
      clearLongTimeout(this.#timer);
      this.#timer = undefined;
      this.#stopped.abort();
    };
  }

  #schedule(): void {
    // Any interval works: a plain setTimeout fires at once past ~24.8 days (`--watch-interval 2147484`).
    this.#timer = setLongTimeout(
      () => void this.#look().finally(() => this.#watchers.size > 0 && this.#schedule()),
      this.#options.intervalMs,
    );
  }

  async #look(): Promise<void> {
    const stamps = await programStamps(this.#target);
    const replaced = stamps !== this.#stamps;
    this.#stamps = stamps;
    if (!replaced && ++this.#looks % (this.#options.askEvery ?? 5) !== 0) return;
    let manifest: Manifest | undefined;
    const limitMs = this.#target.callTimeoutMs > 0 ? this.#target.callTimeoutMs : LOOK_TIMEOUT_MS;
    try {
      manifest = await reloadExecManifest(this.#target, this.#etag, this.#stopped.signal, limitMs);
    } catch (error) {
      if (this.#stopped.signal.aborted) return;
      const timedOut = error instanceof CommandError && error.exitCode === ExitCode.TIMEOUT;
      this.#options.log(
        timedOut
          ? `mcp: asking the CLI for its manifest timed out; the tools stay as they were, and the next look asks again: ${
            errorMessage(error)
          }`
          : `mcp: the CLI's new manifest was refused; the tools stay as they were: ${errorMessage(error)}`,
      );
      return;
    }
    if (manifest === undefined || this.#stopped.signal.aborted) return;
    this.#current = execCatalog(this.#target, manifest, this.#filter, fleetOptions(this.#options));
    this.#etag = manifest.etag;
    this.#options.log(
      `mcp: the CLI's manifest changed (${manifest.etag}); serving ${this.#current.tools().length} tools`,
    );
    for (const watcher of this.#watchers) watcher();
  }
}

/** The stamps of the files the command line runs: the program, and every argument that names a file. */
async function programStamps(target: ExecTarget): Promise<string> {
  const files = programFiles(target.argv, currentHost({ env: target.env, cwd: target.cwd }));
  const stamps: string[] = [];
  for (const file of files) stamps.push(`${file}=${await fileStamp(file) ?? "-"}`);
  return stamps.join("\n");
}

/** The parts of the options every catalog of a fleet's instance is built with. */
function fleetOptions(
  options: LiveExecOptions,
): Pick<ManifestCatalogOptions, "confirmations" | "checkStore"> {
  return {
    ...(options.confirmations === undefined ? {} : { confirmations: options.confirmations }),
    ...(options.checkStore === undefined ? {} : { checkStore: options.checkStore }),
  };
}
