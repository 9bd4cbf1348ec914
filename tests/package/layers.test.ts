// The source's layers: lib/runtime → lib/framing → lib/protocol → lib/command → lib/bridge → cmd. A module
// imports from its own layer or a lower one, never a higher one, and the leaf modules directly under lib/
// (exit codes, JSON helpers, the version) import only each other, so that every layer can use them. Inside
// lib/command the same holds for its rooms: contract → input → run → mcp → cli → builtins → tool.ts. The
// binary (cmd/) reaches the library only through the package's entry points and lib/bridge/mod.ts (and its
// entry, before anything else, the compile cache), and the library's own modules never through an entry
// point. No module imports itself through others (no cycle), and none is over 600 lines.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { entryPoints } from "../helpers/entry_points.ts";
import { ROOT } from "../helpers/run.ts";

const LAYERS = ["lib/runtime", "lib/framing", "lib/protocol", "lib/command", "lib/bridge", "cmd"];
const COMMAND_ROOMS = ["contract", "input", "run", "mcp", "cli", "builtins", "tool.ts"];
/** The longest a module of the library may be. */
const MAX_MODULE_LINES = 600;

/** The sources of the package's entry points, as paths from the root. */
function entrySources(): string[] {
  return entryPoints().map((entry) => join(entry.source));
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The layer's rank, -1 for a leaf module directly under lib/, undefined outside the layers. */
function rank(path: string): number | undefined {
  if (dirname(path) === "lib") return -1;
  const index = LAYERS.findIndex((layer) => path.startsWith(`${layer}/`));
  return index === -1 ? undefined : index;
}

/** The room of lib/command a module is in, by rank; undefined outside lib/command. */
function roomRank(path: string): number | undefined {
  const parts = path.split(sep);
  if (parts[0] !== "lib" || parts[1] !== "command") return undefined;
  const rank = COMMAND_ROOMS.indexOf(parts[2]!);
  return rank === -1 ? undefined : rank;
}

/** The modules a module imports by a relative specifier: statically, `export … from`, and `import()`. */
function localImports(path: string): string[] {
  const text = readFileSync(join(ROOT, path), "utf8");
  const specifiers = [
    ...[...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms)].map((match) =>
      match[1]!
    ),
    ...[...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)].map((match) => match[1]!),
  ];
  return specifiers.map((specifier) => relative(ROOT, join(ROOT, dirname(path), specifier)));
}

/** The import cycles among `files`: each a list of the modules that reach one another (Tarjan's algorithm). */
function cycles(files: readonly string[]): string[][] {
  const graph = new Map(
    files.map((file) => [file, localImports(file).filter((target) => files.includes(target))]),
  );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node)!) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop()!;; member = stack.pop()!) {
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe("source layers", () => {
  it("no module imports from a layer above its own, and a leaf module under lib/ imports only leaves", () => {
    const files = [...sources("lib"), ...sources("cmd")];
    assert.ok(files.includes(join("lib", "json.ts")), "lib/json.ts is a leaf module");
    const backEdges: string[] = [];
    for (const file of files) {
      const from = rank(file)!;
      for (const target of localImports(file)) {
        const to = rank(target);
        if (to === undefined) continue;
        if (from === -1 ? to !== -1 : to > from) backEdges.push(`${file} imports ${target}`);
      }
    }
    assert.deepEqual(backEdges, []);
  });

  it("inside lib/command a room imports only from itself and the rooms before it: contract, input, run, mcp, cli, builtins, tool.ts", () => {
    const backEdges = sources("lib/command").flatMap((file) => {
      const from = roomRank(file);
      if (from === undefined) return [];
      return localImports(file).filter((target) => (roomRank(target) ?? -1) > from)
        .map((target) => `${file} imports ${target}`);
    });
    assert.deepEqual(backEdges, []);
    const cliFromBelow = sources("lib/command").filter((file) => /^lib.command.(contract|run|mcp)/.test(file))
      .flatMap((file) =>
        localImports(file).filter((target) => target.startsWith(join("lib", "command", "cli")))
      );
    assert.deepEqual(cliFromBelow, [], "no command-line module is imported by contract/, run/ or mcp/");
  });

  it("has no import cycle, type imports and import() included", () => {
    assert.deepEqual(cycles([...sources("lib"), ...sources("cmd"), "mod.ts"]), []);
  });

  it("keeps every module under lib/ within 600 lines, so that each can be read whole", () => {
    const modules = sources("lib");
    assert.ok(modules.length > 100, "the modules were found");
    const long = modules.map((file) => ({
      file,
      lines: readFileSync(join(ROOT, file), "utf8").split("\n").length - 1,
    })).filter(({ lines }) => lines > MAX_MODULE_LINES);
    assert.deepEqual(long, []);
  });

  it("the library's own modules import other modules, never a package entry point", () => {
    // On npm an entry point is a facade over the shared chunk: a module of dist/lib reaching it would mix
    // that chunk with dist/lib's per-file copies of the same modules.
    const entries = new Set(entrySources().filter((path) => path.startsWith(`lib${sep}`)));
    const reaches = sources("lib").flatMap((file) =>
      localImports(file).filter((target) => entries.has(target) && target !== file)
        .map((target) => `${file} imports ${target}`)
    );
    assert.deepEqual(reaches, []);
  });

  it("cmd/ imports the library only through its entry points, lib/bridge/mod.ts and the compile cache", () => {
    // The binary's entry turns on the compile cache before it loads anything else of the library.
    const allowed = new Set([
      ...entrySources(),
      join("lib", "bridge", "mod.ts"),
      join("lib", "runtime", "compile_cache.ts"),
    ]);
    assert.ok(allowed.has("mod.ts") && allowed.has(join("lib", "protocol", "mcp", "mod.ts")));
    const reaches = sources("cmd").flatMap((file) =>
      localImports(file).filter((target) => !target.startsWith(`cmd${sep}`) && !allowed.has(target))
        .map((target) => `${file} imports ${target}`)
    );
    assert.deepEqual(reaches, []);
  });
});
