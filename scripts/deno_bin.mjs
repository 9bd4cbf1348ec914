// Locates the Deno binary shipped by the `deno` npm package. Launching the binary directly (not the
// package's bin.cjs wrapper) matters: the wrapper swallows SIGTERM, so signal tests would lie.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const candidates = [
  "../node_modules/deno/deno",
  "../node_modules/@deno/linux-x64-glibc/deno",
  "../node_modules/@deno/linux-arm64-glibc/deno",
  "../node_modules/@deno/darwin-arm64/deno",
  "../node_modules/@deno/darwin-x64/deno",
];

/** The absolute path of the project's Deno binary, or "deno" from PATH when none is installed. */
export function denoBin() {
  for (const rel of candidates) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return path;
  }
  return "deno";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(denoBin());
