import { lastLine, runChild } from "./child_run.ts";
import { readEnvelope } from "../command/contract/envelope_validation.ts";
import type { ExecTarget } from "./exec_catalog.ts";
import { isRecord } from "../json.ts";

/** Milliseconds `<cli> --version` may take before it is stopped and its answer given up on. */
const VERSION_TIMEOUT_MS = 5_000;

/** Who a bridged CLI says it is: what `toolwire mcp serve --exec` announces as its server. */
export interface ExecIdentity {
  name: string;
  version: string;
  /** One sentence about the tool, when its `--version` gives one. */
  description?: string;
}

/**
 * Asks a CLI who it is: `<cli> --format json --version` (no shell, empty stdin, in `target.cwd`, stopped after
 * 5 s or when `signal` fires). The manifest format has no member for the tool's identity, so this is where a
 * toolwire tool reports it: an envelope whose `data` has `name` and `version` strings, and maybe
 * `description`. `undefined` when the CLI gives no such answer — it is then served under toolwire's own name.
 *
 * @example
 * ```ts
 * const target = { argv: ["notes"], callTimeoutMs: 60_000 };
 * const identity = await loadExecIdentity(target, AbortSignal.timeout(10_000));
 * identity?.name; // "notes"
 * ```
 */
export async function loadExecIdentity(
  target: ExecTarget,
  signal: AbortSignal,
): Promise<ExecIdentity | undefined> {
  const run = await runChild([...target.argv, "--format", "json", "--version"], {
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    // The same environment as the manifest and every call: --env-allow holds for this run too.
    ...(target.env === undefined ? {} : { env: target.env }),
    timeoutMs: VERSION_TIMEOUT_MS,
    signal,
  });
  if (run.ending === "cancelled") throw signal.reason;
  if (run.ending !== "exited" || run.exit.code !== 0) return undefined;
  const read = readEnvelope(lastLine(run.stdout));
  if (!("envelope" in read) || !read.envelope.ok) return undefined;
  const data = read.envelope.data;
  if (!isRecord(data)) return undefined;
  const { name, version, description } = data;
  if (!isLabel(name) || !isLabel(version)) return undefined;
  return { name, version, ...(isLabel(description) ? { description } : {}) };
}

/** A short single-line text: what an MCP client may show as a server's name or version. */
function isLabel(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "" && value.length <= 1_000 && !/[\r\n]/.test(value);
}
