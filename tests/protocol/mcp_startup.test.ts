// What `mcp serve` costs before its first answer. On Node: it serves the process's own stdio without Web
// Streams, perf_hooks or fs/promises (each a set of Node internals to load at every start, and MCP clients
// in auto mode start a server twice per connect). On Deno: it never loads Deno's Node compatibility layer
// (~5 ms for `process`, ~4 ms more for the timers), neither by a static `node:` import nor by reading one of
// the globals that load it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { entryPoints } from "../helpers/entry_points.ts";
import { lastLine, programArgv, ROOT, run, RUNTIME } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const LAZY = programArgv("tests/fixtures/lazy_globals.ts");
const CALL =
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}\n';

describe("mcp serve startup on Node", { skip: RUNTIME !== "node" ? "Node only" : false }, () => {
  it("answers a call and exits without loading Web Streams, perf_hooks or fs/promises", async () => {
    const [node, ...rest] = LAB;
    const argv = [
      node!,
      "--import",
      join(ROOT, "tests", "fixtures", "loaded_modules.mjs"),
      ...rest,
      "mcp",
      "serve",
    ];
    const result = await run(argv, { stdin: CALL });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /"id":1,"result":\{"content":\[\{"type":"text","text":"\{\\"ok\\":true/);
    const loaded = JSON.parse(lastLine(result.stderr).replace(/^LOADED /, "")) as string[];
    assert.ok(loaded.length > 50, "the load list was read");
    // Node's bootstrap itself loads a few helpers of these (webstreams/util, perf/utils): named exactly.
    const unwanted = loaded.filter((name) =>
      /^NativeModule (internal\/webstreams\/(readable|writable|transform)stream|perf_hooks|internal\/perf\/performance|fs\/promises)$/
        .test(name)
    );
    assert.deepEqual(unwanted, []);
  });
});

describe("mcp serve startup on Deno", { skip: RUNTIME !== "deno" ? "Deno only" : false }, () => {
  it("imports no Node built-in for its code, from any module of any entry point", async () => {
    const [denoBin] = LAZY;
    // Each built entry (what the packages serve) and its source (what a checkout runs).
    const entries = entryPoints().flatMap((entry) => [entry.built, entry.source]);
    assert.ok(entries.includes("dist/mod.js") && entries.includes("mod.ts"), "the entry points were read");
    for (const entry of entries) {
      const result = await run([denoBin!, "info", "--json", join(ROOT, entry)]);
      assert.equal(result.code, 0, result.stderr);
      const graph = JSON.parse(result.stdout) as {
        modules: Array<{ specifier: string; dependencies?: Array<{ specifier: string; code?: unknown }> }>;
      };
      assert.ok(graph.modules.length > 1, `the module graph of ${entry} was read`);
      const nodeImports = graph.modules.flatMap((module) =>
        (module.dependencies ?? [])
          .filter((dependency) => dependency.specifier.startsWith("node:") && dependency.code !== undefined)
          .map((dependency) =>
            `${module.specifier.slice(ROOT.length + "file://".length)}: ${dependency.specifier}`
          )
      );
      assert.deepEqual(nodeImports, [], entry);
    }
  });

  it("answers a call and exits without reading process, Buffer or the timers", async () => {
    const result = await run([...LAZY, "mcp", "serve"], { stdin: CALL });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /"id":1,"result":\{"content":\[\{"type":"text","text":"\{\\"ok\\":true/);
    assert.match(lastLine(result.stderr), /^TOUCHED /, "the fixture reported");
    assert.deepEqual(JSON.parse(lastLine(result.stderr).replace(/^TOUCHED /, "")), []);
  });
});
