// A project configuration (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) is checked in and read by a
// whole team: `mcp install --scope project` creates it readable (0644, as the umask allows), writes paths
// inside the project in the form the client resolves against the project, and names the runtime when PATH
// finds it. The entries are then started the way each client starts them.
import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { initialize, WireSession } from "../helpers/mcp_wire.ts";
import { install, readJson, sandbox } from "../helpers/install.ts";
import { type Loose, NOTES, onlyEnvelope, ROOT } from "../helpers/run.ts";

const POSIX = process.platform !== "win32";
// Where the example's entry script is, relative to the repository: the project of these tests.
const SCRIPT = NOTES.find((arg) => arg.includes(join("examples", "notes")))!;
const SCRIPT_IN_PROJECT = SCRIPT.slice(ROOT.length);

/** Starts a server from its entry in `cwd` and returns the names of its tools. */
async function toolsOf(entry: Loose, cwd: string): Promise<string[]> {
  const session = new WireSession([entry.command, ...entry.args], { cwd, env: entry.env ?? {} });
  try {
    // The first start from source may fill a cold module cache: it gets longer than an answer does.
    session.send(initialize(1));
    const init = await session.next(30_000);
    assert.ok(init.result?.serverInfo?.name, JSON.stringify(init));
    session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const list = await session.request({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    return list.result.tools.map((tool: { name: string }) => tool.name).sort();
  } finally {
    await session.close();
  }
}

describe("mcp install --scope project: a file the team checks in", () => {
  it(
    "a new project file is 0644 (umask 022), a new user file 0600",
    { skip: POSIX ? false : "POSIX modes" },
    async () => {
      const box = sandbox();
      try {
        const umask022 = ["sh", "-c", 'umask 022 && exec "$0" "$@"'];
        const program = [...umask022, ...NOTES];
        for (
          const [client, file] of [["claude-code", ".mcp.json"], ["vscode", join(".vscode", "mcp.json")]]
        ) {
          const result = await install(box, ["--client", client!, "--scope", "project"], { program });
          assert.equal(result.code, 0, result.stdout);
          assert.equal(statSync(join(box.home, file!)).mode & 0o777, 0o644, file);
        }
        assert.equal(statSync(join(box.home, ".vscode")).mode & 0o777, 0o755);
        const user = await install(box, ["--client", "cursor", "--scope", "user"], { program });
        assert.equal(user.code, 0, user.stdout);
        assert.equal(statSync(join(box.home, ".cursor", "mcp.json")).mode & 0o777, 0o600);
        assert.equal(statSync(join(box.home, ".cursor")).mode & 0o777, 0o700);
      } finally {
        box.cleanup();
      }
    },
  );

  it("Claude Code: a path inside the project is ./relative, and the entry starts in the project's directory", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, ".mcp.json");
      const result = await install(
        box,
        ["--client", "claude-code", "--scope", "project", "--config", config],
        {
          cwd: ROOT,
        },
      );
      assert.equal(result.code, 0, result.stdout);
      const entry = readJson(config).mcpServers.notes;
      assert.ok(entry.args.includes(`./${SCRIPT_IN_PROJECT}`), JSON.stringify(entry.args));
      assert.ok(!JSON.stringify(entry).includes(ROOT), `no path of this checkout: ${JSON.stringify(entry)}`);
      assert.ok((await toolsOf(entry, ROOT)).includes("add"));
    } finally {
      box.cleanup();
    }
  });

  for (const client of ["vscode", "cursor"]) {
    it(`${client}: a path inside the project is \${workspaceFolder}/relative, wherever the server starts`, async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "mcp.json");
        const result = await install(box, ["--client", client, "--scope", "project", "--config", config], {
          cwd: ROOT,
        });
        assert.equal(result.code, 0, result.stdout);
        const entry = onlyEnvelope(result.stdout).data.server;
        assert.ok(
          entry.args.includes(`\${workspaceFolder}/${SCRIPT_IN_PROJECT}`),
          JSON.stringify(entry.args),
        );
        // The client substitutes its variables in the command too (a runtime inside the project, as
        // node_modules/deno/deno in a clone, is written relative to it as well).
        const folder = (text: string) => text.replace("${workspaceFolder}", ROOT.replace(/\/$/, ""));
        const substituted = { ...entry, command: folder(entry.command), args: entry.args.map(folder) };
        assert.ok((await toolsOf(substituted, box.home)).includes("add"));
      } finally {
        box.cleanup();
      }
    });
  }

  it("the runtime is written by name when PATH finds that very executable, else by its absolute path", async () => {
    const box = sandbox();
    try {
      const runtime = NOTES[0]!;
      const cases: Array<[string, string]> = [
        [dirname(runtime), basename(runtime)],
        [`/nonexistent${process.platform === "win32" ? ";" : ":"}${box.home}`, runtime],
      ];
      for (const [path, command] of cases) {
        const result = await install(box, ["--client", "claude-code", "--scope", "project", "--dry-run"], {
          env: { PATH: path },
        });
        assert.equal(result.code, 0, result.stdout);
        assert.equal(onlyEnvelope(result.stdout).data.server.command, command, `PATH=${path}`);
      }
      // A user file keeps the absolute path: it is this machine's.
      const user = await install(box, ["--client", "claude-code", "--scope", "user", "--dry-run"], {
        env: { PATH: dirname(runtime) },
      });
      assert.equal(onlyEnvelope(user.stdout).data.server.command, runtime);
    } finally {
      box.cleanup();
    }
  });
});
