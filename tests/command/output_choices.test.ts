// The two contract fields that let a command choose for one invocation's output and effect: `default_format`
// (a file's content on stdout, `tool completions bash > file`) and `supports_dry_run` (a mutating command
// that previews, `tool mcp install --dry-run`). Registration, the manifest schema and the manifest-entry
// rules all refuse what does not make sense; the behaviour itself is driven through the real binaries in
// completions.test.ts and mcp_install.test.ts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RegistrationError } from "../../mod.ts";
import { CommandRegistry } from "../../lib/command/contract/registry.ts";
import { manifestEntry } from "../../lib/command/contract/manifest.ts";
import { manifestEntryIssues } from "../../lib/command/contract/registration_rules.ts";
import {
  asDefinition,
  type Declaration,
  ordinaryDeclaration,
  protocolDeclaration,
} from "../helpers/declarations.ts";
import { NOTES, onlyEnvelope, run } from "../helpers/run.ts";
import { schemaErrors, schemaValidators } from "../helpers/schemas.ts";

const { manifest: validManifest } = schemaValidators();

function refusal(declaration: Declaration): RegistrationError {
  try {
    new CommandRegistry().register("widgets.sync", asDefinition(declaration));
  } catch (error) {
    if (error instanceof RegistrationError) return error;
    throw error;
  }
  assert.fail("expected a RegistrationError");
}

function manifestWith(entry: Declaration): Record<string, unknown> {
  return {
    schema_version: "3.17",
    framework_version: "0.1.0",
    etag: `sha256:${"0".repeat(64)}`,
    commands: { "widgets.sync": entry },
  };
}

function entryOf(declaration: Declaration): Declaration {
  return manifestEntry(asDefinition(declaration)) as unknown as Declaration;
}

const mutating = (changes: Declaration = {}): Declaration => ({
  ...ordinaryDeclaration(),
  danger_level: "mutating",
  exit_codes: { "0": { name: "SUCCESS", description: "Synced", retryable: false, side_effects: "complete" } },
  ...changes,
});

describe("default_format", () => {
  it("registers as plain or json and appears in the manifest entry, which the schema accepts", () => {
    for (const format of ["plain", "json"]) {
      const entry = entryOf({ ...ordinaryDeclaration(), default_format: format });
      assert.equal(entry.default_format, format);
      assert.ok(validManifest(manifestWith(entry)), schemaErrors(validManifest));
      assert.deepEqual(manifestEntryIssues("widgets.sync", entry), []);
    }
  });

  it("refuses a format the framework does not have, in registration, the entry rules and the schema", () => {
    const declaration = { ...ordinaryDeclaration(), default_format: "yaml" };
    assert.equal(refusal(declaration).field, "default_format");
    const entry = { ...entryOf(ordinaryDeclaration()), default_format: "yaml" };
    assert.deepEqual(manifestEntryIssues("widgets.sync", entry).map((issue) => issue.field), [
      "default_format",
    ]);
    assert.equal(validManifest(manifestWith(entry)), false);
  });

  it("refuses it on a protocol command: its stdout is the protocol, never an envelope", () => {
    const declaration = { ...protocolDeclaration(), default_format: "plain" };
    assert.match(refusal(declaration).message, /default_format: a protocol command writes no envelope/);
    const entry = { ...entryOf(protocolDeclaration()), default_format: "plain" };
    assert.equal(validManifest(manifestWith(entry)), false, "the schema refuses it too");
  });
});

describe("supports_dry_run", () => {
  it("gives a mutating command --dry-run, in its flags and its manifest entry", () => {
    const registry = new CommandRegistry();
    registry.register("widgets.sync", asDefinition(mutating({ supports_dry_run: true })));
    assert.ok(Object.hasOwn(registry.flagsOf("widgets.sync"), "dry-run"));
    const entry = registry.entryOf("widgets.sync")! as unknown as Declaration;
    assert.equal(entry.supports_dry_run, true);
    assert.ok(validManifest(manifestWith(entry)), schemaErrors(validManifest));
    assert.equal(
      (entry as { requires_confirmation?: true }).requires_confirmation,
      undefined,
      "a preview, not a confirmation",
    );
  });

  it("without it a mutating command has no --dry-run: notes add refuses the flag, nothing runs", async () => {
    const registry = new CommandRegistry();
    registry.register("widgets.sync", asDefinition(mutating()));
    assert.equal(Object.hasOwn(registry.flagsOf("widgets.sync"), "dry-run"), false);
    const result = await run([...NOTES, "--format", "json", "add", "--title", "x", "--dry-run"]);
    assert.equal(result.code, 2);
    assert.match(onlyEnvelope(result.stdout).error.message, /unknown flag --dry-run/);
  });

  it("refuses it on a safe command (nothing to preview), on a protocol command, and when it is not a boolean", () => {
    assert.equal(refusal({ ...ordinaryDeclaration(), supports_dry_run: true }).field, "supports_dry_run");
    assert.equal(refusal({ ...protocolDeclaration(), supports_dry_run: true }).field, "supports_dry_run");
    assert.equal(refusal(mutating({ supports_dry_run: "yes" })).field, "supports_dry_run");
    const safeEntry = { ...entryOf(ordinaryDeclaration()), supports_dry_run: true };
    assert.deepEqual(manifestEntryIssues("widgets.sync", safeEntry).map((issue) => issue.field), [
      "supports_dry_run",
    ]);
    assert.equal(validManifest(manifestWith(safeEntry)), false);
  });
});
