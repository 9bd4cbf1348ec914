#!/usr/bin/env node
// After `tsc` has emitted dist/ (per-file JS and the .d.ts files that type the package), the entry points
// Node users load are replaced by bundles at the same paths: `dist/mod.js` (the library), its subpaths
// `dist/lib/protocol/{mcp,lsp,dap}/mod.js` and `dist/lib/framing/mod.js`, and `dist/cmd/toolwire.js` (the
// binary). A process that loads two files instead of ~70 ES modules starts ~40 ms sooner, and an MCP client
// in auto mode spawns a server twice per connect.
//
// The library itself is one shared chunk, `dist/chunks/toolwire.js`, and every entry imports it: the library
// entries are re-exports of it, the binary is its own code plus imports of it. Bundling each entry on its own
// would give a program that imports both `toolwire` and `toolwire/mcp` two copies of what they share — two
// `CommandError` classes, so `instanceof` fails across them, and two copies of module state such as the
// process's stdio channel. esbuild's own code splitting keeps one copy too, but cuts the library into a chunk
// per set of entries that use a piece (eight of them), each one more file to load at every start.
import { build } from "esbuild";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The package's library entry points (package.json and deno.json `exports`). */
const LIBRARY = [
  "mod.ts",
  "lib/protocol/mcp/mod.ts",
  "lib/protocol/lsp/mod.ts",
  "lib/protocol/dap/mod.ts",
  "lib/framing/mod.ts",
];
/** What the binary uses of the library besides the public entries. */
const BRIDGE = "lib/bridge/mod.ts";
const BINARY = "cmd/toolwire.ts";
const CHUNK = "dist/chunks/toolwire.js";

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
  // Each bundle ships with a source map that carries the TypeScript sources, so a stack trace can be read
  // against lib/ (`node --enable-source-maps`) although the package ships no sources.
  sourcemap: "linked",
  sourcesContent: true,
};

const chunk = await build({
  ...common,
  stdin: {
    contents: [...LIBRARY, BRIDGE].map((entry) => `export * from "./${entry}";`).join("\n"),
    resolveDir: root,
    sourcefile: "toolwire-library.ts",
    loader: "ts",
  },
  outfile: CHUNK,
});

/** Every import that leaves an entry's own code is an import of the chunk. */
const toChunk = {
  name: "library-chunk",
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
      return { path: `./${relative(from, join(root, CHUNK))}`.replace(/^\.\/\.\.\//, "../"), external: true };
    });
  },
};

const entries = await build({
  ...common,
  entryPoints: [...LIBRARY, BINARY],
  outbase: ".",
  outdir: "dist",
  entryNames: "[dir]/[name]",
  plugins: [toChunk],
});

for (const file of [...chunk.outputFiles, ...entries.outputFiles]) {
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
