#!/usr/bin/env node
// After `tsc` has emitted dist/ (per-file JS and the .d.ts files that type the package), the entry points
// Node users load are replaced by bundles at the same paths: `dist/mod.js` (the library), its subpaths
// `dist/lib/protocol/{mcp,lsp,dap}/mod.js` and `dist/lib/framing/mod.js`, and the binary: `dist/cmd/toolwire.js`
// (its entry, which turns on Node's compile cache) and `dist/cmd/toolwire_tool.js` (the binary's own code). A
// process that loads two or three files instead of ~70 ES modules starts ~40 ms sooner, and an MCP client in
// auto mode spawns a server twice per connect.
//
// The library is a few chunks, and every module of it is in exactly one of them:
//
// - `dist/chunks/toolwire.js`: what `mod.ts` uses of the modules it reaches by static imports — what a tool
//   built with `createTool` runs, `mcp serve` included. `dist/mod.js` re-exports it and loads nothing else.
// - `dist/chunks/toolwire_rest.js`: the rest — the LSP and DAP servers, Content-Length framing, what the
//   binary uses (lib/bridge/mod.ts), and the modules the library loads with `import()` only when a rarely
//   run built-in needs them (DEFERRED). It imports the first chunk and re-exports every library entry and
//   the bridge; the subpath entries and the binary import it.
// - the lazy chunks (LAZY): modules the library loads with `import()` on paths that are common but not at
//   every start — `toolwire_lock.js`, the file lock that a tool's writers, idempotency keys and `mcp install`
//   take; `toolwire_text.js`, the help, plain text and `--output` file a person at a terminal gets. Kept
//   apart from the second chunk, a run that needs one loads a few KB, not the ~190 KB of LSP, DAP and the
//   bridge. Each imports the first chunk and re-exports its own modules.
//
// V8 parses a whole module before running any of it, so every start of a tool pays for each byte of the
// chunk it loads: ~240 KB, not the whole ~460 KB library. A file more costs a run that loads it ~0.6 M
// instructions (~0.9 M by `import()`), so a module goes to a lazy chunk only when most runs never need it.
//
// The chunks are not minified. Node prints the source line of an uncaught error's throw site above the
// error, and a tool author's first registration mistake is thrown from the first chunk: minified to one
// line per module, that line was 35 KB of text before the message. Readable lines cost the start ~4 M
// instructions of ~240 M on Node 24 (minifying whitespace and syntax saved ~28 % of the bytes;
// docs/performance.md), and the source maps still lead to lib/.
//
// One copy of each module is what makes `instanceof CommandError` hold across entries and keeps one stdio
// channel per process: bundling each entry on its own would copy what they share into each. esbuild's code
// splitting keeps one copy; over all the entries it would cut the library into a chunk per set of entries
// that use a piece (eight of them), each one more file to load at every start. Split between `mod.ts` and
// the rest, it makes exactly the chunks above, and `chunkNames` without a hash makes another one an error
// rather than a silent extra file: each lazy entry imports `mod.ts` for that, so that every module of the
// first chunk is shared by the same entries.
import { build } from "esbuild";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { eagerStart } from "./eager_start.mjs";

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
  "lib/command/builtins/mcp_listen/listen_server.ts",
  "lib/command/builtins/mcp_listen/listen_state.ts",
];
/**
 * The modules the library imports with `import()` on paths that are common but not at every start, by the
 * chunk that holds them: a run loads a chunk when it first uses one of its modules. The second chunk, or
 * another lazy one, that imports such a module statically imports its chunk; the first chunk may not (every
 * start would load it: the build fails).
 */
const LAZY = {
  // A tool's own writers, idempotency keys and `mcp install` take the file lock.
  "dist/chunks/toolwire_lock.js": ["lib/runtime/file_lock.ts"],
  // What a person at a terminal reads: help, plain text, a result written to --output.
  "dist/chunks/toolwire_text.js": [
    "lib/command/cli/help_text.ts",
    "lib/command/cli/plain_text.ts",
    "lib/command/cli/output_file.ts",
  ],
};
/** The lazy chunk that holds a module, or `undefined`. */
const lazyChunkOf = (module) => Object.keys(LAZY).find((chunk) => LAZY[chunk].includes(module));
/**
 * The binary: an entry that turns on the compile cache and then loads the binary's own code with `import()`,
 * so that Node compiles that code and the library with the cache on. The entry bundles only the cache's
 * module and what it imports, nothing that holds state.
 */
const BINARY = "cmd/toolwire.ts";
const BINARY_TOOL = "cmd/toolwire_tool.ts";
const LAUNCHER_INPUTS = [
  BINARY,
  "lib/runtime/compile_cache.ts",
  "lib/runtime/node_process.ts",
  "lib/runtime/deno_api.ts",
];
/** Each entry that deno.json exports, as built, and the source that types it. */
const TYPED = new Map(
  [...LIBRARY, BINARY].map((entry) => [join(root, "dist", entry.replace(/\.ts$/, ".js")), join(root, entry)]),
);
const CHUNK = "dist/chunks/toolwire.js";
const REST = "dist/chunks/toolwire_rest.js";

// Only what this build writes: nothing left over from an earlier one ships with the package.
await rm(join(root, "dist", "chunks"), { recursive: true, force: true });

/**
 * A JSON module (the manifest schema the `manifest` command declares as its output schema) as an object whose
 * members are read from `JSON.parse` of its text on first use: every start loads it with the first chunk, but
 * only `manifest` and a tool list read it, and V8 scans a string far faster than it parses the object literal
 * esbuild would write instead (docs/performance.md). The text is cut into pieces of at most 800 characters,
 * one to a line, so that no line of a chunk buries the message Node prints above an uncaught error; the
 * members are the document's own, enumerable, so a spread or `JSON.stringify` sees the same object.
 */
const jsonAsText = {
  name: "json-as-text",
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, async (args) => {
      const value = JSON.parse(await readFile(args.path, "utf8"));
      const text = JSON.stringify(value);
      const pieces = text.match(/[\s\S]{1,800}/gu).map((piece) => JSON.stringify(piece));
      // Joined at run time: esbuild folds a `+` of string literals back into one.
      const contents = [
        `const pieces = [\n${pieces.join(",\n")}\n];`,
        "let whole;",
        "const value = {};",
        `for (const key of ${JSON.stringify(Object.keys(value))}) {`,
        '  Object.defineProperty(value, key, { enumerable: true, get: () => (whole ??= JSON.parse(pieces.join("")))[key] });',
        "}",
        "export default value;",
      ].join("\n");
      return { contents, loader: "js" };
    });
  },
};

const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  absWorkingDir: root,
  write: false,
  // Each bundle ships with a source map that carries the TypeScript sources, so a stack trace can be read
  // against lib/ (`node --enable-source-maps`) although the package ships no sources.
  sourcemap: "linked",
  sourcesContent: true,
  plugins: [jsonAsText],
  // The library's one runtime dependency, loaded with import() by the OAuth resource server only.
  external: ["jose"],
};

/**
 * The second chunk's entry: every library entry, the bridge and the deferred modules, re-exported; and each
 * lazy chunk's: its modules, re-exported, and `mod.ts` imported.
 */
const restEntry = {
  name: "rest-entry",
  setup(build) {
    build.onResolve(
      { filter: /^toolwire-(rest|lazy:.*)$/ },
      (args) => ({ path: args.path, namespace: "rest" }),
    );
    build.onLoad({ filter: /.*/, namespace: "rest" }, (args) => ({
      contents: args.path.startsWith("toolwire-lazy:")
        ? [
          `import "./${LIBRARY[0]}";`,
          ...LAZY[args.path.slice("toolwire-lazy:".length)].map((entry) => `export * from "./${entry}";`),
        ].join("\n")
        : [...LIBRARY, BRIDGE, ...DEFERRED].map((entry) => `export * from "./${entry}";`).join("\n"),
      resolveDir: root,
      loader: "ts",
    }));
  },
};

/**
 * An `import()` in the library loads the second chunk, which exports what a deferred module does, or the
 * lazy chunk that exports what its module does: left to itself, esbuild would make each imported module a
 * chunk of its own. A static import of a lazy module from outside its chunk is an import of that chunk too,
 * so that the module is in one chunk only.
 */
const toChunks = {
  name: "to-chunks",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = relative(root, resolve(args.resolveDir, args.path));
      const lazy = lazyChunkOf(target);
      if (args.kind !== "dynamic-import") {
        const from = args.importer.startsWith("toolwire-lazy:")
          ? args.importer.slice("toolwire-lazy:".length)
          : lazyChunkOf(relative(root, args.importer));
        if (lazy === undefined || lazy === from) return undefined;
        return { path: `./${relative(dirname(CHUNK), lazy)}`, external: true };
      }
      const chunk = DEFERRED.includes(target) ? REST : lazy;
      if (chunk === undefined) {
        return {
          errors: [{
            text: `${relative(root, args.importer)} imports ${target} with import(): list it in ` +
              "DEFERRED or LAZY",
          }],
        };
      }
      // The chunks are in one directory, and no entry's own code holds an import().
      return { path: `./${relative(dirname(CHUNK), chunk)}`, external: true };
    });
  },
};

const chunks = await build({
  ...common,
  entryPoints: [
    { in: LIBRARY[0], out: "mod" },
    { in: "toolwire-rest", out: relative("dist", REST).replace(/\.js$/, "") },
    ...Object.keys(LAZY).map((chunk) => ({
      in: `toolwire-lazy:${chunk}`,
      out: relative("dist", chunk).replace(/\.js$/, ""),
    })),
  ],
  outdir: "dist",
  splitting: true,
  chunkNames: relative("dist", CHUNK).replace(/\.js$/, ""),
  metafile: true,
  plugins: [...common.plugins, restEntry, toChunks],
}).catch((error) => {
  // A module that two chunks besides the first share would be a chunk of its own, named like the first.
  if (!/share the same path/.test(error.message)) throw error;
  throw new Error(
    "a module is shared by the second chunk and a lazy one, or by two lazy ones: list it in LAZY with " +
      "the modules that use it, or move what they use of it to a module of its own",
    { cause: error },
  );
});

// A deferred module that `mod.ts` also reaches by a static import lands in the first chunk, and a lazy one
// makes the first chunk import its chunk: either way every start loads it.
const first = chunks.metafile.outputs[CHUNK];
for (const module of DEFERRED) {
  if (Object.hasOwn(first.inputs, module)) {
    throw new Error(`${module} is imported statically from mod.ts: it would be loaded at every start`);
  }
}
for (const { path, kind } of first.imports) {
  const chunk = relative(root, resolve(root, dirname(CHUNK), path));
  if (kind === "import-statement" && Object.hasOwn(LAZY, chunk)) {
    throw new Error(
      `mod.ts imports ${LAZY[chunk].join(" or ")} statically: ${chunk} would be loaded at every start`,
    );
  }
}
for (const [chunk, modules] of Object.entries(LAZY)) {
  for (const module of modules) {
    if (!Object.hasOwn(chunks.metafile.outputs[chunk].inputs, module)) {
      throw new Error(`${module} is not in ${chunk}: it belongs in one chunk`);
    }
  }
}

// The first chunk is shared by every entry, and esbuild puts in it each piece of a module the main entry
// reaches that any entry uses: a function only the bridge calls, in a module a tool's start imports for
// another one, would be parsed at every start (~85 instructions a byte; docs/performance.md). So the chunk
// holds no more of a module than `mod.ts` alone does — a rest-only function goes to a module of its own,
// which mod.ts does not import — but for a constant or a few lines (esbuild's renames differ too).
const alone = await build({
  ...common,
  entryPoints: [LIBRARY[0]],
  outdir: "out",
  metafile: true,
  sourcemap: false,
  plugins: [...common.plugins, {
    name: "deferred-external",
    setup(build) {
      build.onResolve(
        { filter: /^\.\.?\// },
        (args) => args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined,
      );
    },
  }],
});
const aloneInputs = Object.values(alone.metafile.outputs).find((output) => output.entryPoint).inputs;
const dragged = Object.entries(chunks.metafile.outputs[CHUNK].inputs)
  .map(([module, { bytesInOutput }]) => [module, bytesInOutput - (aloneInputs[module]?.bytesInOutput ?? 0)])
  .filter(([, extra]) => extra > 256);
if (dragged.length > 0) {
  throw new Error(
    `the first chunk holds code mod.ts does not use: ${
      dragged.map(([module, extra]) => `${module} (${extra} bytes)`).join(", ")
    }; move what the other entries use of it to a module mod.ts does not import`,
  );
}

// `export *` of two modules that export the same name keeps one of them without a word: an `import()` of a
// deferred module could then get another module's function. So no name a deferred module exports may be
// exported by anything else the second chunk re-exports, nor a lazy module's by another lazy module.
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
for (const modules of Object.values(LAZY)) {
  const lazyExporters = new Map();
  for (const module of modules) {
    for (const name of await exportsOf(module)) {
      lazyExporters.set(name, [...(lazyExporters.get(name) ?? []), module]);
    }
  }
  for (const [name, exporting] of lazyExporters) {
    if (exporting.length > 1) {
      throw new Error(`${exporting.join(" and ")} both export ${name}: rename it in one`);
    }
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
      const entry = fromBinary ? BINARY_TOOL : relative(root, args.importer);
      const from = dirname(join(root, "dist", entry));
      return { path: `./${relative(from, join(root, REST))}`.replace(/^\.\/\.\.\//, "../"), external: true };
    });
  },
};

const entries = await build({
  ...common,
  entryPoints: [...LIBRARY.slice(1), BINARY_TOOL],
  outbase: ".",
  outdir: "dist",
  entryNames: "[dir]/[name]",
  plugins: [...common.plugins, toRest],
});

/** The binary's entry keeps its `import()` of the binary's code, which is an entry of its own. */
const toTool = {
  name: "to-tool",
  setup(build) {
    build.onResolve({ filter: /^\.\/toolwire_tool\.ts$/ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      return { path: "./toolwire_tool.js", external: true };
    });
  },
};
const launcher = await build({
  ...common,
  entryPoints: [BINARY],
  outbase: ".",
  outdir: "dist",
  entryNames: "[dir]/[name]",
  metafile: true,
  plugins: [toTool],
});
const launcherInputs = Object.keys(launcher.metafile.inputs).filter((input) =>
  !LAUNCHER_INPUTS.includes(input)
);
if (launcherInputs.length > 0) {
  throw new Error(
    `${BINARY} bundles ${launcherInputs.join(", ")}: it must load the library with import() only`,
  );
}

for (const file of [...chunks.outputFiles, ...entries.outputFiles, ...launcher.outputFiles]) {
  await mkdir(dirname(file.path), { recursive: true });
  await writeFile(
    file.path,
    withTypes(file.path, file.path.endsWith(".map") ? file.text : asciiOnly(file.text)),
  );
}

// What a tool runs at every start, compiled with the first chunk (scripts/eager_start.mjs): measured on the
// README's example, which tsc has emitted beside the bundles.
eagerStart(join(root, CHUNK), join(root, "dist", "examples", "notes", "main.js"));

/**
 * JSR serves these same entries (deno.json `exports`), and Deno takes an entry's types from the TypeScript
 * source it was built from, named in a leading `@ts-self-types` comment (after the binary's `#!` line). Node,
 * TypeScript and Deno's npm resolution ignore the comment: the npm package is typed by its .d.ts files. The
 * entry's source map gets an empty first line to match.
 */
function withTypes(path, text) {
  const source = TYPED.get(path.replace(/\.map$/, ""));
  if (source === undefined) return text;
  if (path.endsWith(".map")) {
    const map = JSON.parse(text);
    return JSON.stringify({ ...map, mappings: `;${map.mappings}` });
  }
  const shebang = text.startsWith("#!") ? text.slice(0, text.indexOf("\n") + 1) : "";
  const comment = `/* @ts-self-types="${relative(dirname(path), source)}" */\n`;
  return shebang + comment + text.slice(shebang.length);
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
