// validateManifest and validateEnvelope: the contract rules applied to data another program printed — the
// registration rules reused on manifest entries, every issue naming the command and the field.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RegistrationError } from "../../lib/command/contract/command_error.ts";
import type { CommandDefinition } from "../../lib/command/contract/command_definition.ts";
import { validateEnvelope } from "../../lib/command/contract/envelope_validation.ts";
import { manifestEntry } from "../../lib/command/contract/manifest.ts";
import { validateManifest } from "../../lib/command/contract/manifest_validation.ts";
import { manifestEntryIssues, validateDefinition } from "../../lib/command/contract/registration_rules.ts";
import { type Loose, NOTES, onlyEnvelope, programArgv, run, tempDir } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

async function manifestOf(argv: string[]): Promise<Loose> {
  const home = tempDir();
  try {
    const result = await run([...argv, "--format", "json", "manifest"], { env: { NOTES_HOME: home.path } });
    return onlyEnvelope(result.stdout).data;
  } finally {
    home.cleanup();
  }
}

const GOOD: Loose = {
  schema_version: "3.17",
  framework_version: "1.0.0",
  etag: `sha256:${"a".repeat(64)}`,
  commands: {
    list: {
      description: "List things",
      danger_level: "safe",
      required_scopes: [],
      flags: { limit: { type: "integer", required: false, default: 5, description: "At most" } },
      positionals: [{
        name: "ids",
        type: "integer",
        required: false,
        variadic: true,
        description: "Only these",
      }],
      exit_codes: { "0": { name: "SUCCESS", description: "Listed", retryable: false, side_effects: "none" } },
    },
    "mcp.serve": {
      description: "Serve MCP",
      danger_level: "safe",
      required_scopes: [],
      stdout: "protocol",
      protocol: "mcp-stdio",
      flags: {},
      exit_codes: {
        "0": { name: "SUCCESS", description: "stdin closed", retryable: false, side_effects: "none" },
      },
    },
  },
};

function withEntry(path: string, change: (entry: Loose) => void): Loose {
  const manifest = structuredClone(GOOD);
  change(manifest.commands[path]);
  return manifest;
}

function fields(manifest: unknown): Array<[string | undefined, string]> {
  return validateManifest(manifest).map((issue) => [issue.command, issue.field]);
}

describe("validateManifest", () => {
  it("accepts the manifests toolwire tools print, and a foreign one", async () => {
    assert.deepEqual(validateManifest(await manifestOf(NOTES)), []);
    assert.deepEqual(validateManifest(await manifestOf(LAB)), []);
    assert.deepEqual(validateManifest(GOOD), []);
  });

  it("REQ-C-032: mcp only false, stdout ⇔ protocol, no field that does not combine with a protocol command", () => {
    assert.deepEqual(fields(withEntry("list", (e) => (e.mcp = true))), [["list", "mcp"]]);
    assert.deepEqual(fields(withEntry("mcp.serve", (e) => delete e.protocol)), [["mcp.serve", "protocol"]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.protocol = "lsp"))), [["list", "stdout"]]);
    assert.deepEqual(fields(withEntry("mcp.serve", (e) => (e.protocol = "MCP"))), [[
      "mcp.serve",
      "protocol",
    ]]);
    assert.deepEqual(fields(withEntry("mcp.serve", (e) => (e.output_schema = { type: "object" }))), [[
      "mcp.serve",
      "output_schema",
    ]]);
    assert.deepEqual(fields(withEntry("mcp.serve", (e) => (e.stdin = { description: "x" }))), [[
      "mcp.serve",
      "stdin",
    ]]);
    assert.deepEqual(
      fields(
        withEntry(
          "mcp.serve",
          (e) => (e.flags["dry-run"] = { type: "boolean", required: false, description: "d" }),
        ),
      ),
      [["mcp.serve", "flags.dry-run"]],
    );
  });

  it("names the command and the field in every message", () => {
    const [issue] = validateManifest(withEntry("list", (e) => (e.mcp = true)));
    assert.equal(
      issue!.message,
      "command 'list': mcp: may only be false (absent means the MCP server may offer it)",
    );
  });

  it("collects every broken rule of an entry, not only the first", () => {
    const manifest = withEntry("list", (e) => {
      e.mcp = true;
      e.danger_level = "risky";
      e.exit_codes["42"] = { name: "X", description: "x", retryable: false, side_effects: "none" };
    });
    assert.deepEqual(fields(manifest), [["list", "danger_level"], ["list", "exit_codes.42"], [
      "list",
      "mcp",
    ]]);
  });

  it("holds manifest entries to their serialised form: framework flags allowed, global flags and unknown fields not", () => {
    assert.deepEqual(
      fields(
        withEntry(
          "list",
          (e) => (e.flags["idempotency-key"] = { type: "string", required: false, description: "k" }),
        ),
      ),
      [],
    );
    assert.deepEqual(
      fields(
        withEntry("list", (e) => (e.flags.format = { type: "string", required: false, description: "f" })),
      ),
      [["list", "flags.format"]],
    );
    assert.deepEqual(fields(withEntry("list", (e) => delete e.flags.limit.required)), [[
      "list",
      "flags.limit.required",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => delete e.positionals[0].type)), [[
      "list",
      "positionals.0.type",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.timeout_seconds = 5))), [[
      "list",
      "timeout_seconds",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.flags.limit.hint = "x"))), [[
      "list",
      "flags.limit.hint",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.exit_codes["0"].extra = 1))), [[
      "list",
      "exit_codes.0.extra",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.exit_codes["0"].description = "x".repeat(121)))), [[
      "list",
      "exit_codes.0.description",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => delete e.flags)), [["list", "flags"]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.requires_confirmation = true))), [[
      "list",
      "requires_confirmation",
    ]]);
    assert.deepEqual(fields(withEntry("list", (e) => (e.subcommands = ["list.more"]))), [[
      "list",
      "subcommands",
    ]]);
  });

  it("checks the manifest's own fields", () => {
    const manifest = structuredClone(GOOD);
    manifest.etag = "sha256:7d1f40";
    manifest.schema_version = 3;
    manifest.extra = true;
    manifest.tool = { name: "notes", version: "1.0.0", description: "Notes" };
    assert.deepEqual(fields(manifest), [[undefined, "extra"], [undefined, "tool"], [
      undefined,
      "schema_version",
    ], [undefined, "etag"]]);
    // A member beside the four is marked, so a reader that needs only the commands can pass over it.
    assert.deepEqual(
      validateManifest(manifest).filter((issue) => issue.unknownMember === true).map((issue) => issue.field),
      ["extra", "tool"],
    );
    assert.deepEqual(fields({ ...GOOD, commands: [] }), [[undefined, "commands"]]);
    assert.deepEqual(fields(null), [[undefined, "manifest"]]);
    assert.deepEqual(fields({ ...GOOD, commands: { "Bad Path": GOOD.commands.list, list: 3 } }), [[
      "Bad Path",
      "path",
    ], ["list", "entry"]]);
  });
});

describe("the registration rules, shared by definitions and manifest entries", () => {
  const definition = {
    description: "Echo",
    danger_level: "destructive",
    required_scopes: [],
    flags: { text: { type: "string", description: "Text" } },
    exit_codes: { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "complete" } },
    run: () => null,
  } as unknown as CommandDefinition;

  it("the entry of every valid definition passes as an entry", () => {
    assert.deepEqual(manifestEntryIssues("echo", manifestEntry(definition)), []);
  });

  it("a definition still stops at its first broken rule, with the same message", () => {
    assert.throws(
      () =>
        validateDefinition(
          "echo",
          { ...definition, mcp: true, danger_level: "risky" } as unknown as CommandDefinition,
        ),
      (error: unknown) => {
        assert.ok(error instanceof RegistrationError);
        assert.equal(
          error.message,
          "command 'echo': danger_level: must be 'safe', 'mutating' or 'destructive'",
        );
        return true;
      },
    );
    assert.throws(
      () =>
        validateDefinition("echo", {
          ...definition,
          flags: { "dry-run": { type: "boolean", description: "x" } },
        }),
      /command 'echo': flags.dry-run: --dry-run is a framework flag/,
    );
    assert.throws(
      () => validateDefinition("echo", { ...definition, run: undefined } as unknown as CommandDefinition),
      /command 'echo': run: a command needs a run\(ctx\) handler/,
    );
  });
});

describe("validateEnvelope", () => {
  const ok = { ok: true, data: { id: 1 }, error: null, warnings: [], meta: { exit_code: 0, duration_ms: 3 } };
  const failed = {
    ok: false,
    data: null,
    error: { code: "NOT_FOUND", message: "gone", retryable: false },
    warnings: [],
    meta: { exit_code: 5, duration_ms: 1 },
  };

  it("accepts a success and a failure", () => {
    assert.deepEqual(validateEnvelope(ok), []);
    assert.deepEqual(validateEnvelope(failed), []);
  });

  it("names every problem", () => {
    assert.deepEqual(validateEnvelope({ ...ok, extra: 1, warnings: undefined }), [
      "unexpected key 'extra'",
      "warnings must be an array of objects",
    ]);
    const { meta: _meta, ...withoutMeta } = ok;
    assert.deepEqual(validateEnvelope(withoutMeta), [
      "missing key 'meta'",
      "meta must be an object with exit_code and duration_ms",
    ]);
    assert.deepEqual(validateEnvelope({ ...ok, meta: { exit_code: 3, duration_ms: 1.5 } }), [
      "meta.duration_ms must be an integer >= 0",
      "ok is true but meta.exit_code is 3: ok must be true exactly when the exit code is 0",
    ]);
    assert.deepEqual(validateEnvelope({ ...failed, error: null }), [
      "error must be an object {code, message, retryable} when ok is false",
    ]);
    assert.deepEqual(validateEnvelope([]), ["an envelope is a JSON object"]);
  });
});
