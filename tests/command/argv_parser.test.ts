// Unit tests of parseArgv over a small command lookup built by a real CommandRegistry: every flag form, `--`,
// global flags anywhere, nested paths and aliases, and the problems it collects instead of throwing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CommandRegistry } from "../../lib/command/contract/registry.ts";
import { parseArgv, type ParsedArgv } from "../../lib/command/cli/argv_parser.ts";
import { asDefinition, type Declaration } from "../helpers/declarations.ts";

const SUCCESS = { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "none" } };

function command(changes: Declaration): Declaration {
  return {
    description: "A command",
    danger_level: "safe",
    required_scopes: [],
    exit_codes: SUCCESS,
    run: () => null,
    ...changes,
  };
}

const registry = new CommandRegistry();
registry.register(
  "list",
  asDefinition(command({
    flags: {
      limit: { type: "integer", short: "n", description: "At most N" },
      tag: { type: "array", short: "t", description: "A tag; repeatable" },
      verbose: { type: "boolean", short: "v", description: "More detail" },
      all: { type: "boolean", short: "a", description: "Include archived" },
      name: { type: "string", description: "Only this name" },
      color: { type: "enum", enum_values: ["red", "green", "blue"], description: "Only this color" },
      ratio: { type: "number", description: "A ratio" },
    },
    positionals: [{ name: "shelf", description: "Which shelf", required: false }],
  })),
);
registry.register(
  "show",
  asDefinition(command({ positionals: [{ name: "id", type: "integer", description: "The id" }] })),
);
registry.register(
  "notes.add",
  asDefinition(command({
    danger_level: "mutating",
    aliases: ["new"],
    flags: { title: { type: "string", required: true, description: "The title" } },
  })),
);
registry.register(
  "notes.remove",
  asDefinition(command({
    danger_level: "destructive",
    aliases: ["rm"],
    positionals: [{ name: "id", type: "integer", description: "The id" }],
  })),
);
registry.register(
  "remote.branch.delete",
  asDefinition(command({
    positionals: [{ name: "branch", description: "The branch" }],
  })),
);
registry.register(
  "serve",
  asDefinition(command({
    stdout: "protocol",
    protocol: "line-echo",
    run: undefined,
    serve: () => () => Promise.resolve(),
  })),
);
const commands = registry.commandLookup();

function parse(...argv: string[]): ParsedArgv {
  return parseArgv(argv, commands);
}

/** Parses and asserts there were no issues. */
function parseClean(...argv: string[]): ParsedArgv {
  const parsed = parse(...argv);
  assert.deepEqual(parsed.issues, [], `no issues expected for ${argv.join(" ")}`);
  return parsed;
}

function given(parsed: ParsedArgv): Record<string, unknown> {
  return Object.fromEntries(parsed.given);
}

function messages(parsed: ParsedArgv): string[] {
  return parsed.issues.map((issue) => issue.message);
}

describe("parseArgv: long flags", () => {
  it("--a=b", () => {
    const parsed = parseClean("list", "--limit=5");
    assert.equal(parsed.path, "list");
    assert.deepEqual(given(parsed), { limit: 5 });
  });

  it("--a b", () => {
    assert.deepEqual(given(parseClean("list", "--limit", "5", "--name", "x")), { limit: 5, name: "x" });
  });

  it("--a=b keeps everything after the first =, and an empty inline value", () => {
    assert.deepEqual(given(parseClean("list", "--name=a=b")), { name: "a=b" });
    assert.deepEqual(given(parseClean("list", "--name=")), { name: "" });
  });

  it("a boolean flag alone is true; --flag=true|false sets it explicitly", () => {
    assert.deepEqual(given(parseClean("list", "--verbose")), { verbose: true });
    assert.deepEqual(given(parseClean("list", "--verbose=false")), { verbose: false });
  });

  it("a boolean flag does not take the next word as its value", () => {
    const parsed = parseClean("list", "--verbose", "top");
    assert.deepEqual(given(parsed), { verbose: true });
    assert.deepEqual(parsed.positionals, ["top"]);
  });

  it("--no-a sets a boolean false", () => {
    assert.deepEqual(given(parseClean("list", "--no-verbose")), { verbose: false });
  });

  it("--no-a takes no value", () => {
    assert.deepEqual(messages(parse("list", "--no-verbose=true")), [
      "--no-verbose takes no value, got 'true'",
    ]);
  });

  it("--no-a of a flag that is not boolean is unknown", () => {
    assert.deepEqual(messages(parse("list", "--no-limit")), ["unknown flag --no-limit"]);
  });

  it("values are coerced to the declared type, with the exact message when they do not fit", () => {
    assert.deepEqual(given(parseClean("list", "--ratio", "2.5", "--color", "green")), {
      ratio: 2.5,
      color: "green",
    });
    assert.deepEqual(messages(parse("list", "--limit", "abc", "--verbose=maybe", "--color", "gren")), [
      "--limit expects an integer, got 'abc'",
      "--verbose expects a boolean, got 'maybe'",
      "--color expects one of red, green, blue, got 'gren'",
    ]);
  });

  it("an integer beyond ±(2^53 - 1) is refused naming the range: it would lose digits", () => {
    assert.deepEqual(given(parseClean("list", "--limit", "9007199254740991")), { limit: 9007199254740991 });
    assert.deepEqual(given(parseClean("list", "--limit", "-9007199254740991")), { limit: -9007199254740991 });
    for (const text of ["9007199254740992", "-9007199254740993"]) {
      assert.deepEqual(messages(parse("list", "--limit", text)), [
        `--limit expects an integer from -(2^53 - 1) to 2^53 - 1, got '${text}'`,
      ]);
    }
    const [long] = messages(parse("list", "--limit", "1" + "0".repeat(400)));
    assert.match(long!, /^--limit expects an integer from -\(2\^53 - 1\) to 2\^53 - 1, got '10{56}\.\.\.'$/);
  });
});

describe("parseArgv: short flags", () => {
  it("-n 5, -n5 and -n=5", () => {
    for (const argv of [["-n", "5"], ["-n5"], ["-n=5"]]) {
      assert.deepEqual(given(parseClean("list", ...argv)), { limit: 5 }, argv.join(" "));
    }
  });

  it("a cluster of booleans sets each", () => {
    assert.deepEqual(given(parseClean("list", "-va")), { verbose: true, all: true });
  });

  it("a value flag ends a cluster and takes the rest, or the next word", () => {
    assert.deepEqual(given(parseClean("list", "-van7")), { verbose: true, all: true, limit: 7 });
    assert.deepEqual(given(parseClean("list", "-vn", "7")), { verbose: true, limit: 7 });
  });

  it("an unknown letter in a cluster is reported, the letters before it still count", () => {
    const parsed = parse("list", "-vx");
    assert.deepEqual(given(parsed), { verbose: true });
    assert.deepEqual(messages(parsed), ["unknown flag -x"]);
  });
});

describe("parseArgv: negative numbers, - and --", () => {
  it("a negative number is a value, not a flag", () => {
    assert.deepEqual(given(parseClean("list", "--limit", "-5")), { limit: -5 });
    assert.deepEqual(given(parseClean("list", "-n", "-5")), { limit: -5 });
    assert.deepEqual(given(parseClean("list", "--limit=-5")), { limit: -5 });
    assert.deepEqual(given(parseClean("list", "--ratio", "-0.5")), { ratio: -0.5 });
  });

  it("a negative number is a positional, not a flag", () => {
    const parsed = parseClean("show", "-3");
    assert.equal(parsed.path, "show");
    assert.deepEqual(parsed.positionals, ["-3"]);
  });

  it("a lone - is a positional (stdin by convention)", () => {
    assert.deepEqual(parseClean("list", "-").positionals, ["-"]);
  });

  it("-- ends the flags: everything after it is positional", () => {
    const parsed = parseClean("list", "--verbose", "--", "--limit", "5", "-v");
    assert.deepEqual(given(parsed), { verbose: true });
    assert.deepEqual(parsed.positionals, ["--limit", "5", "-v"]);
  });

  it("-- right after the command words ends them", () => {
    const parsed = parseClean("notes", "rm", "--", "7");
    assert.equal(parsed.path, "notes.remove");
    assert.deepEqual(parsed.positionals, ["7"]);
  });
});

describe("parseArgv: repeats and missing values", () => {
  it("an array flag collects every repeat, in order, in every form", () => {
    assert.deepEqual(given(parseClean("list", "--tag", "a", "--tag=b", "-t", "c", "-td")), {
      tag: ["a", "b", "c", "d"],
    });
  });

  it("a non-array flag given twice is an issue", () => {
    assert.deepEqual(messages(parse("list", "--limit", "1", "-n", "2")), [
      "--limit was given more than once",
    ]);
  });

  it("a value flag at the end without a value says what to pass", () => {
    assert.deepEqual(parse("list", "--limit").issues, [
      { field: "--limit", message: "--limit expects a value", suggestion: "pass --limit=<integer>" },
    ]);
    assert.deepEqual(parse("list", "--color").issues, [
      { field: "--color", message: "--color expects a value", suggestion: "pass --color=<red|green|blue>" },
    ]);
  });

  it("a short value flag at the end without a value, alone or ending a cluster", () => {
    assert.deepEqual(messages(parse("list", "-n")), ["-n expects a value"]);
    const parsed = parse("list", "-vn");
    assert.deepEqual(given(parsed), { verbose: true });
    assert.deepEqual(messages(parsed), ["-n expects a value"]);
  });

  it("a value flag followed by another flag has no value; the other flag still counts", () => {
    const parsed = parse("list", "--name", "--verbose");
    assert.deepEqual(messages(parsed), ["--name expects a value"]);
    assert.deepEqual(given(parsed), { verbose: true });
  });
});

describe("parseArgv: unknown flags", () => {
  it("an unknown flag names the closest known flag", () => {
    assert.deepEqual(parse("list", "--limt", "5").issues[0], {
      field: "--limt",
      message: "unknown flag --limt",
      suggestion: "did you mean --limit?",
    });
  });

  it("an unknown flag far from every known flag has no suggestion", () => {
    assert.deepEqual(parse("list", "--zzzzzzzz").issues, [{
      field: "--zzzzzzzz",
      message: "unknown flag --zzzzzzzz",
    }]);
  });

  it("every problem is collected, not just the first", () => {
    assert.deepEqual(messages(parse("list", "--bogus", "--limit", "x", "--name")), [
      "unknown flag --bogus",
      "--limit expects an integer, got 'x'",
      "--name expects a value",
    ]);
  });

  it("a safe command does not take the destructive framework flags; a destructive one does", () => {
    assert.deepEqual(messages(parse("list", "--dry-run")), ["unknown flag --dry-run"]);
    const parsed = parseClean(
      "notes",
      "rm",
      "7",
      "--dry-run",
      "--confirm-destructive",
      "--idempotency-key",
      "k",
    );
    assert.deepEqual(given(parsed), { "dry-run": true, "confirm-destructive": true, "idempotency-key": "k" });
  });

  it("a protocol command refuses the per-invocation framework flags with the reason", () => {
    for (const flag of ["--dry-run", "--idempotency-key", "--confirm-destructive", "--output"]) {
      const [issue] = parse("serve", flag).issues;
      assert.equal(issue?.field, flag);
      assert.match(
        issue?.message ?? "",
        new RegExp(`^serve does not accept ${flag}: it is a protocol server`),
      );
    }
  });
});

describe("parseArgv: global flags", () => {
  it("before the command words", () => {
    const parsed = parseClean("--format", "json", "--timeout", "5", "notes", "add", "--title", "x");
    assert.equal(parsed.path, "notes.add");
    assert.deepEqual(given(parsed), { format: "json", timeout: 5, title: "x" });
  });

  it("after the command words and the command's flags", () => {
    const parsed = parseClean("notes", "add", "--title", "x", "--format=json", "--timeout", "0.5");
    assert.equal(parsed.path, "notes.add");
    assert.deepEqual(given(parsed), { title: "x", format: "json", timeout: 0.5 });
  });

  it("between the command words", () => {
    const parsed = parseClean("notes", "--format", "json", "add", "--title", "x");
    assert.equal(parsed.path, "notes.add");
    assert.deepEqual(parsed.words, ["notes", "add"]);
    assert.deepEqual(given(parsed), { format: "json", title: "x" });
    const deep = parseClean("remote", "-h", "branch", "--timeout=1", "delete", "topic");
    assert.equal(deep.path, "remote.branch.delete");
    assert.deepEqual(given(deep), { help: true, timeout: 1 });
    assert.deepEqual(deep.positionals, ["topic"]);
  });

  it("a cluster mixing a global letter with the command's letters is read against the command's flags", () => {
    assert.deepEqual(given(parseClean("list", "-hv")), { help: true, verbose: true });
    assert.deepEqual(given(parseClean("list", "-hn", "3")), { help: true, limit: 3 });
  });

  it("a bad global flag value is an issue like any other", () => {
    assert.deepEqual(messages(parse("--format", "yaml", "list")), [
      "--format expects one of json, plain, got 'yaml'",
    ]);
  });

  it("no argv at all: no command, no issue (dispatch asks for one)", () => {
    const parsed = parseClean();
    assert.equal(parsed.path, undefined);
    assert.deepEqual(parsed.words, []);
  });

  it("global flags alone: no command, the flags are read", () => {
    const parsed = parseClean("--version", "--format", "plain");
    assert.equal(parsed.path, undefined);
    assert.deepEqual(given(parsed), { version: true, format: "plain" });
  });
});

describe("parseArgv: command words", () => {
  it("a nested path resolves from its words", () => {
    const parsed = parseClean("remote", "branch", "delete", "topic");
    assert.equal(parsed.path, "remote.branch.delete");
    assert.deepEqual(parsed.words, ["remote", "branch", "delete"]);
    assert.deepEqual(parsed.positionals, ["topic"]);
  });

  it("an alias replaces the last word and resolves to the canonical path", () => {
    const parsed = parseClean("notes", "rm", "7");
    assert.equal(parsed.path, "notes.remove");
    assert.deepEqual(parsed.words, ["notes", "rm"]);
    assert.deepEqual(parsed.positionals, ["7"]);
    assert.equal(parseClean("notes", "new", "--title", "x").path, "notes.add");
  });

  it("a command's positional that equals a command word stays a positional", () => {
    const parsed = parseClean("list", "notes");
    assert.equal(parsed.path, "list");
    assert.deepEqual(parsed.positionals, ["notes"]);
  });

  it("an unknown command is an issue naming the closest command", () => {
    const parsed = parse("lst");
    assert.equal(parsed.path, undefined);
    assert.deepEqual(parsed.issues[0], {
      field: "lst",
      message: "unknown command 'lst'",
      suggestion: "did you mean 'list'?",
    });
    assert.deepEqual(parsed.positionals, []);
  });

  it("an unknown command far from every command has no suggestion", () => {
    assert.deepEqual(parse("zzzzzzzz").issues, [{
      field: "zzzzzzzz",
      message: "unknown command 'zzzzzzzz'",
    }]);
  });

  it("group words without a subcommand name no command and raise no parse issue (dispatch lists the subcommands)", () => {
    const cases: Array<[argv: string[], words: string[]]> = [
      [["notes"], ["notes"]],
      [["remote", "branch"], ["remote", "branch"]],
      [["notes", "--format", "json"], ["notes"]],
    ];
    for (const [argv, words] of cases) {
      const parsed = parseClean(...argv);
      assert.equal(parsed.path, undefined, argv.join(" "));
      assert.deepEqual(parsed.words, words);
      assert.deepEqual(parsed.positionals, []);
    }
  });

  it("a group followed by an unknown word keeps the group words and the word as a positional", () => {
    const parsed = parseClean("notes", "ad");
    assert.equal(parsed.path, undefined);
    assert.deepEqual(parsed.words, ["notes"]);
    assert.deepEqual(parsed.positionals, ["ad"]);
  });
});
