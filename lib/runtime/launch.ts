import type * as NodeUrl from "node:url";
import { nodePath, nodeProcess } from "./node_process.ts";
import { deno, type DenoApi } from "./deno_api.ts";

/** The parts of the `Deno` namespace that say how this process was started. */
interface DenoLaunchApi {
  mainModule: string;
  build: { standalone?: boolean };
}

/** How to start this very program again, e.g. for an MCP client's configuration. */
export interface SelfLaunch {
  /** The executable: the runtime (node, deno) or a self-contained binary. */
  command: string;
  /** The arguments before the program's own: runtime options and the entry script. */
  args: string[];
  /** What runs the program: Node and its script, Deno and its main module, or a self-contained binary. */
  runtime: "node" | "deno" | "binary";
}

/**
 * How this process was started — the runtime's executable, its options and the entry script — so another
 * process can start the same program: Node's `process.execPath` + `process.execArgv` + the main script,
 * Deno's `execPath()` + `run` + `denoPermissions` + the main module, or a compiled binary (`deno compile`,
 * a Node single executable) alone. `undefined` when there is no entry script (`node -e`).
 *
 * On Deno the permissions are the ones given, never those this run holds: what one command needed (a
 * person's `--allow-write` for `mcp install`) is no grant for every later run of the program.
 *
 * @example
 * ```ts
 * const launch = selfLaunch(["--allow-env=NOTES_HOME"]); // { command: "/usr/bin/node", args: ["/opt/notes/main.js"], runtime: "node" }
 * ```
 */
export function selfLaunch(denoPermissions: readonly string[] = []): SelfLaunch | undefined {
  if (deno) return denoLaunch(deno as DenoApi & DenoLaunchApi, denoPermissions);
  const process = nodeProcess();
  const sea = process.getBuiltinModule("node:sea") as { isSea?(): boolean } | undefined;
  if (sea?.isSea?.() === true) return { command: process.execPath, args: [], runtime: "binary" };
  const main = process.argv[1];
  if (main === undefined || main === "") return undefined;
  return {
    command: process.execPath,
    args: [...process.execArgv, nodePath().resolve(main)],
    runtime: "node",
  };
}

function denoLaunch(api: DenoApi & DenoLaunchApi, permissions: readonly string[]): SelfLaunch {
  if (api.build.standalone === true) return { command: api.execPath(), args: [], runtime: "binary" };
  const { fileURLToPath } = nodeProcess().getBuiltinModule("node:url") as typeof NodeUrl;
  const main = api.mainModule.startsWith("file:") ? fileURLToPath(api.mainModule) : api.mainModule;
  return { command: api.execPath(), args: ["run", ...permissions, main], runtime: "deno" };
}
