// The project's own JSON Schemas (schema/) against what the framework really emits, and against the manifests
// REQ-C-032 says the manifest schema must reject. Real manifests and envelopes come from spawned programs.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool, type Manifest } from "../../mod.ts";
import {
  asDefinition,
  type Declaration,
  FORBIDDEN_WITH_PROTOCOL,
  ordinaryDeclaration,
  protocolDeclaration,
} from "../helpers/declarations.ts";
import {
  finished,
  lastLine,
  type Loose,
  NOTES,
  onlyEnvelope,
  programArgv,
  run,
  sendSignal,
  start,
  tempDir,
  waitForOutput,
} from "../helpers/run.ts";
import { loadSchema, schemaErrors, schemaValidators } from "../helpers/schemas.ts";
import { Ajv2020 } from "ajv/dist/2020.js";

const LAB = programArgv("tests/fixtures/lab.ts");
const { manifest: validManifest, envelope: validEnvelope } = schemaValidators();

function assertValidEnvelope(envelope: unknown): void {
  assert.ok(
    validEnvelope(envelope),
    `${schemaErrors(validEnvelope)}\n${JSON.stringify(envelope).slice(0, 500)}`,
  );
}

function assertValidManifest(manifest: unknown): void {
  assert.ok(validManifest(manifest), schemaErrors(validManifest));
}

/** Asserts the schema rejects the manifest; with `at`, that an error points at that JSON pointer or below it. */
function assertInvalidManifest(manifest: unknown, why: string, at?: string): void {
  assert.equal(validManifest(manifest), false, `the manifest schema must reject ${why}`);
  if (at === undefined) return;
  const paths = (validManifest.errors ?? []).map((error) => error.instancePath);
  assert.ok(
    paths.some((path) => path === at || path.startsWith(`${at}/`)),
    `expected an error at ${at}, got ${schemaErrors(validManifest)}`,
  );
}

/** Runs `<program> manifest` and returns its envelope, checked against the envelope schema on the way. */
async function spawnManifest(program: readonly string[], ...extra: string[]): Promise<Loose> {
  const result = await run([...program, "--format", "json", "manifest", ...extra]);
  assert.equal(result.code, 0, result.stderr);
  const envelope = onlyEnvelope(result.stdout);
  assertValidEnvelope(envelope);
  return envelope;
}

let notesManifest: Promise<Loose> | undefined;
let labManifest: Promise<Loose> | undefined;
const notes = () => (notesManifest ??= spawnManifest(NOTES).then((envelope) => envelope.data));
const lab = () => (labManifest ??= spawnManifest(LAB).then((envelope) => envelope.data));

describe("manifest schema: the real manifests pass", () => {
  it("the notes example's manifest validates", async () => {
    assertValidManifest(await notes());
  });

  it("the toolwire binary's manifest validates, variadic positional included", async () => {
    const manifest = (await spawnManifest(programArgv("cmd/toolwire.ts"))).data;
    assertValidManifest(manifest);
    assert.equal(manifest.commands.check.positionals.at(-1).variadic, true);
  });

  it("a failure envelope may carry data: toolwire check's report", async () => {
    const result = await run([
      ...programArgv("cmd/toolwire.ts"),
      "--format",
      "json",
      "check",
      "--",
      "/nonexistent/cli",
    ]);
    assert.notEqual(result.code, 0);
    assertValidEnvelope(onlyEnvelope(result.stdout));
  });

  it("the lab fixture's manifest validates, protocol command included", async () => {
    const manifest = await lab();
    assertValidManifest(manifest);
    assert.equal(manifest.commands["echo-lines"].stdout, "protocol");
  });

  it("stdout and protocol appear on the protocol commands and on no other", async () => {
    const { commands } = await lab();
    const servers: Record<string, string> = { "echo-lines": "line-echo", "mcp.serve": "mcp-stdio" };
    for (const [path, entry] of Object.entries<Loose>(commands)) {
      assert.equal(entry.stdout, path in servers ? "protocol" : undefined, path);
      assert.equal(entry.protocol, servers[path], path);
    }
  });

  it("mcp: false appears on every command the MCP server leaves out (init, completions, mcp install, mcp listen, protocol servers) and on no other", async () => {
    const { commands } = await notes();
    for (const [path, entry] of Object.entries<Loose>(commands)) {
      const leftOut = ["init", "completions", "mcp.install", "mcp.listen"].includes(path) ||
        entry.stdout === "protocol";
      if (leftOut) assert.equal(entry.mcp, false, path);
      else assert.equal("mcp" in entry, false, path);
    }
  });

  it("every command's exit_codes include the framework codes 1, 2, 10, 130 and 143", async () => {
    for (const [name, manifest] of [["notes", await notes()], ["lab", await lab()]] as const) {
      for (const [path, entry] of Object.entries<Loose>(manifest.commands)) {
        for (const code of ["0", "1", "2", "10", "130", "143"]) {
          assert.ok(Object.hasOwn(entry.exit_codes, code), `${name} ${path} lacks exit code ${code}`);
        }
      }
    }
  });

  it("the etag is deterministic: two spawns give the same etag", async () => {
    const first = await notes();
    const second = (await spawnManifest(NOTES)).data;
    assert.match(first.etag, /^sha256:[0-9a-f]{64}$/);
    assert.equal(second.etag, first.etag);
    assert.deepEqual(second, first);
  });

  it("manifest --etag <current etag> answers data null with meta.not_modified true", async () => {
    const { etag } = await notes();
    const envelope = await spawnManifest(NOTES, "--etag", etag);
    assert.equal(envelope.ok, true);
    assert.equal(envelope.data, null);
    assert.equal(envelope.meta.not_modified, true);
  });

  it("manifest --etag <stale etag> answers the whole manifest", async () => {
    const envelope = await spawnManifest(NOTES, "--etag", `sha256:${"0".repeat(64)}`);
    assert.equal(envelope.meta.not_modified, undefined);
    assertValidManifest(envelope.data);
  });
});

describe("envelope schema: real envelopes pass", () => {
  it("a success envelope (notes add)", async () => {
    const home = tempDir();
    try {
      const result = await run([...NOTES, "add", "--title", "x", "--tag", "a"], {
        env: { NOTES_HOME: home.path },
      });
      assert.equal(result.code, 0, result.stderr);
      assertValidEnvelope(onlyEnvelope(result.stdout));
    } finally {
      home.cleanup();
    }
  });

  it("an array-data success envelope (notes list)", async () => {
    const home = tempDir();
    try {
      const result = await run([...NOTES, "list"], { env: { NOTES_HOME: home.path } });
      assert.equal(result.code, 0, result.stderr);
      assertValidEnvelope(onlyEnvelope(result.stdout));
    } finally {
      home.cleanup();
    }
  });

  it("an ARG_ERROR envelope with its issues (notes add without --title)", async () => {
    const result = await run([...NOTES, "add", "--titel", "x"]);
    assert.equal(result.code, 2);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "ARG_ERROR");
    assertValidEnvelope(envelope);
  });

  it("a NOT_FOUND envelope (notes show of a missing note)", async () => {
    const home = tempDir();
    try {
      const result = await run([...NOTES, "show", "41"], { env: { NOTES_HOME: home.path } });
      assert.equal(result.code, 5);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.error.code, "NOT_FOUND");
      assertValidEnvelope(envelope);
    } finally {
      home.cleanup();
    }
  });

  it("a TIMEOUT envelope (lab hang --timeout 0.3)", async () => {
    const result = await run([...LAB, "hang", "--timeout", "0.3"]);
    assert.equal(result.code, 10);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "TIMEOUT");
    assertValidEnvelope(envelope);
  });

  it("a CANCELLED envelope (SIGTERM during lab sleep)", async () => {
    const child = start([...LAB, "sleep"]);
    const done = finished(child);
    await waitForOutput(child, "stderr", "sleeping");
    sendSignal(child, "SIGTERM");
    const result = await done;
    assert.equal(result.code, 143, result.stderr);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "CANCELLED");
    assertValidEnvelope(envelope);
  });

  it("a CONFIRMATION_REQUIRED envelope (lab wipe without --confirm-destructive)", async () => {
    const result = await run([...LAB, "wipe"]);
    assert.equal(result.code, 2);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "CONFIRMATION_REQUIRED");
    assertValidEnvelope(envelope);
  });

  it("an envelope with a warning object (lab fail with an undeclared code)", async () => {
    const result = await run([...LAB, "fail", "--code", "12"]);
    assert.equal(result.code, 1);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.warnings[0].code, "UNDECLARED_EXIT_CODE");
    assertValidEnvelope(envelope);
  });

  it("the failure envelope on the last stderr line of a protocol command", async () => {
    const prepare = await run([...LAB, "--format", "json", "echo-lines", "--fail-prepare"], { stdin: "" });
    assert.equal(prepare.code, 5);
    assert.equal(prepare.stdout, "");
    assertValidEnvelope(JSON.parse(lastLine(prepare.stderr)));
    const badFlag = await run([...LAB, "--format", "json", "echo-lines", "--stray=maybe"], { stdin: "" });
    assert.equal(badFlag.code, 2);
    assertValidEnvelope(JSON.parse(lastLine(badFlag.stderr)));
  });

  it("the --version and --schema envelopes", async () => {
    const version = await run([...NOTES, "--version"]);
    assertValidEnvelope(onlyEnvelope(version.stdout));
    const schema = await run([...NOTES, "remove", "--schema"]);
    assertValidEnvelope(onlyEnvelope(schema.stdout));
  });
});

describe("envelope schema: what it rejects", () => {
  const success = () => ({
    ok: true,
    data: { id: 1 },
    error: null,
    warnings: [],
    meta: { exit_code: 0, duration_ms: 3 },
  });
  const failure = () => ({
    ok: false,
    data: null,
    error: { code: "NOT_FOUND", message: "no such note", retryable: false, phase: "execution" },
    warnings: [],
    meta: { exit_code: 5, duration_ms: 3 },
  });
  const rejects = (envelope: unknown, why: string) => assert.equal(validEnvelope(envelope), false, why);

  it("accepts the two well-formed baselines", () => {
    assertValidEnvelope(success());
    assertValidEnvelope(failure());
  });

  it("rejects a member beyond the five", () => {
    rejects({ ...success(), result: 1 }, "an extra member");
  });

  it("rejects a missing member", () => {
    const { warnings: _, ...rest } = success();
    rejects(rest, "no warnings");
  });

  it("rejects ok: true with a non-zero exit code", () => {
    rejects({ ...success(), meta: { exit_code: 2, duration_ms: 1 } }, "ok with exit 2");
  });

  it("rejects ok: true with an error", () => {
    rejects({ ...success(), error: failure().error }, "ok with an error");
  });

  it("rejects ok: false with exit code 0", () => {
    rejects({ ...failure(), meta: { exit_code: 0, duration_ms: 1 } }, "not ok with exit 0");
  });

  it("rejects ok: false without an error object", () => {
    rejects({ ...failure(), error: null }, "not ok without error");
  });

  it("rejects an error without code, message or retryable", () => {
    for (const member of ["code", "message", "retryable"]) {
      const error: Record<string, unknown> = { ...failure().error };
      delete error[member];
      rejects({ ...failure(), error }, `an error without ${member}`);
    }
  });

  it("rejects an unknown error phase", () => {
    rejects({ ...failure(), error: { ...failure().error, phase: "parsing" } }, "phase parsing");
  });

  it("rejects warnings that are strings", () => {
    rejects({ ...success(), warnings: ["careful"] }, "a string warning");
  });

  it("rejects meta without exit_code or duration_ms, or with a negative or fractional duration", () => {
    rejects({ ...success(), meta: { duration_ms: 1 } }, "no exit_code");
    rejects({ ...success(), meta: { exit_code: 0 } }, "no duration_ms");
    rejects({ ...success(), meta: { exit_code: 0, duration_ms: -1 } }, "a negative duration");
    rejects({ ...success(), meta: { exit_code: 0, duration_ms: 1.5 } }, "a fractional duration");
  });

  it("rejects an exit code outside 0-255", () => {
    rejects({ ...failure(), meta: { exit_code: 256, duration_ms: 1 } }, "exit 256");
  });
});

// A baseline manifest built in-process by the framework: an ordinary command and a protocol command. Each
// test below breaks one thing in a copy, the way a hand-written or foreign manifest could.
let baseline: Promise<Manifest> | undefined;
const baselineManifest = () => (baseline ??= (() => {
  const tool = createTool({ name: "widgets", version: "1.0.0", description: "Widgets" });
  tool.command("list", asDefinition(ordinaryDeclaration()) as never);
  tool.command("serve", asDefinition(protocolDeclaration()) as never);
  return tool.manifest();
})());

/** A copy of the baseline manifest with `change` applied to one command's entry. */
async function changed(path: "list" | "serve", change: (entry: Declaration) => void): Promise<Manifest> {
  const manifest = structuredClone(await baselineManifest());
  change(manifest.commands[path] as unknown as Declaration);
  return manifest;
}

describe("manifest --schema: the output schema it declares is the manifest schema", () => {
  it("is schema/manifest.schema.json but its $id, and validating with it enforces what the tool enforces", async () => {
    const result = await run([...NOTES, "--format", "json", "manifest", "--schema"]);
    assert.equal(result.code, 0, result.stderr);
    const declared = onlyEnvelope(result.stdout).data.output_schema;
    const { $id: _, ...expected } = loadSchema("manifest");
    assert.deepEqual(declared, expected);
    // What an agent does with it: compile it, and check the manifest it is given.
    const validate = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false }).compile(
      declared,
    );
    assert.ok(validate(await notes()), schemaErrors(validate));
    const refused: Array<[string, (entry: Declaration) => void, "list" | "serve"]> = [
      ["mcp: true", (entry) => (entry.mcp = true), "list"],
      ["stdout without protocol", (entry) => delete entry.protocol, "serve"],
      ["protocol without stdout", (entry) => (entry.protocol = "lsp"), "list"],
      ...FORBIDDEN_WITH_PROTOCOL.map(([field, value]) =>
        [`${field} on a protocol command`, (entry: Declaration) => (entry[field] = value), "serve"] as [
          string,
          (entry: Declaration) => void,
          "serve",
        ]
      ),
    ];
    for (const [why, change, path] of refused) {
      assert.equal(validate(await changed(path, change)), false, `the declared schema accepts ${why}`);
    }
  });
});

describe("manifest schema: what it rejects (REQ-C-032 and the command contract)", () => {
  it("accepts the in-process baseline", async () => {
    assertValidManifest(await baselineManifest());
  });

  it("rejects mcp: true", async () => {
    assertInvalidManifest(
      await changed("list", (entry) => (entry.mcp = true)),
      "mcp: true",
      "/commands/list/mcp",
    );
  });

  it("accepts mcp: false", async () => {
    assertValidManifest(await changed("list", (entry) => (entry.mcp = false)));
  });

  it('rejects a lone stdout: "protocol"', async () => {
    assertInvalidManifest(
      await changed("serve", (entry) => delete entry.protocol),
      "stdout without protocol",
      "/commands/serve",
    );
    assertInvalidManifest(
      await changed("list", (entry) => (entry.stdout = "protocol")),
      "stdout without protocol",
      "/commands/list",
    );
  });

  it("rejects a lone protocol", async () => {
    assertInvalidManifest(
      await changed("serve", (entry) => delete entry.stdout),
      "protocol without stdout",
      "/commands/serve",
    );
    assertInvalidManifest(
      await changed("list", (entry) => (entry.protocol = "lsp")),
      "protocol without stdout",
      "/commands/list",
    );
  });

  it('rejects stdout other than "protocol"', async () => {
    assertInvalidManifest(await changed("serve", (entry) => (entry.stdout = "envelope")), "stdout: envelope");
  });

  it("rejects a protocol name that is not lowercase kebab-case", async () => {
    for (const name of ["MCP-stdio", "mcp_stdio", "mcp stdio", "lsp-", ""]) {
      assertInvalidManifest(
        await changed("serve", (entry) => (entry.protocol = name)),
        `protocol ${JSON.stringify(name)}`,
        "/commands/serve/protocol",
      );
    }
  });

  it("accepts the documented protocol names", async () => {
    for (const name of ["mcp-stdio", "lsp", "dap"]) {
      assertValidManifest(await changed("serve", (entry) => (entry.protocol = name)));
    }
  });

  for (const [field, value] of FORBIDDEN_WITH_PROTOCOL) {
    it(`rejects a protocol entry with ${field}: ${JSON.stringify(value)}`, async () => {
      assertInvalidManifest(
        await changed("serve", (entry) => (entry[field] = value)),
        `${field} on a protocol entry`,
        `/commands/serve/${field}`,
      );
    });
  }

  it("accepts each of those fields on an ordinary entry", async () => {
    for (const [field, value] of FORBIDDEN_WITH_PROTOCOL) {
      const manifest = await changed("list", (entry) => (entry[field] = value));
      assert.ok(validManifest(manifest), `${field}: ${schemaErrors(validManifest)}`);
    }
  });

  it("accepts the non-combining booleans as false on a protocol entry", async () => {
    const off = [
      "interactive",
      "streaming_default",
      "output_file",
      "async",
      "spawns_background_process",
      "safe_default",
    ];
    assertValidManifest(await changed("serve", (entry) => off.forEach((field) => (entry[field] = false))));
  });

  it("rejects a protocol entry that takes a per-invocation framework flag", async () => {
    for (const flag of ["idempotency-key", "dry-run", "confirm-destructive", "output"]) {
      const manifest = await changed("serve", (entry) => {
        (entry.flags as Declaration)[flag] = { type: "string", required: false, description: "x" };
      });
      assertInvalidManifest(manifest, `--${flag} on a protocol entry`);
    }
  });

  it('rejects exit_codes without "0"', async () => {
    assertInvalidManifest(
      await changed("list", (entry) => delete (entry.exit_codes as Declaration)["0"]),
      "no exit code 0",
      "/commands/list/exit_codes",
    );
  });

  it("rejects retryable: true with side_effects partial", async () => {
    const manifest = await changed("list", (entry) => {
      (entry.exit_codes as Declaration)["80"] = {
        name: "BUSY",
        description: "Busy",
        retryable: true,
        side_effects: "partial",
      };
    });
    assertInvalidManifest(manifest, "retryable with partial side effects", "/commands/list/exit_codes/80");
  });

  it("rejects exit-code keys that are not declarable integer strings", async () => {
    for (const key of ["42", "080", "-1", "1.0", "x", "256"]) {
      const manifest = await changed("list", (entry) => {
        (entry.exit_codes as Declaration)[key] = {
          name: "ODD",
          description: "Odd",
          retryable: false,
          side_effects: "none",
        };
      });
      assertInvalidManifest(manifest, `exit code key ${JSON.stringify(key)}`);
    }
  });

  it("rejects a standard exit code under another name", async () => {
    const manifest = await changed("list", (entry) => {
      ((entry.exit_codes as Record<string, Declaration>)["5"]!).name = "MISSING";
    });
    assertInvalidManifest(manifest, "code 5 named MISSING");
  });

  it("rejects a member the entry shape does not have", async () => {
    assertInvalidManifest(await changed("list", (entry) => (entry.run = "list")), "an unknown member");
  });

  it("rejects requires_confirmation on a command that is not destructive", async () => {
    assertInvalidManifest(
      await changed("list", (entry) => (entry.requires_confirmation = true)),
      "requires_confirmation on safe",
    );
  });

  it("rejects a flag default of the wrong type and an enum without enum_values", async () => {
    const wrongDefault = await changed("list", (entry) => {
      ((entry.flags as Record<string, Declaration>).limit!).default = "20";
    });
    assertInvalidManifest(wrongDefault, "an integer flag with a string default");
    const bareEnum = await changed("list", (entry) => {
      (entry.flags as Declaration).color = { type: "enum", required: false, description: "Color" };
    });
    assertInvalidManifest(bareEnum, "an enum flag without enum_values");
  });

  it("rejects an etag that is not sha256:<64 hex>", async () => {
    const manifest = structuredClone(await baselineManifest());
    manifest.etag = "sha256:7d1f40";
    assertInvalidManifest(manifest, "a short etag");
  });
});
