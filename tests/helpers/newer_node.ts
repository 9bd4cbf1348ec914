/**
 * A Node binary of at least a given major, for a tool that needs a newer Node than the suite's floor (the MCP
 * conformance suite needs Node >= 22): the Node running the tests when it is one, `node` on PATH, or the
 * oldest of the pinned Nodes that is new enough (for the conformance suite, Node 24, which scripts/test.mjs
 * installs for it on a Node 20 machine), each in `.node/<version>/node_modules/node-linux-<arch>/bin/node`
 * (git-ignored).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { ROOT, RUNTIME } from "./run.ts";

/** Where the pinned Nodes live. */
export const NODE_DIR = join(ROOT, ".node");

function majorOf(version: string): number {
  return Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0);
}

/** The pinned Nodes installed, oldest first, each with its version. */
function pinnedNodes(): Array<{ version: string; binary: string }> {
  if (!existsSync(NODE_DIR)) return [];
  return readdirSync(NODE_DIR)
    .filter((version) => /^\d+\.\d+\.\d+$/.test(version))
    .map((version) => ({
      version,
      binary: join(NODE_DIR, version, "node_modules", `node-linux-${process.arch}`, "bin", "node"),
    }))
    .filter((node) => existsSync(node.binary))
    .sort((a, b) => a.version.localeCompare(b.version, "en", { numeric: true }));
}

/**
 * A Node binary of major `least` or newer, or why there is none (a reason to print when skipping).
 *
 * @example
 * ```ts
 * const node = newerNode(22);
 * if ("reason" in node) console.warn(`skipped: ${node.reason}`);
 * ```
 */
export function newerNode(least: number): { binary: string } | { reason: string } {
  if (RUNTIME === "node" && majorOf(process.version) >= least) return { binary: process.execPath };
  const onPath = spawnSync("node", ["--version"], { encoding: "utf8" });
  if (onPath.status === 0 && majorOf(onPath.stdout.trim()) >= least) return { binary: "node" };
  const pinned = pinnedNodes().find((node) => majorOf(node.version) >= least);
  if (pinned !== undefined) return { binary: pinned.binary };
  return {
    reason: `no Node >= ${least}: not the one running the tests, not \`node\` on PATH, none under .node/ ` +
      `(\`node scripts/node_versions.mjs install 24\` puts one there; npm test does it when it is missing)`,
  };
}
