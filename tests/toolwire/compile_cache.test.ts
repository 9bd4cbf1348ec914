// The toolwire binary turns on Node's compile cache (Node >= 22.1) in a directory under the user's cache dir,
// so that its next start reads the library's compiled code back instead of compiling it again; where it
// cannot (Node 20, Deno, a directory it cannot make), it runs exactly as without it and says nothing.
// Node's own debug channel (NODE_DEBUG_NATIVE=COMPILE_CACHE) tells whether a start used the cache.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { finished, onlyEnvelope, ROOT, RUNTIME, tempDir } from "../helpers/run.ts";
import { TOOLWIRE } from "../helpers/toolwire.ts";

const [major = 0, minor = 0] = RUNTIME === "node" ? process.versions.node.split(".").map(Number) : [];
/** `module.enableCompileCache()` came with Node 22.1. */
const CACHES = RUNTIME === "node" && (major > 22 || (major === 22 && minor >= 1));
const runtime = RUNTIME === "node" ? `Node ${process.versions.node}` : "Deno";

/**
 * `toolwire --version` with Node's compile-cache debug output on stderr, in this environment: the test's
 * own, less every variable that steers the cache unless `env` sets it, less `unset`.
 */
async function version(env: Record<string, string>, unset: string[] = []) {
  const full: Record<string, string | undefined> = {
    ...process.env,
    NODE_DEBUG_NATIVE: "COMPILE_CACHE",
    ...env,
  };
  for (const name of ["XDG_CACHE_HOME", "NODE_COMPILE_CACHE", "NODE_DISABLE_COMPILE_CACHE", ...unset]) {
    if (!(name in env)) delete full[name];
  }
  const [command, ...args] = TOOLWIRE;
  const child = spawn(command!, [...args, "--version"], {
    cwd: ROOT,
    env: full,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const result = await finished(child);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(onlyEnvelope(result.stdout).data.name, "toolwire");
  return result;
}

/** The files under a directory, recursively, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((path) =>
    statSync(join(dir, path)).isFile()
  )
    .sort();
}

const ACCEPTED = /V8 code cache for ESM \S*\/chunks\/toolwire\.js was accepted/;

describe(`the toolwire binary's compile cache (${runtime})`, () => {
  it(
    CACHES
      ? "is written under $XDG_CACHE_HOME/toolwire/node-compile-cache, and the next start uses it"
      : "is never written on Node 20 or Deno",
    async () => {
      const cache = tempDir();
      try {
        const first = await version({ XDG_CACHE_HOME: cache.path });
        const files = filesUnder(join(cache.path, "toolwire", "node-compile-cache"));
        if (!CACHES) {
          // Deno keeps its own caches under XDG_CACHE_HOME (deno/), so only toolwire's directory is looked at.
          assert.deepEqual(files, []);
          assert.doesNotMatch(first.stderr, /compile cache/);
          return;
        }
        // One file per module compiled with the cache on: the library's chunks and the binary's own code.
        assert.ok(files.length >= 3, `cache files: ${files.join(", ")}`);
        assert.doesNotMatch(first.stderr, ACCEPTED, "nothing to read back at the first start");
        const second = await version({ XDG_CACHE_HOME: cache.path });
        assert.match(second.stderr, ACCEPTED);
      } finally {
        cache.cleanup();
      }
    },
  );

  it(
    "falls back to ~/.cache when XDG_CACHE_HOME is unset or relative",
    { skip: !CACHES && runtime },
    async () => {
      const home = tempDir();
      try {
        await version({ HOME: home.path });
        assert.ok(filesUnder(join(home.path, ".cache", "toolwire", "node-compile-cache")).length >= 3);
        const other = tempDir();
        try {
          await version({ HOME: other.path, XDG_CACHE_HOME: "relative/cache" });
          assert.ok(filesUnder(join(other.path, ".cache", "toolwire", "node-compile-cache")).length >= 3);
        } finally {
          other.cleanup();
        }
      } finally {
        home.cleanup();
      }
    },
  );

  it("a cache directory it cannot make changes nothing: the same answer, exit 0, no word on stderr", async () => {
    const dir = tempDir();
    try {
      // A path under a regular file cannot be a directory, whoever runs the test (root included).
      const file = join(dir.path, "not-a-directory");
      writeFileSync(file, "");
      const result = await version({ XDG_CACHE_HOME: join(file, "cache") }, ["NODE_DEBUG_NATIVE"]);
      assert.equal(result.stderr, "");
      assert.deepEqual(filesUnder(dir.path), ["not-a-directory"]);
    } finally {
      dir.cleanup();
    }
  });

  it("NODE_DISABLE_COMPILE_CACHE=1 keeps it off, and NODE_COMPILE_CACHE names another directory", async () => {
    const cache = tempDir();
    const chosen = tempDir();
    try {
      const toolwire = join(cache.path, "toolwire");
      await version({ XDG_CACHE_HOME: cache.path, NODE_DISABLE_COMPILE_CACHE: "1" });
      assert.deepEqual(filesUnder(toolwire), []);
      await version({ XDG_CACHE_HOME: cache.path, NODE_COMPILE_CACHE: chosen.path });
      assert.deepEqual(filesUnder(toolwire), []);
      assert.equal(filesUnder(chosen.path).length >= 3, CACHES);
    } finally {
      cache.cleanup();
      chosen.cleanup();
    }
  });
});
