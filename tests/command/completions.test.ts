// `tool completions bash|zsh|fish`: the script comes from the real `notes` binary, and is then loaded into the
// real shell and asked for completions. zsh and fish are optional on a machine: without them those tests are
// skipped, saying so.
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool } from "../../mod.ts";
import { GLOBAL_FLAGS } from "../../lib/command/contract/framework_flags.ts";
import { bashCompletion } from "../../lib/command/builtins/completions/bash_completion.ts";
import { completionModel, shellIdentifier } from "../../lib/command/builtins/completions/completion_model.ts";
import { fishCompletion } from "../../lib/command/builtins/completions/fish_completion.ts";
import { zshCompletion } from "../../lib/command/builtins/completions/zsh_completion.ts";
import { NOTES, onlyEnvelope, run, tempDir } from "../helpers/run.ts";

function shellMissing(shell: string): string | false {
  const probe = spawnSync(shell, ["-c", "exit 0"], { stdio: "ignore" });
  return probe.error === undefined && probe.status === 0 ? false : `${shell} is not installed here`;
}

const NO_ZSH = shellMissing("zsh");
const NO_FISH = shellMissing("fish");

/** The script `notes completions <shell>` prints with no --format: stdout is a pipe, yet it is the script. */
async function notesScript(shell: string): Promise<string> {
  const result = await run([...NOTES, "completions", shell]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/** Runs a shell program and returns its stdout, failing on a non-zero exit. */
async function shell(argv: string[]): Promise<string> {
  const result = await run(argv);
  assert.equal(result.code, 0, `${argv[0]} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * Calls `fn` with the path of a temporary file holding `script`. A file, not stdin: Node hands a child its
 * stdin as a socket, which `/dev/stdin` cannot open.
 */
async function withScript<T>(script: string, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  try {
    const path = join(dir.path, "completion");
    writeFileSync(path, script);
    return await fn(path);
  } finally {
    dir.cleanup();
  }
}

/** Completes each command line (words, the last one the word under the cursor) with a sourced bash script. */
async function bashComplete(scriptPath: string, fn: string, lines: string[][]): Promise<string[]> {
  const calls = lines.map((words) =>
    `COMP_WORDS=(${words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ")}); COMP_CWORD=${
      words.length - 1
    }; ` +
    `COMPREPLY=(); ${fn}; echo "\${COMPREPLY[*]}"`
  );
  const out = await shell([
    "bash",
    "--norc",
    "--noprofile",
    "-c",
    `source '${scriptPath}'\n${calls.join("\n")}`,
  ]);
  return out.split("\n").slice(0, lines.length);
}

describe("notes completions: the script on stdout", () => {
  it("with stdout a pipe and no --format the output is the bare script, so `> file` writes a loadable file", async () => {
    const script = await notesScript("bash");
    assert.match(script, /^# bash completion for notes/);
    assert.doesNotMatch(script, /^\{"ok"/m, "no envelope");
    assert.match(script, /\ncomplete -o default -F _notes_complete 'notes'\n$/);
  });

  it("--format json gives one envelope whose data.script is the same script", async () => {
    const plain = await notesScript("zsh");
    const result = await run([...NOTES, "completions", "zsh", "--format", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.ok, true);
    assert.equal(envelope.data.shell, "zsh");
    assert.equal(envelope.data.script, plain);
  });

  it("NOTES_FORMAT=json asks for the envelope too: the variable is the person's explicit choice", async () => {
    const result = await run([...NOTES, "completions", "fish"], { env: { NOTES_FORMAT: "json" } });
    assert.equal(onlyEnvelope(result.stdout).data.shell, "fish");
  });

  it("an unknown shell exits 2, stdout empty, the error on stderr; with --format json an ARG_ERROR envelope", async () => {
    const plain = await run([...NOTES, "completions", "tcsh"]);
    assert.equal(plain.code, 2);
    assert.equal(plain.stdout, "");
    assert.match(plain.stderr, /shell expects one of bash, zsh, fish, got 'tcsh'/);
    const json = await run([...NOTES, "--format", "json", "completions", "tcsh"]);
    assert.equal(json.code, 2);
    const envelope = onlyEnvelope(json.stdout);
    assert.equal(envelope.error.code, "ARG_ERROR");
    assert.equal(envelope.error.phase, "validation");
  });

  it("the manifest entry declares the contract: safe, not an MCP tool, plain by default, a shell positional", async () => {
    const result = await run([...NOTES, "completions", "--schema", "--format", "json"]);
    const entry = onlyEnvelope(result.stdout).data;
    assert.equal(entry.danger_level, "safe");
    assert.equal(entry.mcp, false);
    assert.equal(entry["x-default-format"], "plain");
    assert.equal("default_format" in entry, false, "no member outside a published vocabulary");
    assert.deepEqual(entry.positionals.map((p: { name: string }) => p.name), ["shell"]);
    assert.ok(entry.examples.length > 0);
    const help = await run([...NOTES, "completions", "--help"]);
    assert.match(help.stdout, /Prints plain text even when stdout is not a terminal/);
  });
});

describe("notes completions bash: loaded into bash", () => {
  it("completes command words, nested words, flags of `notes add`, enum values and flag values in every spelling", async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "notes.bash");
      writeFileSync(path, await notesScript("bash"));
      const [
        top,
        prefix,
        nested,
        addFlags,
        dash,
        client,
        clientPrefix,
        equals,
        splitEquals,
        format,
        afterValue,
        positional,
        afterDashDash,
      ] = await bashComplete(path, "_notes_complete", [
        ["notes", ""],
        ["notes", "a"],
        ["notes", "mcp", ""],
        ["notes", "add", "--"],
        ["notes", "list", "-"],
        ["notes", "mcp", "install", "--client", ""],
        ["notes", "mcp", "install", "--client", "c"],
        ["notes", "mcp", "install", "--client=v"],
        // bash itself splits `--client=cl` at "=" into three words
        ["notes", "mcp", "install", "--client", "=", "cl"],
        ["notes", "--format", ""],
        ["notes", "add", "--title", "x", "--b"],
        ["notes", "show", "3", ""],
        ["notes", "add", "--", ""],
      ]);
      assert.equal(top, "add completions init list lsp manifest mcp remove rm show");
      assert.equal(prefix, "add");
      assert.equal(nested, "install listen serve");
      assert.equal(
        addFlags,
        "--title --body --tag --idempotency-key --format --timeout --help --schema --version",
      );
      assert.match(dash!, /(^| )-n( |$)/, "short flags too");
      assert.match(dash!, /(^| )-h( |$)/);
      assert.equal(client, "claude-desktop claude-code vscode cursor");
      assert.equal(clientPrefix, "claude-desktop claude-code cursor");
      assert.equal(equals, "--client=vscode");
      assert.equal(splitEquals, "claude-desktop claude-code");
      assert.equal(format, "json plain");
      assert.equal(afterValue, "--body", "the value of --title is not taken for a command word");
      assert.equal(positional, "", "a positional: nothing from the script, bash falls back to file names");
      assert.equal(afterDashDash, "");
    } finally {
      dir.cleanup();
    }
  });

  it("offers an alias beside its command (`rm`, `remove`), and after the alias the command's flags", async () => {
    const [words, flags] = await withScript(
      await notesScript("bash"),
      (path) => bashComplete(path, "_notes_complete", [["notes", "r"], ["notes", "rm", "--i"]]),
    );
    assert.equal(words, "remove rm");
    assert.equal(flags, "--idempotency-key");
  });

  it("the script is registered for the program: `complete -p notes` names the function", async () => {
    const out = await withScript(
      await notesScript("bash"),
      (path) => shell(["bash", "--norc", "--noprofile", "-c", `source '${path}'; complete -p notes`]),
    );
    assert.equal(out.trim(), "complete -o default -F _notes_complete notes");
  });
});

describe("completion scripts for awkward names and values", () => {
  const tool = createTool({
    name: "my-tool",
    version: "1.0.0",
    description: "A tool with a dash in its name",
  });
  tool.command("sync.run", {
    description: "Sync: it's quick",
    aliases: ["go"],
    danger_level: "safe",
    required_scopes: [],
    flags: {
      mode: {
        type: "enum",
        enum_values: ["fast", "it's", "$(touch PWNED)", "a b", "semi;colon"],
        description: "How: 'quoted' $HOME `x`",
      },
    },
    exit_codes: { "0": { name: "SUCCESS", description: "Done", retryable: false, side_effects: "none" } },
    run: () => ({}),
  });
  const model = completionModel(tool.name, tool.registry.entries(), GLOBAL_FLAGS);

  it("identifiers are shell-safe for any name", () => {
    assert.equal(shellIdentifier("my-tool"), "my_tool");
    assert.equal(shellIdentifier("2fa.tool+x"), "_2fa_tool_x");
    assert.match(
      bashCompletion(completionModel("2fa.tool+x", {}, GLOBAL_FLAGS)),
      /^__2fa_tool_x_complete\(\) \{$/m,
    );
  });

  it("bash: aliases are offered and walk, odd enum values come back quoted and nothing in them runs", async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "my-tool.bash");
      writeFileSync(path, bashCompletion(model));
      const [words, viaAlias, values] = await bashComplete(path, "_my_tool_complete", [
        ["my-tool", "sync", ""],
        ["my-tool", "sync", "go", "--m"],
        ["my-tool", "sync", "run", "--mode", ""],
      ]);
      assert.equal(words, "go run", "an alias is offered beside its command");
      assert.equal(viaAlias, "--mode");
      assert.equal(values, "fast it\\'s \\$\\(touch\\ PWNED\\) a\\ b semi\\;colon");
      assert.equal(existsSync(join(dir.path, "PWNED")), false);
      const again = await run([
        "bash",
        "--norc",
        "--noprofile",
        "-c",
        `cd '${dir.path}' && source '${path}' && complete -p my-tool`,
      ]);
      assert.equal(again.stdout.trim(), "complete -o default -F _my_tool_complete my-tool");
      assert.equal(existsSync(join(dir.path, "PWNED")), false);
    } finally {
      dir.cleanup();
    }
  });

  it("zsh: the script parses and offers the odd values literally", { skip: NO_ZSH }, async () => {
    const out = await withScript(zshCompletion(model), async (path) => {
      await shell(["zsh", "-n", path]);
      return shell([
        "zsh",
        "-f",
        "-c",
        `${ZSH_STUBS}\nsource '${path}'\nwords=(my-tool sync run --mode ''); CURRENT=5; _my-tool`,
      ]);
    });
    assert.equal(out.trim(), "compadd: fast|it's|$(touch PWNED)|a b|semi;colon");
  });

  it("fish: the script parses and offers the odd values literally", { skip: NO_FISH }, async () => {
    const out = await withScript(fishCompletion(model), async (path) => {
      await shell(["fish", "-n", path]);
      return shell(["fish", "--no-config", "-c", `source '${path}'; complete -C 'my-tool sync go --mode '`]);
    });
    assert.deepEqual(out.trim().split("\n").map((line) => line.split("\t")[0]), [
      "$(touch PWNED)",
      "a b",
      "fast",
      "it's",
      "semi;colon",
    ]);
  });
});

// zsh's completion builtins only work inside a completion widget; these stand-ins print what they were given,
// so the script's own logic runs in a plain `zsh -c`.
const ZSH_STUBS = `compdef() { :; }
_describe() { local name=\${@[-1]}; print -r -- "describe: \${(j: :)\${(@)\${(P@)name}%%:*}}"; }
compadd() { if [[ $1 == -a ]]; then print -r -- "compadd: \${(j:|:)\${(P@)2}}"; else print -r -- "compadd: $*"; fi; }
_files() { print -r -- "files"; }
compset() { print -r -- "compset $*"; }`;

describe("notes completions zsh", { skip: NO_ZSH }, () => {
  it("parses (zsh -n), and its function completes words, flags and enum values", async () => {
    const script = await notesScript("zsh");
    assert.match(script, /^#compdef notes\n/);
    const complete = (words: string[]) =>
      `words=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _notes`;
    const out = await withScript(script, async (path) => {
      await shell(["zsh", "-n", path]);
      return shell([
        "zsh",
        "-f",
        "-c",
        [
          ZSH_STUBS,
          `source '${path}'`,
          complete(["notes", ""]),
          complete(["notes", "mcp", ""]),
          complete(["notes", "add", "-"]),
          complete(["notes", "mcp", "install", "--client", ""]),
          complete(["notes", "--format=j"]),
          complete(["notes", "show", "3", ""]),
        ].join("\n"),
      ]);
    });
    assert.deepEqual(out.trim().split("\n"), [
      "describe: add completions init list lsp manifest mcp remove rm show",
      "describe: install listen serve",
      "describe: --title --body --tag --idempotency-key --format --timeout --help -h --schema --version",
      "compadd: claude-desktop|claude-code|vscode|cursor",
      "compset -P *=",
      "compadd: json|plain",
      "files",
    ]);
  });
});

describe("notes completions fish", { skip: NO_FISH }, () => {
  it("parses (fish -n), and `complete -C` completes words, flags and enum values", async () => {
    await withScript(await notesScript("fish"), async (path) => {
      await shell(["fish", "-n", path]);
      const complete = async (line: string) => {
        const out = await shell(["fish", "--no-config", "-c", `source '${path}'; complete -C '${line}'`]);
        return out.trim().split("\n").map((entry) => entry.split("\t")[0]).join(" ");
      };
      assert.equal(await complete("notes "), "add completions init list lsp manifest mcp remove rm show");
      assert.equal(await complete("notes mcp "), "install listen serve");
      assert.equal(await complete("notes add --t"), "--tag --timeout --title");
      assert.equal(await complete("notes mcp install --client "), "claude-code claude-desktop cursor vscode");
      assert.equal(await complete("notes --format="), "--format=json --format=plain");
      assert.equal(await complete("notes add --title x --b"), "--body");
    });
  });
});
