/**
 * The runtime adapter: the only code in toolwire that touches `Deno.*` or `node:*`. Everything above it speaks
 * Web-standard APIs. What a tool's own runs use is re-exported here; a module only the bridge, the binary or a
 * lazily loaded chunk uses (spawning a child, the Web-stream channels, file probes, the environment a child
 * inherits) is imported from its own file, so that a tool's start does not load it.
 * @module
 */
export { killAllChildren } from "./child_groups.ts";
export * from "./file_lock_api.ts";
export * from "./fs.ts";
export * from "./process.ts";
export { noteAbandonedWork } from "./fifo_waits.ts";
export * from "./byte_channel.ts";
export * from "./stdio.ts";
export * from "./stdin_reader.ts";
export * from "./permission.ts";
