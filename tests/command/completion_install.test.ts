// The completion install lines of the README (and docs/completions.md, which shows the same block), each run
// as written in a fresh shell with an empty home directory, as on a fresh Debian machine: nothing under ~ that
// the line does not make itself. Then a new shell of the same kind is asked whether it now completes `notes`.
// `notes` is on PATH as an installed tool would be (this runtime's build of the example). zsh and fish are
// optional on a machine (apt install zsh fish): without them their lines are skipped, saying so; so is the
// new-bash check without bash-completion.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { quoteCommandLine } from "../../lib/bridge/command_line.ts";
import { finished, NOTES, ROOT, type RunResult, tempDir } from "../helpers/run.ts";

type Shell = "bash" | "zsh" | "fish";

/** What `notes mcp <TAB>` offers: the built-in `mcp` group's subcommands. */
const MCP_SUBCOMMANDS = ["install", "listen", "serve"];

/** The README's block: for each shell, the line for this shell and the line for every new one. */
function installLines(text: string): Record<Shell, string[]> {
  const at = text.indexOf("notes completions bash");
  const block = text.slice(text.lastIndexOf("```sh\n", at) + 6, text.indexOf("```", at)).trimEnd().split(
    "\n",
  );
  const lines: Record<Shell, string[]> = { bash: [], zsh: [], fish: [] };
  let shell: Shell | undefined;
  for (const line of block) {
    const header = line.match(/^# (bash|zsh|fish):/);
    if (header !== null) shell = header[1] as Shell;
    else if (shell !== undefined) lines[shell].push(line);
  }
  return lines;
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const LINES = installLines(README);

function missing(shell: string): string | false {
  const probe = spawnSync(shell, ["-c", "exit 0"], { stdio: "ignore" });
  return probe.error === undefined && probe.status === 0
    ? false
    : `${shell} is not installed here (apt install ${shell})`;
}

const BASH_COMPLETION = "/usr/share/bash-completion/bash_completion";
const NO_BASH_COMPLETION = existsSync(BASH_COMPLETION)
  ? false
  : "bash-completion is not installed here (apt install bash-completion)";

/** A fresh home, and a PATH whose first directory holds `notes`. */
function freshMachine(): { home: string; env: Record<string, string>; cleanup: () => void } {
  const dir = tempDir("toolwire-completion-home-");
  const home = join(dir.path, "home");
  const bin = join(dir.path, "bin");
  mkdirSync(home);
  mkdirSync(bin);
  writeFileSync(join(bin, "notes"), `#!/bin/sh\nexec ${quoteCommandLine(NOTES)} "$@"\n`);
  chmodSync(join(bin, "notes"), 0o755);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // Anything that would point a shell at another configuration than a new user's.
    if (value !== undefined && !/^(XDG_|ZDOTDIR$|BASH_COMPLETION|BASH_ENV$|ENV$|fish_)/.test(name)) {
      env[name] = value;
    }
  }
  Object.assign(env, { HOME: home, PATH: `${bin}:${process.env.PATH ?? ""}`, NO_COLOR: "1" });
  return { home, env, cleanup: dir.cleanup };
}

async function shell(argv: string[], env: Record<string, string>): Promise<RunResult> {
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const result = await finished(child, 60_000);
  assert.equal(result.code, 0, `${argv.join(" ")}: ${result.stderr}`);
  return result;
}

describe("the completion install lines, each in a fresh shell", () => {
  it("the README and docs/completions.md show the same lines, two per shell", () => {
    const docs = installLines(readFileSync(join(ROOT, "docs", "completions.md"), "utf8"));
    assert.deepEqual(docs, LINES);
    for (const shell of ["bash", "zsh", "fish"] as const) assert.equal(LINES[shell].length, 2, shell);
  });

  it("bash, this shell: the script is sourced and registered for notes", async () => {
    const machine = freshMachine();
    try {
      const out = await shell(
        ["bash", "--norc", "--noprofile", "-c", `${LINES.bash[0]}\ncomplete -p notes`],
        machine.env,
      );
      assert.equal(out.stdout.trim(), "complete -o default -F _notes_complete notes");
    } finally {
      machine.cleanup();
    }
  });

  it("bash, every new shell: the line makes its directory and writes the script there", async () => {
    const machine = freshMachine();
    try {
      await shell(["bash", "--norc", "--noprofile", "-c", LINES.bash[1]!], machine.env);
      const script = readFileSync(
        join(machine.home, ".local/share/bash-completion/completions/notes"),
        "utf8",
      );
      assert.match(script, /^# bash completion for notes/);
    } finally {
      machine.cleanup();
    }
  });

  it(
    "bash, every new shell: bash-completion loads the script from there",
    { skip: NO_BASH_COMPLETION },
    async () => {
      const machine = freshMachine();
      try {
        await shell(["bash", "--norc", "--noprofile", "-c", LINES.bash[1]!], machine.env);
        // What Debian's ~/.bashrc does, then what bash does at the first TAB after `notes `: call the default
        // completion (bash-completion's loader), which finds the script by the command's name.
        const probe = [
          `. ${BASH_COMPLETION}`,
          "loader=$(complete -p -D | sed -E 's/.*-F ([^ ]+).*/\\1/')",
          'COMP_WORDS=(notes ""); COMP_CWORD=1; "$loader" notes "" notes',
          "complete -p notes",
        ].join("\n");
        const out = await shell(["bash", "--norc", "--noprofile", "-c", probe], machine.env);
        assert.equal(out.stdout.trim(), "complete -o default -F _notes_complete notes");
      } finally {
        machine.cleanup();
      }
    },
  );

  it("zsh, this shell (after compinit): the script is sourced and registered for notes", {
    skip: missing("zsh"),
  }, async () => {
    const machine = freshMachine();
    try {
      const lines = ["autoload -Uz compinit && compinit", LINES.zsh[0]!, "print -r -- $_comps[notes]"];
      const out = await shell(["zsh", "-f", "-c", lines.join("\n")], machine.env);
      assert.equal(out.stdout.trim(), "_notes");
    } finally {
      machine.cleanup();
    }
  });

  it("zsh, every new shell: a new interactive zsh finds _notes on fpath and completes notes with it", {
    skip: missing("zsh"),
  }, async () => {
    const machine = freshMachine();
    try {
      await shell(["zsh", "-f", "-c", LINES.zsh[1]!], machine.env);
      assert.ok(existsSync(join(machine.home, ".zfunc", "_notes")));
      const probe = "print -r -- $_comps[notes]; autoload +X _notes && print -r -- loaded";
      const out = await shell(["zsh", "-i", "-c", probe], machine.env);
      assert.deepEqual(out.stdout.trim().split("\n").slice(-2), ["_notes", "loaded"]);
    } finally {
      machine.cleanup();
    }
  });

  it("fish, this shell: the script is sourced and completes notes", { skip: missing("fish") }, async () => {
    const machine = freshMachine();
    try {
      const out = await shell(["fish", "-c", `${LINES.fish[0]}\ncomplete -C 'notes mcp '`], machine.env);
      assert.deepEqual(out.stdout.trim().split("\n").map((line) => line.split("\t")[0]), MCP_SUBCOMMANDS);
    } finally {
      machine.cleanup();
    }
  });

  it("fish, every new shell: the line makes its directory, and a new fish completes notes", {
    skip: missing("fish"),
  }, async () => {
    const machine = freshMachine();
    try {
      await shell(["fish", "-c", LINES.fish[1]!], machine.env);
      assert.ok(existsSync(join(machine.home, ".config/fish/completions/notes.fish")));
      const out = await shell(["fish", "-c", "complete -C 'notes mcp '"], machine.env);
      assert.deepEqual(out.stdout.trim().split("\n").map((line) => line.split("\t")[0]), MCP_SUBCOMMANDS);
    } finally {
      machine.cleanup();
    }
  });
});
