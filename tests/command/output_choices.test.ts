// The two contract fields that let a command choose for one invocation's output and effect: `default_format`
// (a file's content on stdout, `tool completions bash > file`) and `supports_dry_run` (a mutating command
// that previews, `tool mcp install --dry-run`). No published vocabulary has either as a manifest member, so
// the manifest shows the first as `x-default-format` and the second as the `dry-run` flag (where REQ-C-004
// declares it); a reader still takes an earlier manifest's members. Registration, the manifest schema and
// the manifest-entry rules all refuse what does not make sense; the behaviour itself is driven through the
// real binaries in completions.test.ts and mcp_install.test.ts.
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
  it("registers as plain or json and appears in the manifest entry as x-default-format, which the schema accepts", () => {
    for (const format of ["plain", "json"]) {
      const entry = entryOf({ ...ordinaryDeclaration(), default_format: format });
      assert.equal(entry["x-default-format"], format);
      assert.equal("default_format" in entry, false, "no published vocabulary has default_format");
      assert.ok(validManifest(manifestWith(entry)), schemaErrors(validManifest));
      assert.deepEqual(manifestEntryIssues("widgets.sync", entry), []);
    }
  });

  it("a manifest of an earlier toolwire, with default_format, is still read; the schema of what toolwire prints has only the new member", () => {
    const { "x-default-format": _, ...earlier } = entryOf({
      ...ordinaryDeclaration(),
      default_format: "plain",
    });
    const entry = { ...earlier, default_format: "plain" };
    assert.deepEqual(manifestEntryIssues("widgets.sync", entry), []);
    assert.equal(validManifest(manifestWith(entry)), false);
  });

  it("refuses a format the framework does not have, in registration, the entry rules (both forms) and the schema", () => {
    const declaration = { ...ordinaryDeclaration(), default_format: "yaml" };
    assert.equal(refusal(declaration).field, "default_format");
    for (const member of ["x-default-format", "default_format"]) {
      const entry = { ...entryOf(ordinaryDeclaration()), [member]: "yaml" };
      assert.deepEqual(manifestEntryIssues("widgets.sync", entry).map((issue) => issue.field), [member]);
      assert.equal(validManifest(manifestWith(entry)), false);
    }
  });

  it("refuses it on a protocol command: its stdout is the protocol, never an envelope", () => {
    const declaration = { ...protocolDeclaration(), default_format: "plain" };
    assert.match(refusal(declaration).message, /default_format: a protocol command writes no envelope/);
    const entry = { ...entryOf(protocolDeclaration()), "x-default-format": "plain" };
    assert.match(
      manifestEntryIssues("widgets.sync", entry)[0]!.message,
      /x-default-format: a protocol command writes no envelope/,
    );
    assert.equal(validManifest(manifestWith(entry)), false, "the schema refuses it too");
  });

  it("another x- member is an extension a reader passes over; toolwire's own schema knows only its own", () => {
    const entry = { ...entryOf(ordinaryDeclaration()), "x-other-framework": { anything: 1 } };
    assert.deepEqual(manifestEntryIssues("widgets.sync", entry), []);
    assert.equal(validManifest(manifestWith(entry)), false);
  });
});

describe("supports_dry_run", () => {
  it("gives a mutating command --dry-run, in its flags and its manifest entry's flags (REQ-C-004), no other member", () => {
    const registry = new CommandRegistry();
    registry.register("widgets.sync", asDefinition(mutating({ supports_dry_run: true })));
    assert.ok(Object.hasOwn(registry.flagsOf("widgets.sync"), "dry-run"));
    const entry = registry.entryOf("widgets.sync")! as unknown as Declaration;
    assert.ok(Object.hasOwn(entry.flags as object, "dry-run"));
    assert.equal("supports_dry_run" in entry, false, "no published vocabulary has supports_dry_run");
    assert.ok(validManifest(manifestWith(entry)), schemaErrors(validManifest));
    // A manifest of an earlier toolwire, which printed the member too, is still read.
    assert.deepEqual(manifestEntryIssues("widgets.sync", { ...entry, supports_dry_run: true }), []);
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
    // An earlier toolwire's entry is held to the same rule.
    const safeEntry = { ...entryOf(ordinaryDeclaration()), supports_dry_run: true };
    assert.deepEqual(manifestEntryIssues("widgets.sync", safeEntry).map((issue) => issue.field), [
      "supports_dry_run",
    ]);
    assert.equal(validManifest(manifestWith(safeEntry)), false);
  });
});
