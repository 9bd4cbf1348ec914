#!/usr/bin/env node
/**
 * The `toolwire` binary's entry. On Node it first turns on the compile cache (a directory under the user's
 * cache dir; see lib/runtime/compile_cache.ts), then loads the binary itself, cmd/toolwire_tool.ts, with
 * `import()`: a module Node compiled before the cache was on is not cached, and the library is most of what
 * a start compiles. On Deno it only loads the binary.
 */
import { enableCompileCache } from "../lib/runtime/compile_cache.ts";

enableCompileCache("toolwire");
await import("./toolwire_tool.ts");
