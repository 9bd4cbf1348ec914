import type * as NodeUrl from "node:url";
import { nodePath, nodeProcess } from "./node_process.ts";
import { deno, type DenoApi } from "./deno_api.ts";

/** The parts of the `Deno` namespace that say how this process was started. */
interface DenoLaunchApi {
  mainModule: string;
  build: { standalone?: boolean };
  permissions: { querySync(descriptor: { name: string }): { state: string } };
}

/** How to start this very program again, e.g. for an MCP client's configuration. */
export interface SelfLaunch {
  /** The executable: the runtime (node, deno) or a self-contained binary. */
  command: string;
  /** The arguments before the program's own: runtime options and the entry script. */
  args: string[];
  /** What the relaunch may lack compared with this run, for a person to check. */
  caveat?: string;
}

// Deno's permissions, each repeated as --allow-<name> when this run holds it in full.
const DENO_PERMISSIONS = ["read", "write", "net", "env", "run", "sys", "ffi", "import"] as const;

/**
 * How this process was started — the runtime's executable, its options and the entry script — so another
 * process can start the same program: Node's `process.execPath` + `process.execArgv` + the main script,
 * Deno's `execPath()` + `run` + the permissions this run holds + the main module, or a compiled binary
 * (`deno compile`, a Node single executable) alone. `undefined` when there is no entry script (`node -e`).
 *
 * @example
 * ```ts
 * const launch = selfLaunch(); // { command: "/usr/bin/node", args: ["/opt/notes/main.js"] }
 * ```
 */
export function selfLaunch(): SelfLaunch | undefined {
  if (deno) return denoLaunch(deno as DenoApi & DenoLaunchApi);
  const process = nodeProcess();
  const sea = process.getBuiltinModule("node:sea") as { isSea?(): boolean } | undefined;
  if (sea?.isSea?.() === true) return { command: process.execPath, args: [] };
  const main = process.argv[1];
  if (main === undefined || main === "") return undefined;
  return { command: process.execPath, args: [...process.execArgv, nodePath().resolve(main)] };
}

function denoLaunch(api: DenoApi & DenoLaunchApi): SelfLaunch {
  if (api.build.standalone === true) return { command: api.execPath(), args: [] };
  const { fileURLToPath } = nodeProcess().getBuiltinModule("node:url") as typeof NodeUrl;
  const main = api.mainModule.startsWith("file:") ? fileURLToPath(api.mainModule) : api.mainModule;
  const granted: string[] = [];
  const missing: string[] = [];
  for (const name of DENO_PERMISSIONS) {
    let state: string;
    try {
      state = api.permissions.querySync({ name }).state;
    } catch {
      continue; // a permission this Deno does not know
    }
    (state === "granted" ? granted : missing).push(name);
  }
  if (missing.length === 0) return { command: api.execPath(), args: ["run", "-A", main] };
  return {
    command: api.execPath(),
    args: ["run", ...granted.map((name) => `--allow-${name}`), main],
    caveat:
      `this run does not hold every permission in full (${missing.join(", ")}); a narrower grant such as ` +
      `--allow-read=<dir> is not carried over: add it to the args by hand if the server needs it`,
  };
}

/**
 * The operating system, in Node's spelling: `darwin`, `linux`, `win32`, …
 *
 * @example
 * ```ts
 * if (platformName() === "win32") console.error("paths use backslashes");
 * ```
 */
export function platformName(): string {
  if (!deno) return nodeProcess().platform;
  return deno.build.os === "windows" ? "win32" : deno.build.os;
}
