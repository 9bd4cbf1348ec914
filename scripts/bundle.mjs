#!/usr/bin/env node
// After `tsc` has emitted dist/ (per-file JS and the .d.ts files that type the package), the two entry points
// Node users load are replaced by single-file bundles: `dist/mod.js` (the library) and `dist/cmd/toolwire.js`
// (the binary). A process that loads one file instead of ~70 ES modules starts ~40 ms sooner, and an MCP
// client in auto mode spawns a server twice per connect. Each bundle holds one copy of the library, so
// nothing reaches past them into dist/lib (two copies would break `instanceof` and the built-in registry).
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const common = { bundle: true, format: "esm", platform: "node", target: "node20", logLevel: "warning", absWorkingDir: root };

await build({ ...common, entryPoints: ["mod.ts"], outfile: "dist/mod.js" });
await build({ ...common, entryPoints: ["cmd/toolwire.ts"], outfile: "dist/cmd/toolwire.js" });
