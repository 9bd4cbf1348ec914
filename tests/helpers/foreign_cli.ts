/**
 * A CLI of another framework for the bridge to read (tests/fixtures/pyfix/foreign.py): its manifest is any JSON
 * a test writes, and it records the arguments of every call it answers.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Loose, tempDir } from "./run.ts";
import { pyfix } from "./toolwire.ts";

/** A foreign CLI over `manifest`: its command line, the environment it needs, and what it was called with. */
export interface ForeignCli {
  argv: string[];
  env: Record<string, string>;
  /** The arguments of every call naming `command`, in order (the manifest and `--version` left out). */
  calls(command: string): string[][];
  cleanup(): void;
}

/**
 * A manifest of a foreign framework holding `commands`: each entry completed with what every entry has
 * (`required_scopes`, `flags`, a SUCCESS exit code), and the framework's exit codes of its danger level.
 */
export function foreignManifest(commands: Record<string, Loose>): Loose {
  const code = (name: string, description: string, side_effects = "none") => ({
    name,
    description,
    retryable: false,
    side_effects,
  });
  const entries: Record<string, Loose> = {};
  for (const [path, entry] of Object.entries(commands)) {
    const changes = entry.danger_level === "safe" ? "none" : "partial";
    entries[path] = {
      required_scopes: [],
      flags: {},
      exit_codes: {
        "0": code("SUCCESS", "Done", entry.danger_level === "safe" ? "none" : "complete"),
        "1": code("GENERAL_ERROR", "An unexpected error", changes),
        "2": code("ARG_ERROR", "A flag is invalid; nothing was done"),
      },
      ...entry,
    };
  }
  return {
    schema_version: "1.0",
    framework_version: "2.3.1",
    etag: `sha256:${"0".repeat(64)}`,
    commands: entries,
  };
}

/** Starts nothing: writes `manifest` where the fixture reads it, and says how to run it. */
export function foreignCli(manifest: unknown): ForeignCli {
  const dir = tempDir("toolwire-foreign-");
  const manifestFile = join(dir.path, "manifest.json");
  const callsFile = join(dir.path, "calls.log");
  writeFileSync(manifestFile, JSON.stringify(manifest));
  return {
    argv: pyfix("foreign"),
    env: { FOREIGN_MANIFEST: manifestFile, FOREIGN_CALLS: callsFile },
    calls: (command) =>
      (existsSync(callsFile) ? readFileSync(callsFile, "utf8").split("\n") : [])
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as string[])
        .filter((argv) => argv.includes(command)),
    cleanup: dir.cleanup,
  };
}
