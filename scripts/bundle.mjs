#!/usr/bin/env node
// After `tsc` has emitted dist/ (per-file JS and the .d.ts files that type the package), the entry points
// Node users load are replaced by bundles at the same paths: `dist/mod.js` (the library), its subpaths
// `dist/lib/protocol/{mcp,lsp,dap}/mod.js` and `dist/lib/framing/mod.js`, and `dist/cmd/toolwire.js` (the
// binary). A process that loads two or three files instead of ~70 ES modules starts ~40 ms sooner, and an
// MCP client in auto mode spawns a server twice per connect.
//
// The library is two chunks, and every module of it is in exactly one of them:
//
// - `dist/chunks/toolwire.js`: everything `mod.ts` reaches by static imports — what a tool built with
//   `createTool` runs, `mcp serve` included. `dist/mod.js` re-exports it and loads nothing else.
// - `dist/chunks/toolwire_rest.js`: the rest — the LSP and DAP servers, Content-Length framing, what the
//   binary uses (lib/bridge/mod.ts), and the modules the library loads with `import()` only when a rarely
//   run built-in needs them (DEFERRED). It imports the first chunk and re-exports every library entry and
//   the bridge; the subpath entries and the binary import it.
//
// V8 parses a whole module before running any of it, so every start of a tool pays for each byte of the
// chunk it loads: ~150 KB, not the whole ~220 KB library. The chunks are minified (whitespace and syntax:
// ~25% fewer bytes; names stay, so a stack trace names the functions, and the source maps lead to lib/).
//
// One copy of each module is what makes `instanceof CommandError` hold across entries and keeps one stdio
// channel per process: bundling each entry on its own would copy what they share into each. esbuild's code
// splitting keeps one copy; over all the entries it would cut the library into a chunk per set of entries
// that use a piece (eight of them), each one more file to load at every start. Split between `mod.ts` and
// the rest, it makes exactly the two chunks above, and `chunkNames` without a hash makes a third one an
// error rather than a silent extra file.
import { build } from "esbuild";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The package's library entry points (package.json and deno.json `exports`); the first is the main one. */
const LIBRARY = [
  "mod.ts",
  "lib/protocol/mcp/mod.ts",
  "lib/protocol/lsp/mod.ts",
  "lib/protocol/dap/mod.ts",
  "lib/framing/mod.ts",
];
/** What the binary uses of the library besides the public entries. */
const BRIDGE = "lib/bridge/mod.ts";
/** The modules the library imports with `import()`: they go to the second chunk, loaded on first use. */
const DEFERRED = [
  "lib/command/builtins/completions/completion_script.ts",
  "lib/command/builtins/mcp_install/install_server.ts",
];
const BINARY = "cmd/toolwire.ts";
const CHUNK = "dist/chunks/toolwire.js";
const REST = "dist/chunks/toolwire_rest.js";

// Only what this build writes: nothing left over from an earlier one ships with the package.
await rm(join(root, "dist", "chunks"), { recursive: true, force: true });

const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  absWorkingDir: root,
  write: false,
  minifyWhitespace: true,
  minifySyntax: true,
  // Each bundle ships with a source map that carries the TypeScript sources, so a stack trace can be read
  // against lib/ (`node --enable-source-maps`) although the package ships no sources.
  sourcemap: "linked",
  sourcesContent: true,
};

/** The second chunk's entry: every library entry, the bridge and the deferred modules, re-exported. */
const restEntry = {
  name: "rest-entry",
  setup(build) {
    build.onResolve({ filter: /^toolwire-rest$/ }, () => ({ path: "toolwire-rest", namespace: "rest" }));
    build.onLoad({ filter: /.*/, namespace: "rest" }, () => ({
      contents: [...LIBRARY, BRIDGE, ...DEFERRED].map((entry) => `export * from "./${entry}";`).join("\n"),
      resolveDir: root,
      loader: "ts",
    }));
  },
};

/**
 * An `import()` in the library loads the second chunk, which exports what the deferred module does. Left to
 * itself, esbuild would make each imported module a chunk of its own.
 */
const deferredToRest = {
  name: "deferred-to-rest",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      const target = relative(root, resolve(args.resolveDir, args.path));
      if (!DEFERRED.includes(target)) {
        return {
          errors: [{
            text: `${relative(root, args.importer)} imports ${target} with import(): list it in DEFERRED`,
          }],
        };
      }
      // Both chunks are in one directory, and no entry's own code holds an import().
      return { path: `./${relative(dirname(CHUNK), REST)}`, external: true };
    });
  },
};

const chunks = await build({
  ...common,
  entryPoints: [{ in: LIBRARY[0], out: "mod" }, {
    in: "toolwire-rest",
    out: relative("dist", REST).replace(/\.js$/, ""),
  }],
  outdir: "dist",
  splitting: true,
  chunkNames: relative("dist", CHUNK).replace(/\.js$/, ""),
  metafile: true,
  plugins: [restEntry, deferredToRest],
});

// A deferred module that `mod.ts` also reaches by a static import lands in the first chunk, and every start
// parses it again.
for (const module of DEFERRED) {
  if (Object.hasOwn(chunks.metafile.outputs[CHUNK].inputs, module)) {
    throw new Error(`${module} is imported statically from mod.ts: it would be loaded at every start`);
  }
}

// `export *` of two modules that export the same name keeps one of them without a word: an `import()` of a
// deferred module could then get another module's function. So no name a deferred module exports may be
// exported by anything else the second chunk re-exports.
const exportsOf = async (module) => {
  const alone = await build({
    ...common,
    entryPoints: [module],
    outdir: "out",
    metafile: true,
    sourcemap: false,
  });
  return Object.values(alone.metafile.outputs)[0].exports;
};
const exporters = new Map();
for (const module of [...LIBRARY, BRIDGE, ...DEFERRED]) {
  for (const name of await exportsOf(module)) exporters.set(name, [...(exporters.get(name) ?? []), module]);
}
for (const [name, modules] of exporters) {
  if (modules.length > 1 && modules.some((module) => DEFERRED.includes(module))) {
    throw new Error(`${modules.join(" and ")} both export ${name}: rename it in the deferred module`);
  }
}

/** Every import that leaves an entry's own code is an import of the second chunk, which re-exports all. */
const toRest = {
  name: "to-rest",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === "entry-point") return undefined;
      const target = relative(root, resolve(args.resolveDir, args.path));
      const fromBinary = relative(root, args.importer).startsWith("cmd/");
      if (fromBinary && target.startsWith("cmd/")) return undefined;
      if (fromBinary && ![...LIBRARY, BRIDGE].includes(target)) {
        return {
          errors: [{
            text: `${relative(root, args.importer)} imports ${target}: the binary reaches the library only ` +
              `through its entry points and ${BRIDGE}`,
          }],
        };
      }
      const entry = fromBinary ? BINARY : relative(root, args.importer);
      const from = dirname(join(root, "dist", entry));
      return { path: `./${relative(from, join(root, REST))}`.replace(/^\.\/\.\.\//, "../"), external: true };
    });
  },
};

const entries = await build({
  ...common,
  entryPoints: [...LIBRARY.slice(1), BINARY],
  outbase: ".",
  outdir: "dist",
  entryNames: "[dir]/[name]",
  plugins: [toRest],
});

for (const file of [...chunks.outputFiles, ...entries.outputFiles]) {
  await mkdir(dirname(file.path), { recursive: true });
  await writeFile(file.path, file.path.endsWith(".map") ? file.text : asciiOnly(file.text));
}

/**
 * esbuild escapes non-ASCII characters in strings but keeps them in the comments it preserves, and one such
 * character makes V8 hold the whole source as two-byte text: decoding and scanning it then cost ~2 ms more
 * at every start. A `\uXXXX` escape means the same character in a string, template, regular expression or
 * identifier, and is just text in a comment.
 */
function asciiOnly(text) {
  return text.replace(/[\u0080-\u{10ffff}]/gu, (char) => {
    const code = char.codePointAt(0);
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
