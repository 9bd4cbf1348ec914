/** The package's entry points, read from deno.json, which names the same built files as package.json. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./run.ts";

/** One entry point: its subpath, the built file both packages serve, and the source it is built from. */
export interface EntryPoint {
  name: string;
  /** From the root, e.g. `dist/mod.js`. */
  built: string;
  /** From the root, e.g. `mod.ts`. */
  source: string;
}

/** Every entry point of deno.json `exports`, in its order. */
export function entryPoints(): EntryPoint[] {
  const { exports } = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as {
    exports: Record<string, string>;
  };
  return Object.entries(exports).map(([name, path]) => {
    const built = path.replace(/^\.\//, "");
    return { name, built, source: built.replace(/^dist\//, "").replace(/\.js$/, ".ts") };
  });
}
