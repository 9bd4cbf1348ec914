/**
 * Node's `process`, and the Node built-ins the runtime adapter loads on first use.
 *
 * Read from the global at each use, never imported or read at import time: either would cost every start
 * (on Deno it loads the Node compatibility layer; docs/performance.md#what-a-start-must-not-touch-on-deno).
 * The adapter's Deno paths use the `Deno` namespace and reach these only for what Deno has no API of its
 * own for (files through `node:fs`, child processes, sockets).
 * @module
 */
import type * as NodeFs from "node:fs/promises";
import type * as NodeOs from "node:os";
import type * as NodePath from "node:path";

/**
 * The running process (Node's `process`, or Deno's Node-compatible one, made on this first call).
 *
 * @example
 * ```ts
 * import { nodeProcess } from "./node_process.ts";
 *
 * nodeProcess().exitCode = 0;
 * ```
 */
export function nodeProcess(): NodeJS.Process {
  return globalThis.process;
}

/**
 * `node:path`, loaded on first use.
 *
 * @example
 * ```ts
 * import { nodePath } from "./node_process.ts";
 *
 * const file = nodePath().join("/tmp", "notes.json");
 * ```
 */
export function nodePath(): typeof NodePath {
  return nodeProcess().getBuiltinModule("node:path");
}

/**
 * `node:fs/promises`, loaded on first use: it pulls in a dozen internal modules (readline among them), which
 * a tool that answers `--help` or serves MCP without touching its files never needs.
 *
 * @example
 * ```ts
 * import { nodeFs } from "./node_process.ts";
 *
 * const text = await nodeFs().readFile("notes.json", "utf8");
 * ```
 */
export function nodeFs(): typeof NodeFs {
  return nodeProcess().getBuiltinModule("node:fs/promises") as typeof NodeFs;
}

/**
 * `node:os`, loaded on first use.
 *
 * @example
 * ```ts
 * import { nodeOs } from "./node_process.ts";
 *
 * const home = nodeOs().homedir();
 * ```
 */
export function nodeOs(): typeof NodeOs {
  return nodeProcess().getBuiltinModule("node:os") as typeof NodeOs;
}
