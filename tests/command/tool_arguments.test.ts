// MCP tool arguments against a command's manifest entry (ToolArgumentPlan): names, types, framework
// arguments, names that collide with Object.prototype members, and — a property over random commands and
// random arguments — the same result as sorting the arguments first and completing them with the CLI's
// completeFlags and completePositionals (the seed is printed; TOOLWIRE_PROPERTY_SEED replays a run).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import fc from "fast-check";
import type { CommandDefinition, FlagType } from "../../lib/command/contract/command_definition.ts";
import {
  type CommandEntry,
  type FlagEntry,
  manifestEntry,
  type PositionalEntry,
} from "../../lib/command/contract/manifest.ts";
import {
  argumentName,
  type CheckedArguments,
  mcpTool,
  ToolArgumentPlan,
} from "../../lib/command/mcp/tool_mapping.ts";
import { validateDefinition } from "../../lib/command/contract/registration_rules.ts";
import {
  coerceJson,
  completeFlags,
  completePositionals,
  type InputIssue,
  quote,
} from "../../lib/command/input/input_values.ts";
import { COMMAND_FRAMEWORK_FLAGS } from "../../lib/command/contract/framework_flags.ts";
import { idempotencyKeyIssue } from "../../lib/command/run/idempotency_store.ts";
import { propertySettings } from "../reliability/mcp_scenario.ts";

const definition: CommandDefinition = {
  description: "Build",
  danger_level: "mutating",
  required_scopes: [],
  flags: {
    "constructor": { type: "string" as const, description: "A flag named like an Object.prototype member" },
    "max-depth": { type: "integer", description: "How deep" },
    "tag": { type: "array", description: "Tags", default: ["a"] },
  },
  positionals: [{ name: "target", description: "What" }],
  exit_codes: { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "complete" } },
  run: () => null,
};

describe("ToolArgumentPlan", () => {
  validateDefinition("build", definition);
  const entry = manifestEntry(definition);
  const plan = new ToolArgumentPlan(entry);

  it("sorts flags (snake_case), positionals and framework arguments apart, and completes them", () => {
    const checked = plan.check({ target: "app", max_depth: 3, idempotency_key: "k-1" });
    assert.deepEqual([...checked.given], [["max-depth", 3]]);
    assert.deepEqual(Object.entries(checked.flags), [["max-depth", 3], ["tag", ["a"]]]);
    assert.deepEqual(Object.entries(checked.args), [["target", "app"]]);
    assert.equal(checked.idempotencyKey, "k-1");
    assert.deepEqual(checked.issues, []);
  });

  it("hands out copies: a default array and a given array are the handler's own", () => {
    const tags = ["x"];
    const given = plan.check({ target: "app", tag: tags });
    assert.deepEqual(given.flags.tag, ["x"]);
    assert.notEqual(given.flags.tag, tags);
    const first = plan.check({ target: "app" }).flags.tag as string[];
    first.push("changed");
    assert.deepEqual(plan.check({ target: "app" }).flags.tag, ["a"]);
  });

  it("collects every unknown, mistyped or missing argument, in order", () => {
    const checked = plan.check(
      JSON.parse(`{"max-depth":3,"max_depth":"deep","__proto__":{"polluted":true}}`),
    );
    assert.deepEqual(checked.issues.map((issue) => issue.message), [
      "unknown argument 'max-depth'",
      "max_depth expects an integer, got 'deep'",
      "unknown argument '__proto__'",
      "missing argument target",
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("an integer beyond ±(2^53 - 1) is refused naming the range; one that is not whole, as not an integer", () => {
    assert.equal(plan.check({ target: "app", max_depth: 9007199254740991 }).issues.length, 0);
    const messagesOf = (text: string) =>
      plan.check(JSON.parse(`{"target":"app","max_depth":${text}}`)).issues.map((issue) => issue.message);
    assert.deepEqual(messagesOf("9007199254740992"), [
      "max_depth expects an integer from -(2^53 - 1) to 2^53 - 1, got 9007199254740992",
    ]);
    assert.deepEqual(messagesOf("-1e300"), [
      "max_depth expects an integer from -(2^53 - 1) to 2^53 - 1, got -1e+300",
    ]);
    assert.deepEqual(messagesOf("1.5"), ["max_depth expects an integer, got 1.5"]);
    // Too large for a double: parsed as Infinity, and named so rather than as JSON.stringify's null.
    assert.deepEqual(messagesOf("-1e309"), ["max_depth expects an integer, got -Infinity"]);
  });

  it("a flag named constructor is an ordinary argument; other Object.prototype names are unknown ones", () => {
    assert.equal(argumentName("constructor"), "constructor");
    assert.ok(Object.hasOwn(mcpTool("build", entry).inputSchema.properties as object, "constructor"));
    assert.deepEqual([...plan.check({ constructor: "x" }).given], [["constructor", "x"]]);
    const names = ["__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__"];
    const text = `{${
      names.map((name) => `${JSON.stringify(name)}:{"polluted":true}`).join(",")
    },"target":"t"}`;
    const before = Object.getOwnPropertyNames(Object.prototype);
    const checked = plan.check(JSON.parse(text));
    assert.deepEqual(
      checked.issues.map((issue) => issue.message),
      names.map((name) => `unknown argument '${name}'`),
    );
    assert.equal(Object.getPrototypeOf(checked.flags), null);
    assert.equal(Object.getPrototypeOf(checked.args), null);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype), before);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(typeof ({}).toString, "function");
  });
});

/**
 * The argument checks as a catalog ran them before the plan: the arguments sorted into a Map of given flags
 * and a list of positionals, then the CLI's completeFlags and completePositionals, then the key's check.
 */
function sortThenComplete(entry: CommandEntry, args: Record<string, unknown>): CheckedArguments {
  const flagsByName = new Map<string, [flag: string, spec: FlagEntry]>();
  for (const [flag, spec] of Object.entries(entry.flags)) {
    if (flag !== "output") flagsByName.set(argumentName(flag), [flag, spec]);
  }
  const positionalSpecs = entry.positionals ?? [];
  const positionalIndex = new Map<string, number>();
  positionalSpecs.forEach((positional, index) => {
    if (!positionalIndex.has(positional.name)) positionalIndex.set(positional.name, index);
  });
  const given = new Map<string, unknown>();
  const positionals = new Array(positionalSpecs.length).fill(undefined);
  const issues: InputIssue[] = [];
  let idempotencyKey: string | undefined;
  let dryRun = false;
  let confirmed = false;
  for (const key of Object.keys(args)) {
    const value = args[key];
    const index = positionalIndex.get(key);
    if (index !== undefined) {
      positionals[index] = value;
      continue;
    }
    const known = flagsByName.get(key);
    if (known === undefined) {
      issues.push({ field: key, message: `unknown argument ${quote(key)}` });
      continue;
    }
    // A framework flag is taken with the framework's type, whatever the manifest says of it.
    const framework = Object.hasOwn(COMMAND_FRAMEWORK_FLAGS, known[0])
      ? COMMAND_FRAMEWORK_FLAGS[known[0]]!.type
      : known[1].type;
    const spec = framework === known[1].type
      ? known[1]
      : { type: framework, required: known[1].required, description: known[1].description };
    const coerced = coerceJson(key, spec, value);
    if ("issue" in coerced) issues.push(coerced.issue);
    else if (known[0] === "idempotency-key") idempotencyKey = coerced.value as string;
    else if (known[0] === "dry-run") dryRun = coerced.value === true;
    else if (known[0] === "confirm-destructive") confirmed = coerced.value === true;
    else given.set(known[0], coerced.value);
  }
  const own = Object.fromEntries(
    Object.entries(entry.flags).filter(([name]) => !Object.hasOwn(COMMAND_FRAMEWORK_FLAGS, name)),
  );
  const flags = completeFlags(own, given, issues, argumentName);
  const completed = completePositionals(positionalSpecs, positionals, issues, "json", (name) => name);
  const keyIssue = idempotencyKeyIssue(idempotencyKey, "idempotency_key");
  if (keyIssue !== undefined) issues.push(keyIssue);
  return { given, flags, args: completed, idempotencyKey, dryRun, confirmed, issues };
}

/** Everything an executor or an ARG_ERROR envelope sees of a check: values, key order, prototypes. */
function shown(checked: CheckedArguments): unknown {
  return {
    given: [...checked.given],
    flags: Object.entries(checked.flags),
    flagsPrototype: Object.getPrototypeOf(checked.flags),
    args: Object.entries(checked.args),
    argsPrototype: Object.getPrototypeOf(checked.args),
    argsFrozen: Object.isFrozen(checked.args),
    idempotencyKey: checked.idempotencyKey,
    dryRun: checked.dryRun,
    confirmed: checked.confirmed,
    issues: checked.issues,
  };
}

const FLAG_NAMES = [
  "text",
  "max-depth",
  "max_depth",
  "tag",
  "color",
  "target",
  "constructor",
  "__proto__",
  "toString",
  "idempotency-key",
  "dry-run",
  "confirm-destructive",
  "output",
];
const POSITIONAL_NAMES = ["target", "id", "rest", "text"];
const COLORS = ["red", "green", "blue"];

const flagArbitrary: fc.Arbitrary<FlagEntry> = fc.constantFrom<FlagType>(
  "boolean",
  "integer",
  "number",
  "enum",
  "array",
  "string",
).chain((type) => {
  const defaults: Record<FlagType, fc.Arbitrary<FlagEntry["default"]>> = {
    boolean: fc.boolean(),
    integer: fc.integer(),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }),
    enum: fc.constantFrom(...COLORS),
    array: fc.array(fc.string(), { maxLength: 2 }),
    string: fc.string(),
  };
  return fc.record({
    type: fc.constant(type),
    description: fc.constant("A flag"),
    required: fc.boolean(),
    default: fc.option(defaults[type], { nil: undefined }),
    enum_values: type === "enum" ? fc.constant(COLORS) : fc.constant(undefined),
  }).map((spec) => {
    const flag: FlagEntry = { type: spec.type, description: spec.description, required: spec.required };
    if (spec.default !== undefined) flag.default = spec.default;
    if (spec.enum_values !== undefined) flag.enum_values = spec.enum_values;
    return flag;
  });
});

const positionalArbitrary: fc.Arbitrary<PositionalEntry> = fc.record({
  name: fc.constantFrom(...POSITIONAL_NAMES),
  description: fc.constant("A positional"),
  type: fc.constantFrom("string" as const, "integer" as const, "number" as const),
  required: fc.boolean(),
});

const entryArbitrary: fc.Arbitrary<CommandEntry> = fc.record({
  flags: fc.uniqueArray(fc.tuple(fc.constantFrom(...FLAG_NAMES), flagArbitrary), {
    maxLength: 6,
    selector: ([name]) => name,
  }),
  positionals: fc.array(positionalArbitrary, { maxLength: 3 }),
  variadic: fc.boolean(),
  hasPositionals: fc.boolean(),
}).map(({ flags, positionals, variadic, hasPositionals }) => {
  const entry = { ...manifestEntry(definition), flags: {} as Record<string, FlagEntry> };
  // Defined, not assigned: a flag named `__proto__` is then an own property, as JSON.parse makes it.
  for (const [name, spec] of flags) {
    Object.defineProperty(entry.flags, name, {
      value: spec,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (!hasPositionals) delete entry.positionals;
  else {
    entry.positionals = positionals;
    if (variadic && positionals.length > 0) positionals[positionals.length - 1]!.variadic = true;
  }
  return entry;
});

const ARGUMENT_NAMES = [
  ...new Set([...FLAG_NAMES.map(argumentName), ...FLAG_NAMES, ...POSITIONAL_NAMES]),
  "nope",
  "hasOwnProperty",
  "valueOf",
];

const valueArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.constantFrom(...COLORS, "gren", "", "x".repeat(257)),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Arguments as a client's JSON text decodes: own keys only, `__proto__` among them. */
const argumentsArbitrary: fc.Arbitrary<string> = fc.uniqueArray(
  fc.tuple(fc.constantFrom(...ARGUMENT_NAMES), valueArbitrary),
  { maxLength: 6, selector: ([name]) => name },
).map((members) =>
  `{${members.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(",")}}`
);

describe("ToolArgumentPlan against sorting first, then the CLI's completion", () => {
  it("gives the same flags, positionals, given flags, framework options and issues", () => {
    const settings = propertySettings("tool_arguments", 500, (name) => process.env[name]);
    const prototypeNames = Object.getOwnPropertyNames(Object.prototype);
    fc.assert(
      fc.property(entryArbitrary, argumentsArbitrary, (entry, text) => {
        const checked = new ToolArgumentPlan(entry).check(JSON.parse(text));
        assert.deepStrictEqual(shown(checked), shown(sortThenComplete(entry, JSON.parse(text))));
        // Arrays are the handler's own: neither the caller's nor the manifest's default.
        const args = JSON.parse(text);
        for (const [flag, value] of Object.entries(checked.flags)) {
          if (!Array.isArray(value)) continue;
          assert.notEqual(value, entry.flags[flag]!.default);
          assert.notEqual(value, args[argumentName(flag)]);
        }
        assert.deepEqual(Object.getOwnPropertyNames(Object.prototype), prototypeNames);
      }),
      { seed: settings.seed, numRuns: settings.runs, path: settings.path },
    );
  });
});
