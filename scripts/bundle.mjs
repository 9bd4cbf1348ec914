#!/usr/bin/env node
// After `tsc` has emitted dist/ (per-file JS and the .d.ts files that type the package), the two entry points
// Node users load are replaced by single-file bundles: `dist/mod.js` (the library) and `dist/cmd/toolwire.js`
// (the binary). A process that loads one file instead of ~70 ES modules starts ~40 ms sooner, and an MCP
// client in auto mode spawns a server twice per connect. Each bundle holds one copy of the library, so
// nothing reaches past them into dist/lib (two copies would break `instanceof` and the built-in registry).
import { build } from "esbuild";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const common = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  absWorkingDir: root,
  write: false,
};

// Each bundle ships with a source map that carries the TypeScript sources, so a stack trace can be read
// against lib/ (`node --enable-source-maps`) although the package ships no sources.
for (const [entry, outfile] of [["mod.ts", "dist/mod.js"], ["cmd/toolwire.ts", "dist/cmd/toolwire.js"]]) {
  const { outputFiles } = await build({
    ...common,
    entryPoints: [entry],
    outfile,
    sourcemap: "linked",
    sourcesContent: true,
  });
  for (const file of outputFiles) {
    await writeFile(file.path, file.path.endsWith(".map") ? file.text : asciiOnly(file.text));
  }
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
