// The manifest against the CLI Agent Spec's published ManifestResponse schema (an unmodified copy in
// tests/fixtures/spec/): real manifests, printed by spawned programs, pass it — the top level exactly, command
// entries once toolwire's documented extension members are set aside — and toolwire's own manifest schema
// rejects everything the published one rejects in the members both define.
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Ajv, type ValidateFunction } from "ajv";
import { canonicalJson, sha256Tag } from "../../lib/json.ts";
import { type Loose, NOTES, onlyEnvelope, programArgv, run, tempDir } from "../helpers/run.ts";
import { loadSchema, schemaErrors, schemaValidators } from "../helpers/schemas.ts";
import { pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/spec/${name}`, import.meta.url), "utf8"));
const PUBLISHED = fixture("manifest-response.json");

/** The published schema, compiled strictly: an unknown keyword or a type slip in it fails here, not silently. */
const published: ValidateFunction = (() => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  // The manifest schema refers to the exit-code entry by its file name.
  ajv.addSchema(fixture("exit-code-entry.json"), "exit-code-entry.json");
  return ajv.compile(PUBLISHED);
})();
const { manifest: ours } = schemaValidators();

/**
 * The members a toolwire command entry carries beyond the published CommandEntry (docs/manifest.md lists them,
 * with why): REQ-C-032's stdout/protocol/mcp, the positionals a call needs, the rest of the contract, and
 * extension members, which carry the `x-` prefix because no published vocabulary defines them.
 */
const TOOLWIRE_ENTRY_MEMBERS = [
  "required_scopes",
  "positionals",
  "stdout",
  "protocol",
  "mcp",
  "arguments",
  "stderr",
  "stdin",
  "interactive",
  "streaming_default",
  "output_file",
  "output_media_types",
  "async",
  "spawns_background_process",
  "cleanup_command",
  "max_lifetime_seconds",
  "confirm_flag",
  "safe_default",
  "idempotent",
  "has_network_io",
  "requires_confirmation",
  "x-default-format",
];

/** The manifest with every command entry's extension members removed: what the published schema describes. */
function publishedView(manifest: Loose): Loose {
  const view = structuredClone(manifest);
  for (const entry of Object.values<Loose>(view.commands ?? {})) {
    for (const member of TOOLWIRE_ENTRY_MEMBERS) delete entry[member];
  }
  return view;
}

/**
 * The entry members a strict reader can know: the published CommandEntry's, those the CLI Agent Spec's
 * requirements define (REQ-C-029's scopes, REQ-C-032's fields, REQ-O-021's `requires_confirmation`, …), and
 * toolwire's `positionals`. Anything else must carry the `x-` extension prefix.
 */
const NAMED_MEMBERS = new Set([
  ...Object.keys(PUBLISHED.definitions.CommandEntry.properties),
  ...TOOLWIRE_ENTRY_MEMBERS.filter((member) => !member.startsWith("x-")),
]);

async function manifestOf(argv: readonly string[]): Promise<Loose> {
  const home = tempDir();
  try {
    const result = await run([...argv, "--format", "json", "manifest"], { env: { NOTES_HOME: home.path } });
    assert.equal(result.code, 0, result.stderr);
    return onlyEnvelope(result.stdout).data;
  } finally {
    home.cleanup();
  }
}

const PROGRAMS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["notes", NOTES],
  ["the lab fixture", LAB],
  ["the toolwire binary", TOOLWIRE],
  ["the Python fixture CLI", pyfix()],
];

describe("the published ManifestResponse schema: real manifests", () => {
  for (const [name, argv] of PROGRAMS) {
    it(`${name}: top level exactly schema_version, framework_version, etag, commands; entries valid`, async () => {
      const manifest = await manifestOf(argv);
      assert.deepEqual(Object.keys(manifest), ["schema_version", "framework_version", "etag", "commands"]);
      assert.ok(published(publishedView(manifest)), schemaErrors(published));
      assert.ok(ours(manifest), schemaErrors(ours));
    });
  }

  it("every entry member a real manifest prints is a published one or carries the x- prefix (no supports_dry_run, no default_format)", async () => {
    for (const [name, argv] of PROGRAMS) {
      const manifest = await manifestOf(argv);
      for (const [path, entry] of Object.entries<Loose>(manifest.commands)) {
        for (const member of Object.keys(entry)) {
          assert.ok(NAMED_MEMBERS.has(member) || member.startsWith("x-"), `${name} ${path}: ${member}`);
        }
      }
    }
    const toolwire = await manifestOf(TOOLWIRE);
    assert.equal(toolwire.commands.completions["x-default-format"], "plain");
    assert.ok(
      toolwire.commands["mcp.install"].flags["dry-run"],
      "a mutating command that previews lists --dry-run",
    );
  });

  it("the extension members are exactly what toolwire's CommandEntry defines beyond the published one", () => {
    const oursEntry = Object.keys((loadSchema("manifest").$defs as Loose).CommandEntry.properties);
    const publishedEntry = Object.keys(PUBLISHED.definitions.CommandEntry.properties);
    assert.deepEqual(
      oursEntry.filter((member) => !publishedEntry.includes(member)).sort(),
      [...TOOLWIRE_ENTRY_MEMBERS].sort(),
    );
    for (const member of publishedEntry) {
      assert.ok(oursEntry.includes(member), `toolwire's CommandEntry lacks ${member}`);
    }
  });

  it("the etag is the SHA-256 of the canonical JSON of the other three members, and nothing else", async () => {
    const manifest = await manifestOf(NOTES);
    const { schema_version, framework_version, commands } = manifest;
    assert.equal(
      manifest.etag,
      await sha256Tag(canonicalJson({ schema_version, framework_version, commands })),
    );
  });

  it("a member outside both lists fails even the published view, at the top level and in an entry", async () => {
    const manifest = await manifestOf(NOTES);
    assert.equal(
      published(publishedView({ ...manifest, tool: { name: "notes", version: "1.0.0", description: "" } })),
      false,
    );
    const entry = structuredClone(manifest);
    entry.commands.add.handler = "add";
    assert.equal(published(publishedView(entry)), false);
  });
});

// Changes to a valid manifest that the published schema rejects, each in a member both schemas define: toolwire's
// schema must reject each too, or a manifest it calls valid would be refused by a strict consumer.
const BREAKS: ReadonlyArray<readonly [string, (manifest: Loose) => void]> = [
  ["a top-level tool member", (m) => (m.tool = { name: "notes", version: "1.0.0", description: "Notes" })],
  ["no etag", (m) => delete m.etag],
  ["schema_version 3", (m) => (m.schema_version = "3")],
  ["commands as an array", (m) => (m.commands = [])],
  ["an entry without flags", (m) => delete m.commands.list.flags],
  ["danger_level risky", (m) => (m.commands.list.danger_level = "risky")],
  ["aliases that are not strings", (m) => (m.commands.list.aliases = [1])],
  ["a flag of type float", (m) => (m.commands.list.flags.limit.type = "float")],
  ["a flag without required", (m) => delete m.commands.list.flags.limit.required],
  ["a flag with a hint member", (m) => (m.commands.list.flags.limit.hint = "x")],
  ["a two-letter short", (m) => (m.commands.list.flags.limit.short = "nn")],
  ["enum_values that are not strings", (m) => (m.commands.list.flags.limit.enum_values = [1])],
  [
    "an exit-code description of 121 characters",
    (m) => (m.commands.list.exit_codes["0"].description = "x".repeat(121)),
  ],
  ["an empty exit-code description", (m) => (m.commands.list.exit_codes["0"].description = "")],
  ["retryable with partial side effects", (m) => {
    m.commands.list.exit_codes["80"] = {
      name: "BUSY",
      description: "Busy",
      retryable: true,
      side_effects: "partial",
    };
  }],
  ["side_effects some", (m) => (m.commands.list.exit_codes["0"].side_effects = "some")],
  ["an exit-code entry with an extra member", (m) => (m.commands.list.exit_codes["0"].extra = 1)],
  ["an example without command", (m) => (m.commands.list.examples = [{ description: "x" }])],
  ["output_schema that is not an object", (m) => (m.commands.list.output_schema = "object")],
  ["output_formats that are not strings", (m) => (m.commands.list.output_formats = [1])],
  ["subcommands that are not strings", (m) => (m.commands.list.subcommands = [1])],
];

describe("toolwire's manifest schema agrees with the published one on every member both define", () => {
  const base: Loose = {
    schema_version: "3.17",
    framework_version: "1.0.0",
    etag: `sha256:${"a".repeat(64)}`,
    commands: {
      list: {
        description: "List things",
        danger_level: "safe",
        required_scopes: [],
        flags: { limit: { type: "integer", required: false, default: 5, description: "At most" } },
        exit_codes: {
          "0": { name: "SUCCESS", description: "Listed", retryable: false, side_effects: "none" },
        },
        examples: [{ description: "List", command: "tool list" }],
      },
    },
  };

  it("both accept the baseline", () => {
    assert.ok(published(publishedView(base)), schemaErrors(published));
    assert.ok(ours(base), schemaErrors(ours));
  });

  for (const [why, change] of BREAKS) {
    it(`both reject ${why}`, () => {
      const manifest = structuredClone(base);
      change(manifest);
      assert.equal(published(publishedView(manifest)), false, `the published schema accepts ${why}`);
      assert.equal(
        ours(manifest),
        false,
        `toolwire's schema accepts ${why}, which the published one rejects`,
      );
    });
  }
});
