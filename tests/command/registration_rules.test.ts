// Registration refuses every invalid declaration at once, naming the command and the field
// (docs/contract.md#registration, REQ-C-032). One named test per rule of lib/command/contract/registration_rules.ts
// and registry.ts; all in-process.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool, RegistrationError } from "../../mod.ts";
import { CommandRegistry } from "../../lib/command/contract/registry.ts";
import { PROTOCOL_FORBIDDEN } from "../../lib/command/contract/registration_rules.ts";
import {
  asDefinition,
  type Declaration,
  FORBIDDEN_WITH_PROTOCOL,
  ordinaryDeclaration,
  protocolDeclaration,
} from "../helpers/declarations.ts";
import { schemaErrors, schemaValidators } from "../helpers/schemas.ts";

const PATH = "widgets.list";

/** The ordinary declaration with some fields replaced; `undefined` removes a field. */
function ordinary(changes: Declaration): Declaration {
  return withChanges(ordinaryDeclaration(), changes);
}

/** The protocol declaration with some fields replaced; `undefined` removes a field. */
function protocol(changes: Declaration): Declaration {
  return withChanges(protocolDeclaration(), changes);
}

function withChanges(base: Declaration, changes: Declaration): Declaration {
  const result = { ...base, ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete result[key];
  return result;
}

/** A valid exit-code row, changed where the test says. */
function row(changes: Declaration = {}): Declaration {
  return { name: "SUCCESS", description: "Done", retryable: false, side_effects: "none", ...changes };
}

/** Registers and asserts the refusal: a RegistrationError naming `path` and `field`, in `.command`, `.field` and the message. */
function assertRefused(
  declaration: Declaration,
  field: string,
  path = PATH,
  registry = new CommandRegistry(),
): void {
  let caught: unknown;
  try {
    registry.register(path, asDefinition(declaration));
  } catch (error) {
    caught = error;
  }
  assert.ok(
    caught instanceof RegistrationError,
    `expected a RegistrationError for ${field}, got ${String(caught)}`,
  );
  assert.equal(caught.command, path);
  assert.equal(caught.field, field, caught.message);
  assert.ok(caught.message.includes(`'${path}'`), `the message names the command: ${caught.message}`);
  assert.ok(caught.message.includes(field), `the message names the field: ${caught.message}`);
}

describe("registration: the tool's options", () => {
  it("denoPermissions takes Deno's permission flags only, and the tool keeps a copy", () => {
    const options = { name: "perm", version: "1.0.0", description: "Permissions" };
    const flags = ["--allow-env=HOME,PATH", "--allow-read", "--deny-net", "-A"];
    const tool = createTool({ ...options, denoPermissions: flags });
    assert.deepEqual(tool.denoPermissions, flags);
    assert.notEqual(tool.denoPermissions, flags);
    assert.equal(createTool(options).denoPermissions, undefined);
    for (const bad of ["--allow-read; rm -rf /", "-A --allow-all", "allow-read", "--reload", ""]) {
      assert.throws(
        () => createTool({ ...options, denoPermissions: [bad] }),
        (error) => error instanceof RegistrationError && /denoPermissions/.test(error.message),
        bad,
      );
    }
  });
});

describe("registration: the command path", () => {
  it("refuses a path that is not dotted lowercase kebab-case", () => {
    for (
      const path of ["Widgets", "widgets..list", "widgets.", "-widgets", "widgets_list", "widgets list", ""]
    ) {
      assertRefused(ordinaryDeclaration(), "path", path);
    }
  });

  it("refuses a path registered twice", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinaryDeclaration()));
    assertRefused(ordinaryDeclaration(), "path", PATH, registry);
  });

  it("refuses an alias that collides with a registered path", () => {
    const registry = new CommandRegistry();
    registry.register("widgets.rm", asDefinition(ordinaryDeclaration()));
    assertRefused(ordinary({ aliases: ["rm"] }), "aliases", "widgets.remove", registry);
  });

  it("refuses a path that collides with a registered alias", () => {
    const registry = new CommandRegistry();
    registry.register("widgets.remove", asDefinition(ordinary({ aliases: ["rm"] })));
    assertRefused(ordinaryDeclaration(), "path", "widgets.rm", registry);
  });

  it("refuses aliases that are not kebab-case words", () => {
    assertRefused(ordinary({ aliases: ["Ls"] }), "aliases");
    assertRefused(ordinary({ aliases: "ls" }), "aliases");
  });
});

describe("registration: the required contract", () => {
  it("refuses a missing description", () => {
    assertRefused(ordinary({ description: undefined }), "description");
  });

  it("refuses an empty or blank description", () => {
    assertRefused(ordinary({ description: "" }), "description");
    assertRefused(ordinary({ description: "   " }), "description");
  });

  it("refuses a danger_level other than safe, mutating or destructive", () => {
    assertRefused(ordinary({ danger_level: "risky" }), "danger_level");
    assertRefused(ordinary({ danger_level: undefined }), "danger_level");
  });

  it("refuses missing required_scopes ([] is required when no auth)", () => {
    assertRefused(ordinary({ required_scopes: undefined }), "required_scopes");
  });

  it("refuses required_scopes that are not a list of strings", () => {
    assertRefused(ordinary({ required_scopes: ["widgets:read", 7] }), "required_scopes");
  });
});

describe("registration: exit codes (REQ-C-001)", () => {
  it("refuses missing exit_codes", () => {
    assertRefused(ordinary({ exit_codes: undefined }), "exit_codes");
  });

  it("refuses exit_codes that are not a map", () => {
    assertRefused(ordinary({ exit_codes: [row()] }), "exit_codes");
  });

  it('refuses exit_codes without "0"', () => {
    assertRefused(ordinary({ exit_codes: { "5": row({ name: "NOT_FOUND" }) } }), "exit_codes");
  });

  it("refuses a code outside the standard table and the 79-125 range (42)", () => {
    assertRefused(ordinary({ exit_codes: { "0": row(), "42": row({ name: "ANSWER" }) } }), "exit_codes.42");
  });

  it("refuses a key that is not a decimal integer", () => {
    assertRefused(
      ordinary({ exit_codes: { "0": row(), "080": row({ name: "LEADING_ZERO" }) } }),
      "exit_codes.080",
    );
    assertRefused(ordinary({ exit_codes: { "0": row(), "x": row({ name: "X" }) } }), "exit_codes.x");
  });

  it("refuses a standard code under another name", () => {
    assertRefused(
      ordinary({ exit_codes: { "0": row(), "5": row({ name: "MISSING" }) } }),
      "exit_codes.5.name",
    );
  });

  it("refuses a command-specific code without a name", () => {
    assertRefused(
      ordinary({ exit_codes: { "0": row(), "80": row({ name: undefined }) } }),
      "exit_codes.80.name",
    );
  });

  it("refuses an exit code without a description", () => {
    assertRefused(ordinary({ exit_codes: { "0": row({ description: "" }) } }), "exit_codes.0.description");
  });

  it("refuses an exit-code description longer than the published 120 characters, counted in code points", () => {
    assertRefused(
      ordinary({ exit_codes: { "0": row({ description: "x".repeat(121) }) } }),
      "exit_codes.0.description",
    );
    const registry = new CommandRegistry();
    registry.register(
      PATH,
      asDefinition(ordinary({ exit_codes: { "0": row({ description: "é".repeat(120) }) } })),
    );
    registry.register(
      "widgets.emoji",
      asDefinition(ordinary({ exit_codes: { "0": row({ description: "🙂".repeat(120) }) } })),
    );
  });

  it("refuses a non-boolean retryable", () => {
    assertRefused(ordinary({ exit_codes: { "0": row({ retryable: "no" }) } }), "exit_codes.0.retryable");
  });

  it("refuses side_effects other than none, partial or complete", () => {
    assertRefused(
      ordinary({ exit_codes: { "0": row({ side_effects: "some" }) } }),
      "exit_codes.0.side_effects",
    );
  });

  it("refuses retryable: true with side_effects other than none", () => {
    for (const side_effects of ["partial", "complete"]) {
      const exit_codes = { "0": row(), "80": row({ name: "BUSY", retryable: true, side_effects }) };
      assertRefused(ordinary({ exit_codes }), "exit_codes.80.retryable");
    }
  });
});

describe("registration: flags", () => {
  const flag = (spec: Declaration) => ({ type: "string", description: "A flag", ...spec });

  it("refuses a flag name that is not lowercase kebab-case", () => {
    assertRefused(ordinary({ flags: { Limit: flag({}) } }), "flags.Limit");
    assertRefused(ordinary({ flags: { max_count: flag({}) } }), "flags.max_count");
  });

  it("refuses a flag name starting with no- (--no-<flag> negates booleans)", () => {
    assertRefused(ordinary({ flags: { "no-color": flag({ type: "boolean" }) } }), "flags.no-color");
  });

  it("refuses a global framework flag name", () => {
    for (const name of ["format", "timeout", "help", "schema", "version"]) {
      assertRefused(ordinary({ flags: { [name]: flag({}) } }), `flags.${name}`);
    }
  });

  it("refuses a per-command framework flag name", () => {
    for (const name of ["idempotency-key", "dry-run", "confirm-destructive", "output"]) {
      assertRefused(ordinary({ flags: { [name]: flag({}) } }), `flags.${name}`);
    }
  });

  it("refuses a flags value that is not a map", () => {
    assertRefused(ordinary({ flags: ["limit"] }), "flags");
  });

  it("refuses an unknown flag type", () => {
    assertRefused(ordinary({ flags: { ratio: flag({ type: "float" }) } }), "flags.ratio.type");
  });

  it("refuses a flag without a description", () => {
    assertRefused(ordinary({ flags: { name: { type: "string" } } }), "flags.name.description");
  });

  it("refuses a non-boolean required", () => {
    assertRefused(ordinary({ flags: { name: flag({ required: "yes" }) } }), "flags.name.required");
  });

  it("refuses an enum flag without enum_values", () => {
    assertRefused(ordinary({ flags: { color: flag({ type: "enum" }) } }), "flags.color.enum_values");
    assertRefused(
      ordinary({ flags: { color: flag({ type: "enum", enum_values: [] }) } }),
      "flags.color.enum_values",
    );
  });

  it("refuses enum_values on a flag that is not an enum", () => {
    assertRefused(ordinary({ flags: { color: flag({ enum_values: ["red"] }) } }), "flags.color.enum_values");
  });

  it("refuses a default of the wrong type", () => {
    const cases: Array<[string, unknown]> = [
      ["string", 5],
      ["integer", "5"],
      ["integer", 1.5],
      ["number", "1.5"],
      ["boolean", "false"],
      ["array", "a"],
    ];
    for (const [type, value] of cases) {
      assertRefused(ordinary({ flags: { value: flag({ type, default: value }) } }), "flags.value.default");
    }
  });

  it("refuses an enum default that is not one of enum_values", () => {
    const color = flag({ type: "enum", enum_values: ["red", "green"], default: "blue" });
    assertRefused(ordinary({ flags: { color } }), "flags.color.default");
  });

  it("refuses a required flag with a default", () => {
    assertRefused(
      ordinary({ flags: { name: flag({ required: true, default: "x" }) } }),
      "flags.name.default",
    );
  });

  it("refuses a short that is not one ASCII letter, or is h (help)", () => {
    for (const short of ["ab", "1", "é", "h", ""]) {
      assertRefused(ordinary({ flags: { name: flag({ short }) } }), "flags.name.short");
    }
  });

  it("refuses the same short on two flags", () => {
    const flags = { name: flag({ short: "n" }), number: flag({ type: "integer", short: "n" }) };
    assertRefused(ordinary({ flags }), "flags.number.short");
  });
});

describe("registration: positionals", () => {
  const positional = (spec: Declaration) => ({ name: "id", description: "An id", ...spec });

  it("refuses positionals that are not a list", () => {
    assertRefused(ordinary({ positionals: { id: positional({}) } }), "positionals");
  });

  it("refuses a positional name that is not a lowercase identifier", () => {
    assertRefused(ordinary({ positionals: [positional({ name: "Id" })] }), "positionals.0.name");
    assertRefused(ordinary({ positionals: [positional({ name: "note-id" })] }), "positionals.0.name");
  });

  it("refuses the same positional name twice", () => {
    assertRefused(ordinary({ positionals: [positional({}), positional({})] }), "positionals.1.name");
  });

  it("refuses a positional that clashes with a flag", () => {
    const flags = { "out-dir": { type: "string", description: "Where" } };
    assertRefused(ordinary({ flags, positionals: [positional({ name: "out_dir" })] }), "positionals.0.name");
  });

  it("refuses a required positional after an optional one", () => {
    const positionals = [positional({ name: "first", required: false }), positional({ name: "second" })];
    assertRefused(ordinary({ positionals }), "positionals.1.required");
  });

  it("refuses a positional without a description", () => {
    assertRefused(ordinary({ positionals: [{ name: "id" }] }), "positionals.0.description");
  });

  it("refuses a positional type other than string, integer or number", () => {
    assertRefused(ordinary({ positionals: [positional({ type: "boolean" })] }), "positionals.0.type");
  });
});

describe("registration: stdout and protocol (REQ-C-032)", () => {
  it('refuses stdout: "protocol" without protocol', () => {
    assertRefused(protocol({ protocol: undefined }), "protocol");
  });

  it('refuses protocol without stdout: "protocol"', () => {
    assertRefused(ordinary({ protocol: "mcp-stdio" }), "stdout");
  });

  it('refuses stdout other than "protocol"', () => {
    assertRefused(ordinary({ stdout: "envelope" }), "stdout");
    assertRefused(protocol({ stdout: "json" }), "stdout");
  });

  it("refuses a protocol name that is not lowercase kebab-case", () => {
    for (const name of ["MCP-stdio", "mcp_stdio", "mcp stdio", "-lsp", "lsp-", ""]) {
      assertRefused(protocol({ protocol: name }), "protocol");
    }
    assertRefused(protocol({ protocol: 7 }), "protocol");
  });

  it("the forbidden-field samples cover PROTOCOL_FORBIDDEN exactly", () => {
    assert.deepEqual(
      FORBIDDEN_WITH_PROTOCOL.map(([field]) => field),
      PROTOCOL_FORBIDDEN.map(([field]) => field),
    );
  });

  for (const [field, value] of FORBIDDEN_WITH_PROTOCOL) {
    it(`refuses a protocol command that declares ${field}: ${JSON.stringify(value)}`, () => {
      assertRefused(protocol({ [field]: value }), field);
    });

    it(`accepts ${field}: ${JSON.stringify(value)} on an ordinary command`, () => {
      new CommandRegistry().register(PATH, asDefinition(ordinary({ [field]: value })));
    });
  }

  it("accepts a protocol command that declares the non-combining booleans as false", () => {
    const off = {
      interactive: false,
      streaming_default: false,
      output_file: false,
      async: false,
      spawns_background_process: false,
      safe_default: false,
    };
    new CommandRegistry().register("widgets.serve", asDefinition(protocol(off)));
  });

  it("refuses mcp: true", () => {
    assertRefused(ordinary({ mcp: true }), "mcp");
    assertRefused(protocol({ mcp: true }), "mcp");
  });

  it("refuses an mcp value other than false", () => {
    assertRefused(ordinary({ mcp: "no" }), "mcp");
  });

  it("treats mcp: undefined as absent, like every optional field", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinary({ mcp: undefined })));
    assert.equal("mcp" in registry.get(PATH)!.entry, false);
  });
});

describe("registration: handlers", () => {
  it("refuses a protocol command without serve", () => {
    assertRefused(protocol({ serve: undefined }), "serve");
  });

  it("refuses a protocol command with run", () => {
    assertRefused(protocol({ run: () => null }), "run");
  });

  it("refuses an ordinary command without run", () => {
    assertRefused(ordinary({ run: undefined }), "run");
  });

  it("refuses an ordinary command with serve", () => {
    assertRefused(ordinary({ serve: () => () => Promise.resolve() }), "serve");
  });
});

describe("registration: optional fields", () => {
  it("refuses a negative or non-numeric timeout_seconds", () => {
    assertRefused(ordinary({ timeout_seconds: -1 }), "timeout_seconds");
    assertRefused(ordinary({ timeout_seconds: "10" }), "timeout_seconds");
  });

  it("refuses examples that are not {description, command}", () => {
    assertRefused(ordinary({ examples: [{ description: "x" }] }), "examples");
    assertRefused(ordinary({ examples: [{ description: "x", command: "tool x", output: "y" }] }), "examples");
  });

  it('refuses arguments other than "passthrough"', () => {
    assertRefused(ordinary({ arguments: "forward" }), "arguments");
  });

  it('refuses stderr other than "child_log"', () => {
    assertRefused(ordinary({ stderr: "log" }), "stderr");
  });

  it("refuses an output_schema that is not an object", () => {
    assertRefused(ordinary({ output_schema: "object" }), "output_schema");
    assertRefused(ordinary({ output_schema: [{ type: "object" }] }), "output_schema");
  });

  it("refuses non-boolean values of the boolean contract fields", () => {
    for (
      const field of [
        "interactive",
        "streaming_default",
        "output_file",
        "async",
        "spawns_background_process",
        "safe_default",
        "idempotent",
        "has_network_io",
      ]
    ) {
      assertRefused(ordinary({ [field]: "yes" }), field);
    }
  });

  it("refuses a stdin that is not {description, max_bytes?}", () => {
    assertRefused(ordinary({ stdin: "json" }), "stdin");
    assertRefused(ordinary({ stdin: {} }), "stdin.description");
    assertRefused(ordinary({ stdin: { description: "A payload", max_bytes: -1 } }), "stdin.max_bytes");
    assertRefused(ordinary({ stdin: { description: "A payload", encoding: "utf8" } }), "stdin.encoding");
  });

  it("refuses output_formats and output_media_types that are not lists of non-empty strings", () => {
    assertRefused(ordinary({ output_formats: "yaml" }), "output_formats");
    assertRefused(ordinary({ output_media_types: [""] }), "output_media_types");
  });

  it("refuses an empty cleanup_command", () => {
    assertRefused(ordinary({ cleanup_command: " " }), "cleanup_command");
  });

  it("refuses a max_lifetime_seconds that is not a positive number", () => {
    assertRefused(ordinary({ max_lifetime_seconds: 0 }), "max_lifetime_seconds");
    assertRefused(ordinary({ max_lifetime_seconds: "1h" }), "max_lifetime_seconds");
  });

  it("refuses a confirm_flag that is not a flag name", () => {
    assertRefused(ordinary({ confirm_flag: "--yes" }), "confirm_flag");
  });
});

describe("registration: the tool", () => {
  it("refuses a tool name that is not lowercase kebab-case", () => {
    assert.throws(
      () => createTool({ name: "My Tool", version: "1.0.0", description: "x" }),
      (error: unknown) =>
        error instanceof RegistrationError && error.command === "My Tool" && error.field === "name",
    );
  });

  it("Tool.command refuses like the registry, and leaves the tool usable", () => {
    const tool = createTool({ name: "widgets", version: "1.0.0", description: "Widgets" });
    assert.throws(
      () => tool.command("list", asDefinition(ordinary({ mcp: true })) as never),
      RegistrationError,
    );
    tool.command("list", asDefinition(ordinaryDeclaration()) as never);
    assert.ok(tool.registry.get("list"));
  });
});

describe("registration: valid declarations", () => {
  const flagNames = (registry: CommandRegistry, path: string) => Object.keys(registry.get(path)!.entry.flags);

  it("a safe command registers and its entry carries its own flags only", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinaryDeclaration()));
    assert.deepEqual(flagNames(registry, PATH), ["limit", "tag"]);
    assert.equal(registry.get(PATH)!.entry.requires_confirmation, undefined);
  });

  it("a mutating command's entry adds --idempotency-key (REQ-C-007) and CONFLICT", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinary({ danger_level: "mutating" })));
    assert.deepEqual(flagNames(registry, PATH), ["limit", "tag", "idempotency-key"]);
    assert.equal(registry.get(PATH)!.entry.exit_codes["6"]?.name, "CONFLICT");
  });

  it("a destructive command's entry adds --dry-run and --confirm-destructive and requires confirmation", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinary({ danger_level: "destructive" })));
    assert.deepEqual(flagNames(registry, PATH), [
      "limit",
      "tag",
      "idempotency-key",
      "dry-run",
      "confirm-destructive",
    ]);
    assert.equal(registry.get(PATH)!.entry.requires_confirmation, true);
  });

  it("an output_file command's entry adds --output", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinary({ output_file: true })));
    assert.ok(flagNames(registry, PATH).includes("output"));
  });

  it("a destructive protocol command's entry adds no framework flags and no requires_confirmation", () => {
    const registry = new CommandRegistry();
    registry.register("widgets.serve", asDefinition(protocol({ danger_level: "destructive" })));
    assert.deepEqual(flagNames(registry, "widgets.serve"), ["read-only"]);
    assert.equal(registry.get("widgets.serve")!.entry.requires_confirmation, undefined);
  });

  it("every entry carries the framework exit codes, sorted, with the declared rows kept", () => {
    const registry = new CommandRegistry();
    registry.register(PATH, asDefinition(ordinaryDeclaration()));
    const codes = registry.get(PATH)!.entry.exit_codes;
    assert.deepEqual(Object.keys(codes), ["0", "1", "2", "5", "10", "129", "130", "143"]);
    assert.equal(codes["5"]!.description, "The shelf does not exist");
  });

  it("a tool's manifest of valid declarations passes the manifest schema", async () => {
    const tool = createTool({ name: "widgets", version: "1.0.0", description: "Widgets" });
    tool.command("list", asDefinition(ordinaryDeclaration()) as never);
    tool.command("remove", asDefinition(ordinary({ danger_level: "destructive", aliases: ["rm"] })) as never);
    tool.command("serve", asDefinition(protocol({ mcp: false })) as never);
    for (const [field, value] of FORBIDDEN_WITH_PROTOCOL) {
      tool.command(`with.${field.replaceAll("_", "-")}`, asDefinition(ordinary({ [field]: value })) as never);
    }
    const { manifest } = schemaValidators();
    const valid = manifest(await tool.manifest());
    assert.ok(valid, schemaErrors(manifest));
  });
});
