// `tool mcp install --client …`: the real `notes` (and `toolwire`) binary changes real files in a temporary
// directory, with HOME pointing into it too, so nothing here can touch the real home. The entries written
// are then started as an MCP client would start them, and must answer `initialize` and `tools/list`.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CommandError, ExitCode } from "../../mod.ts";
import { mergeServer } from "../../lib/command/builtins/mcp_install/config_merge.ts";
import { initialize } from "../helpers/mcp_wire.ts";
import { WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, onlyEnvelope, run, type RunResult, tempDir } from "../helpers/run.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

/** Each client: the key its servers live under, and the `type` its entries carry. */
const CLIENTS = {
  "claude-desktop": { key: "mcpServers", type: undefined },
  "claude-code": { key: "mcpServers", type: "stdio" },
  vscode: { key: "servers", type: "stdio" },
  cursor: { key: "mcpServers", type: undefined },
} as const;

type Client = keyof typeof CLIENTS;

/** A temporary directory that is HOME and the working directory of every install in one test. */
interface Sandbox {
  home: string;
  cleanup(): void;
}

function sandbox(): Sandbox {
  const dir = tempDir("toolwire-install-");
  return { home: dir.path, cleanup: dir.cleanup };
}

// The variables that move a client's configuration are cleared, so the defaults under HOME are what counts.
// Deno keeps its cache under HOME unless told otherwise, and so does the toolwire binary its Node compile
// cache: they stay where they were, outside the sandbox.
function sandboxEnv(box: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: box.home,
    XDG_CONFIG_HOME: "",
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
    CLAUDE_CONFIG_DIR: "",
    APPDATA: "",
    DENO_DIR: process.env.DENO_DIR || join(homedir(), ".cache", "deno"),
    ...extra,
  };
}

async function install(
  box: Sandbox,
  args: string[],
  options: { program?: readonly string[]; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return await run([...(options.program ?? NOTES), "--format", "json", "mcp", "install", ...args], {
    env: sandboxEnv(box, options.env),
    cwd: box.home,
  });
}

function readJson(path: string): Loose {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Every file below a directory, as relative paths. */
function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) out.push(...filesBelow(path).map((inner) => join(name, inner)));
    else out.push(name);
  }
  return out.sort();
}

function backupsOf(config: string): string[] {
  const dir = join(config, "..");
  const base = config.slice(dir.length + 1);
  return readdirSync(dir).filter((name) => name.startsWith(`${base}.`) && name.endsWith(".bak"));
}

/** Starts a server the way a client would from its entry, and checks it answers initialize and tools/list. */
async function assertServerStarts(entry: Loose, cwd: string): Promise<string[]> {
  const session = new WireSession([entry.command, ...entry.args], { cwd, env: entry.env ?? {} });
  try {
    const init = await session.request(initialize(1));
    assert.ok(init.result?.serverInfo?.name, JSON.stringify(init));
    session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const list = await session.request({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    return list.result.tools.map((tool: { name: string }) => tool.name).sort();
  } finally {
    const end = await session.close();
    assert.equal(end.code, 0, end.stderr);
  }
}

const OTHER_CONFIG = (key: string): Loose => ({
  theme: "dark",
  [key]: {
    other: { command: "other-server", args: ["--port", "1"], env: { TOKEN: "secret" } },
  },
  nested: { keep: [1, 2, { deep: true }] },
});

describe("mcp install: every client, a fresh configuration", () => {
  for (const [client, shape] of Object.entries(CLIENTS)) {
    it(`${client}: creates the file with one ${shape.key} entry that starts this very tool's mcp serve`, async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "conf", `${client}.json`);
        const result = await install(box, ["--client", client, "--config", config]);
        assert.equal(result.code, 0, result.stderr);
        const data = onlyEnvelope(result.stdout).data;
        assert.equal(data.effect, "created");
        assert.equal(data.config, config);
        assert.equal(data.backup, null);
        const written = readJson(config);
        assert.deepEqual(Object.keys(written), [shape.key]);
        const entry = written[shape.key].notes;
        assert.deepEqual(entry, data.server);
        assert.equal(entry.type, shape.type);
        assert.equal(entry.command, NOTES[0], "the runtime's own executable");
        assert.deepEqual(entry.args.slice(-2), ["mcp", "serve"]);
        assert.deepEqual(
          filesBelow(box.home),
          [join("conf", `${client}.json`)],
          "no backup, no lock, no temporary file left",
        );
      } finally {
        box.cleanup();
      }
    });
  }
});

describe("mcp install: an existing configuration keeps everything else", () => {
  for (const [client, shape] of Object.entries(CLIENTS)) {
    it(`${client}: other servers and keys survive, in their order, and a byte-exact backup is kept`, async () => {
      const box = sandbox();
      try {
        const config = join(box.home, `${client}.json`);
        const original = `${JSON.stringify(OTHER_CONFIG(shape.key), null, 2)}\n`;
        writeFileSync(config, original);
        const result = await install(box, ["--client", client, "--config", config]);
        assert.equal(result.code, 0, result.stderr);
        const data = onlyEnvelope(result.stdout).data;
        assert.equal(data.effect, "created");
        const written = readJson(config);
        assert.deepEqual(Object.keys(written), ["theme", shape.key, "nested"]);
        assert.deepEqual(written.nested, OTHER_CONFIG(shape.key).nested);
        assert.equal(written.theme, "dark");
        assert.deepEqual(Object.keys(written[shape.key]), ["other", "notes"]);
        assert.deepEqual(written[shape.key].other, OTHER_CONFIG(shape.key)[shape.key].other);
        const backups = backupsOf(config);
        assert.equal(backups.length, 1);
        assert.equal(data.backup, join(box.home, backups[0]!));
        assert.equal(readFileSync(data.backup, "utf8"), original);
      } finally {
        box.cleanup();
      }
    });
  }

  it("indentation, CRLF line ends, a BOM and keys like __proto__ are kept as they were", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "mcp.json");
      writeFileSync(config, '\uFEFF{\r\n\t"__proto__": {"polluted": true},\r\n\t"mcpServers": {}\r\n}\r\n');
      const result = await install(box, ["--client", "cursor", "--config", config]);
      assert.equal(result.code, 0, result.stderr);
      const text = readFileSync(config, "utf8");
      assert.ok(
        text.startsWith(
          '\uFEFF{\r\n\t"__proto__": {\r\n\t\t"polluted": true\r\n\t},\r\n\t"mcpServers": {\r\n\t\t"notes": {',
        ),
        text,
      );
      assert.ok(text.endsWith("}\r\n"));
    } finally {
      box.cleanup();
    }
  });

  it("the file keeps its permissions (0644 stays 0644); a new one is 0600", {
    skip: process.platform === "win32" ? "POSIX modes" : false,
  }, async () => {
    const box = sandbox();
    try {
      const shared = join(box.home, "shared.json");
      writeFileSync(shared, "{}\n");
      chmodSync(shared, 0o644);
      assert.equal((await install(box, ["--client", "cursor", "--config", shared])).code, 0);
      assert.equal(statSync(shared).mode & 0o777, 0o644);
      const fresh = join(box.home, "fresh.json");
      assert.equal((await install(box, ["--client", "cursor", "--config", fresh])).code, 0);
      assert.equal(statSync(fresh).mode & 0o777, 0o600);
    } finally {
      box.cleanup();
    }
  });

  it(
    "a symlinked configuration stays a symlink: the file it points to is changed, the backup kept beside that file",
    { skip: process.platform === "win32" ? "symlinks need privileges" : false },
    async () => {
      const box = sandbox();
      try {
        mkdirSync(join(box.home, "dotfiles"));
        const real = join(box.home, "dotfiles", "claude.json");
        writeFileSync(real, '{"theme": "dark"}\n');
        const link = join(box.home, ".claude.json");
        symlinkSync(real, link);
        const result = await install(box, ["--client", "claude-code"]);
        assert.equal(result.code, 0, result.stderr);
        assert.ok(lstatSync(link).isSymbolicLink());
        assert.equal(readJson(real).mcpServers.notes.type, "stdio");
        assert.equal(backupsOf(real).length, 1);
      } finally {
        box.cleanup();
      }
    },
  );
});

describe("mcp install: --dry-run and --print change nothing", () => {
  for (const [client, shape] of Object.entries(CLIENTS)) {
    it(`${client}: --dry-run on an existing file gives would_create and the entry it would add, and writes not a byte`, async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "config.json");
        const original = JSON.stringify(OTHER_CONFIG(shape.key));
        writeFileSync(config, original);
        const result = await install(box, ["--client", client, "--config", config, "--dry-run"]);
        assert.equal(result.code, 0, result.stderr);
        const data = onlyEnvelope(result.stdout).data;
        assert.equal(data.effect, "would_create");
        assert.equal(data.would_affect.servers_key, shape.key);
        assert.equal(data.would_affect.before, null);
        assert.deepEqual(data.would_affect.after, data.server);
        assert.equal(data.would_affect.keeps_backup, true);
        assert.equal(readFileSync(config, "utf8"), original);
        assert.deepEqual(filesBelow(box.home), ["config.json"]);
      } finally {
        box.cleanup();
      }
    });
  }

  it("--dry-run against the default location creates neither the file nor its directory", async () => {
    const box = sandbox();
    try {
      const result = await install(box, ["--client", "cursor", "--dry-run"]);
      assert.equal(result.code, 0, result.stderr);
      const data = onlyEnvelope(result.stdout).data;
      assert.equal(data.effect, "would_create");
      assert.equal(data.would_affect.creates_file, true);
      assert.deepEqual(filesBelow(box.home), []);
    } finally {
      box.cleanup();
    }
  });

  it("--dry-run of a replacement shows before and after; a plain rendering says what would change", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "c.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: "old" } } }));
      const json = await install(box, ["--client", "cursor", "--config", config, "--dry-run", "--force"]);
      const data = onlyEnvelope(json.stdout).data;
      assert.equal(data.effect, "would_update");
      assert.deepEqual(data.would_affect.before, { command: "old" });
      const plain = await run([
        ...NOTES,
        "--format",
        "plain",
        "mcp",
        "install",
        "--client",
        "cursor",
        "--config",
        config,
        "--dry-run",
        "--force",
      ], {
        env: sandboxEnv(box),
      });
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(
        plain.stdout,
        /^would replace MCP server 'notes' in .*c\.json:\nbefore: \{\n {2}"command": "old"\n\}\nafter: \{/,
      );
      assert.deepEqual(readJson(config), { mcpServers: { notes: { command: "old" } } });
    } finally {
      box.cleanup();
    }
  });

  it("--print prints the snippet for the client and reads or writes no file", async () => {
    const box = sandbox();
    try {
      for (const [client, shape] of Object.entries(CLIENTS)) {
        const result = await run([
          ...NOTES,
          "--format",
          "plain",
          "mcp",
          "install",
          "--client",
          client,
          "--print",
          "--env",
          "NOTES_HOME=/srv/notes",
        ], {
          env: sandboxEnv(box),
          cwd: box.home,
        });
        assert.equal(result.code, 0, result.stderr);
        const snippet = JSON.parse(result.stdout);
        assert.deepEqual(Object.keys(snippet), [shape.key]);
        assert.deepEqual(snippet[shape.key].notes.env, { NOTES_HOME: "/srv/notes" });
        assert.equal(snippet[shape.key].notes.type, shape.type);
      }
      assert.deepEqual(filesBelow(box.home), []);
    } finally {
      box.cleanup();
    }
  });
});

describe("mcp install: refusals leave the file as it was", () => {
  const broken: Array<[string, string]> = [
    ["a trailing comma", '{"mcpServers": {},}'],
    ["a comment (VS Code's JSONC)", '// servers\n{"servers": {}}'],
    ["an array at the top", "[]"],
    ["truncated JSON", '{"mcpServers": {"a": '],
    ["servers that are not an object", '{"mcpServers": ["x"], "servers": ["x"]}'],
  ];
  for (const [what, text] of broken) {
    it(`${what}: exit 4 PRECONDITION naming the file; untouched, no backup, no lock left`, async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "mcp.json");
        writeFileSync(config, text);
        for (const client of Object.keys(CLIENTS)) {
          const result = await install(box, ["--client", client, "--config", config]);
          assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
          const envelope = onlyEnvelope(result.stdout);
          assert.equal(envelope.error.code, "PRECONDITION");
          assert.ok(envelope.error.message.includes(config), envelope.error.message);
          assert.match(envelope.error.message, /left as it is/);
        }
        assert.equal(readFileSync(config, "utf8"), text);
        assert.deepEqual(filesBelow(box.home), ["mcp.json"]);
      } finally {
        box.cleanup();
      }
    });
  }

  for (const [client, shape] of Object.entries(CLIENTS)) {
    it(`${client}: a server of the same name with another entry is exit 6 CONFLICT, untouched; --force replaces it and keeps a backup`, async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "config.json");
        const original = JSON.stringify({
          [shape.key]: { notes: { command: "old", args: [] }, other: { command: "x" } },
        });
        writeFileSync(config, original);
        const refused = await install(box, ["--client", client, "--config", config]);
        assert.equal(refused.code, ExitCode.CONFLICT);
        const error = onlyEnvelope(refused.stdout).error;
        assert.equal(error.code, "SERVER_EXISTS");
        assert.match(error.suggestion, /--force/);
        assert.deepEqual(error.existing, { command: "old", args: [] });
        assert.equal(readFileSync(config, "utf8"), original);
        assert.deepEqual(backupsOf(config), []);

        const forced = await install(box, ["--client", client, "--config", config, "--force"]);
        assert.equal(forced.code, 0, forced.stderr);
        const data = onlyEnvelope(forced.stdout).data;
        assert.equal(data.effect, "updated");
        assert.equal(readFileSync(data.backup, "utf8"), original);
        const written = readJson(config);
        assert.deepEqual(written[shape.key].other, { command: "x" });
        assert.deepEqual(written[shape.key].notes, data.server);
      } finally {
        box.cleanup();
      }
    });
  }

  it("the same entry again is a noop: no write, no backup", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "c.json");
      assert.equal((await install(box, ["--client", "vscode", "--config", config])).code, 0);
      const before = readFileSync(config, "utf8");
      const again = await install(box, ["--client", "vscode", "--config", config]);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(onlyEnvelope(again.stdout).data.effect, "noop");
      assert.equal(readFileSync(config, "utf8"), before);
      assert.deepEqual(filesBelow(box.home), ["c.json"]);
    } finally {
      box.cleanup();
    }
  });

  it("bad input is an ARG_ERROR before anything is read: --env, --name, --print with --dry-run, a scope the client lacks", async () => {
    const box = sandbox();
    try {
      const cases: Array<[string[], RegExp]> = [
        [["--client", "cursor", "--env", "NOVALUE"], /--env expects KEY=VALUE/],
        [["--client", "cursor", "--env", "1X=y"], /--env expects KEY=VALUE/],
        [["--client", "cursor", "--env", "A=1", "--env", "A=2"], /--env sets A twice/],
        [["--client", "cursor", "--name", "a b"], /--name expects/],
        [["--client", "cursor", "--name", "__proto__"], /--name expects/],
        [["--client", "cursor", "--print", "--dry-run"], /do not combine/],
        [["--client", "claude-desktop", "--scope", "project"], /has no project configuration/],
        [["--client", "zed"], /--client expects one of/],
        [[], /--client is required/],
      ];
      for (const [args, message] of cases) {
        const result = await install(box, args);
        assert.equal(result.code, ExitCode.ARG_ERROR, args.join(" "));
        assert.match(onlyEnvelope(result.stdout).error.message, message);
      }
      assert.deepEqual(filesBelow(box.home), []);
    } finally {
      box.cleanup();
    }
  });

  it("a configuration in a read-only directory: exit 7 PERMISSION_DENIED, untouched", {
    skip: process.platform === "win32" || process.getuid?.() === 0
      ? "needs POSIX permissions that bind (not root)"
      : false,
  }, async () => {
    const box = sandbox();
    const dir = join(box.home, "locked");
    try {
      mkdirSync(dir);
      const config = join(dir, "mcp.json");
      writeFileSync(config, "{}");
      chmodSync(dir, 0o500);
      const result = await install(box, ["--client", "cursor", "--config", config]);
      assert.equal(result.code, ExitCode.PERMISSION_DENIED, result.stdout);
      assert.equal(readFileSync(config, "utf8"), "{}");
    } finally {
      chmodSync(dir, 0o700);
      box.cleanup();
    }
  });
});

describe("mcp install: where each client keeps its configuration", {
  skip: process.platform !== "linux" ? "the Linux locations" : false,
}, () => {
  const cases: Array<[Client, string[], string, Record<string, string>?]> = [
    ["claude-desktop", [], ".config/Claude/claude_desktop_config.json"],
    ["claude-desktop", [], "xdg/Claude/claude_desktop_config.json", { XDG_CONFIG_HOME: "@HOME/xdg" }],
    ["claude-code", [], ".claude.json"],
    ["claude-code", [], "claude-dir/.claude.json", { CLAUDE_CONFIG_DIR: "@HOME/claude-dir" }],
    ["claude-code", ["--scope", "project"], ".mcp.json"],
    ["vscode", [], ".vscode/mcp.json"],
    ["vscode", ["--scope", "user"], ".config/Code/User/mcp.json"],
    ["cursor", [], ".cursor/mcp.json"],
  ];
  for (const [client, args, relative, env] of cases) {
    it(`${client} ${args.join(" ")} ${env ? Object.keys(env).join(" ") : ""}→ ~/${relative}`, async () => {
      const box = sandbox();
      try {
        const extra = Object.fromEntries(
          Object.entries(env ?? {}).map(([key, value]) => [key, value.replace("@HOME", box.home)]),
        );
        const result = await install(box, ["--client", client, ...args], { env: extra });
        assert.equal(result.code, 0, result.stderr);
        const path = join(box.home, relative);
        assert.equal(onlyEnvelope(result.stdout).data.config, path);
        assert.ok(existsSync(path), `${path} exists`);
      } finally {
        box.cleanup();
      }
    });
  }
});

describe("mcp install: the written entry starts a working server", () => {
  it("notes: the entry (with --env) answers initialize and tools/list, offering the commands and not itself", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "c.json");
      const notesHome = join(box.home, "notes-home");
      const result = await install(box, [
        "--client",
        "claude-desktop",
        "--config",
        config,
        "--env",
        `NOTES_HOME=${notesHome}`,
        "--read-only",
      ]);
      assert.equal(result.code, 0, result.stderr);
      const entry = readJson(config).mcpServers.notes;
      assert.deepEqual(entry.env, { NOTES_HOME: notesHome });
      assert.deepEqual(entry.args.slice(-3), ["mcp", "serve", "--read-only"]);
      const tools = await assertServerStarts(entry, box.home);
      assert.deepEqual(
        tools,
        ["list", "manifest", "show"],
        "read-only: the safe commands, never completions or mcp install",
      );
    } finally {
      box.cleanup();
    }
  });

  it("toolwire --exec: registers `toolwire mcp serve --exec` with an absolute --cwd; the entry serves the CLI's commands", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, ".vscode", "mcp.json");
      const result = await install(box, ["--client", "vscode", "--exec", execLine(NOTES)], {
        program: TOOLWIRE,
      });
      assert.equal(result.code, 0, result.stderr);
      const data = onlyEnvelope(result.stdout).data;
      assert.equal(data.name, "notes", "named after the tool the CLI's manifest describes");
      const entry = readJson(config).servers.notes;
      assert.equal(entry.type, "stdio");
      assert.deepEqual(entry.args.slice(-6), ["mcp", "serve", "--exec", execLine(NOTES), "--cwd", box.home]);
      const tools = await assertServerStarts(entry, join(box.home, ".vscode"));
      assert.ok(tools.includes("add") && tools.includes("remove"), tools.join(" "));
      assert.equal(tools.includes("mcp_install"), false);
    } finally {
      box.cleanup();
    }
  });

  it("toolwire --exec refuses a CLI that cannot start (5) or prints no manifest (4), and --cwd without --exec (2)", async () => {
    const box = sandbox();
    try {
      const missing = await install(box, ["--client", "cursor", "--exec", "no-such-program-here"], {
        program: TOOLWIRE,
      });
      assert.equal(missing.code, ExitCode.NOT_FOUND, missing.stdout);
      const silent = await install(box, [
        "--client",
        "cursor",
        "--exec",
        execLine([process.execPath, "-e", ""]),
      ], { program: TOOLWIRE });
      assert.equal(silent.code, ExitCode.PRECONDITION, silent.stdout);
      const stray = await install(box, ["--client", "cursor", "--cwd", "."], { program: TOOLWIRE });
      assert.equal(stray.code, ExitCode.ARG_ERROR, stray.stdout);
      assert.deepEqual(filesBelow(box.home), []);
    } finally {
      box.cleanup();
    }
  });
});

describe("mcp install: several writers", () => {
  it("four installs at once into one file: every server is there, the file is valid JSON", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "shared.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { other: { command: "x" } } }));
      const names = ["one", "two", "three", "four"];
      const results = await Promise.all(
        names.map((name) => install(box, ["--client", "cursor", "--config", config, "--name", name])),
      );
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(Object.keys(readJson(config).mcpServers).sort(), [
        "four",
        "one",
        "other",
        "three",
        "two",
      ]);
      assert.equal(backupsOf(config).length, 4, "each writer kept its own backup");
      assert.equal(existsSync(`${config}.lock`), false);
    } finally {
      box.cleanup();
    }
  });

  it("a lock left by a writer that died (older than 10 s) is taken over", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "c.json");
      mkdirSync(`${config}.lock`);
      const past = new Date(Date.now() - 60_000);
      utimesSync(`${config}.lock`, past, past);
      const result = await install(box, ["--client", "cursor", "--config", config]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(existsSync(`${config}.lock`), false);
    } finally {
      box.cleanup();
    }
  });
});

describe("mcp install: its contract", () => {
  it("the manifest entry: mutating, not an MCP tool, --dry-run and --idempotency-key, every client, codes 4 6 7 12", async () => {
    const result = await run([...NOTES, "--format", "json", "mcp", "install", "--schema"]);
    const entry = onlyEnvelope(result.stdout).data;
    assert.equal(entry.danger_level, "mutating");
    assert.equal(entry.mcp, false);
    assert.equal(entry.supports_dry_run, true);
    assert.ok(
      entry.flags["dry-run"] && entry.flags["idempotency-key"] && entry.flags.force && entry.flags.print,
    );
    assert.deepEqual(entry.flags.client.enum_values, Object.keys(CLIENTS));
    for (const code of ["0", "2", "4", "6", "7", "12"]) assert.ok(entry.exit_codes[code], code);
    assert.match(entry.exit_codes["6"].description, /--force/);
  });
});

describe("mergeServer (in-process)", () => {
  const request = {
    path: "c.json",
    serversKey: "mcpServers",
    name: "notes",
    entry: { command: "node" },
    force: false,
  };

  it("a missing or blank file counts as {}; a new file ends with a newline", () => {
    for (const original of [undefined, "", "  \n"]) {
      const merge = mergeServer(original, request);
      assert.equal(merge.change, "create");
      assert.equal(
        merge.text,
        '{\n  "mcpServers": {\n    "notes": {\n      "command": "node"\n    }\n  }\n}\n',
      );
    }
  });

  it("four-space indentation and a missing final newline are kept", () => {
    const merge = mergeServer('{\n    "a": 1\n}', request);
    assert.equal(
      merge.text,
      '{\n    "a": 1,\n    "mcpServers": {\n        "notes": {\n            "command": "node"\n        }\n    }\n}',
    );
  });

  it("a file nested deeper than the stack is refused with PRECONDITION, not a crash", () => {
    const deep = `{"a": ${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
    let caught: unknown;
    try {
      mergeServer(deep, request);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof CommandError, String(caught));
    assert.equal(caught.exitCode, ExitCode.PRECONDITION);
  });
});
