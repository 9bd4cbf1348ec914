// The built-in commands come with the tool itself — `manifest`, `mcp serve`, `mcp listen`, `mcp install`,
// `completions` on every tool — and `mcp serve`, `mcp listen` and `mcp install` are extended through one
// option each (`extendMcpServe`, `extendMcpListen`, `extendMcpInstall`), as the `lab` fixture does with `--banner`.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTool, validateManifest } from "../../mod.ts";
import { validateDefinition } from "../../lib/command/contract/registration_rules.ts";
import { type Loose, onlyEnvelope, programArgv, run, tempDir } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");
const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';

describe("built-in commands", () => {
  it("every tool has the five built-ins, and two tools in one process each have their own", async () => {
    const plain = createTool({ name: "plain", version: "1.0.0", description: "Plain" });
    const hub = createTool({
      name: "hub",
      version: "1.0.0",
      description: "Hub",
      extendMcpServe: (builtin) => ({ ...builtin, description: "The hub's own server" }),
    });
    const again = createTool({ name: "again", version: "1.0.0", description: "Again" });
    for (const tool of [plain, hub, again]) {
      const { commands } = await tool.manifest();
      assert.deepEqual(Object.keys(commands).sort(), [
        "completions",
        "manifest",
        "mcp.install",
        "mcp.listen",
        "mcp.serve",
      ]);
    }
    assert.equal((await hub.manifest()).commands["mcp.serve"]!.description, "The hub's own server");
    for (const tool of [plain, again]) {
      assert.match((await tool.manifest()).commands["mcp.serve"]!.description, /^Serve the tool's commands/);
    }
  });

  it("every built-in holds to the contract rules, which registration does not check for them", async () => {
    // Registration skips the checks for the framework's own definitions (registerBuiltin): this is where
    // they are checked, for a tool with every option that feeds into them.
    const tool = createTool({
      name: "x-2",
      version: "0.0.0-dev",
      description: "",
      envPrefix: "",
      timeoutSeconds: 0,
      idempotencyLifetimeSeconds: 1,
    });
    const builtins = tool.registry.all();
    assert.deepEqual(builtins.map((command) => command.path).sort(), [
      "completions",
      "manifest",
      "mcp.install",
      "mcp.listen",
      "mcp.serve",
    ]);
    for (const { path, definition, served, entry } of builtins) {
      // `mcp listen` implements `--dry-run` itself: it lists what would be served.
      const ownFlags = path === "mcp.listen" ? ["dry-run"] : [];
      assert.doesNotThrow(() => validateDefinition(path, definition, ownFlags), path);
      // Built on first use, they reserve no alias: they must declare none.
      assert.equal(definition.aliases, undefined, path);
      // An MCP server leaves out the ones registered as never served without building them: each of them
      // must be one the catalog would leave out anyway.
      if (served === false) assert.ok(entry.mcp === false, path);
    }
    assert.deepEqual(builtins.filter(({ served }) => served === false).map(({ path }) => path).sort(), [
      "completions",
      "mcp.install",
      "mcp.listen",
      "mcp.serve",
    ]);
    assert.deepEqual(validateManifest(await tool.manifest()), []);
  });

  it("extendMcpServe: the manifest shows the added flag and still rates the server by what it serves", async () => {
    const result = await run([...LAB, "manifest", "--format", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const serve = onlyEnvelope(result.stdout).data.commands["mcp.serve"] as Loose;
    assert.deepEqual(Object.keys(serve.flags).sort(), [
      "banner",
      "max-in-flight",
      "max-message-bytes",
      "read-only",
    ]);
    // lab has a destructive command (`wipe`): the extended server is as dangerous as what it serves.
    assert.equal(serve.danger_level, "destructive");
    assert.match(serve.description, /destructive because it serves wipe/);
  });

  it("extendMcpServe: the extended server runs, and the plain one without the flag", async () => {
    const extended = await run([...LAB, "mcp", "serve", "--banner", "hello from lab"], { stdin: INITIALIZE });
    assert.equal(extended.code, 0, extended.stderr);
    assert.match(extended.stderr, /hello from lab/);
    assert.equal(JSON.parse(extended.stdout.split("\n")[0]!).result.serverInfo.name, "lab");
    const plain = await run([...LAB, "mcp", "serve"], { stdin: INITIALIZE });
    assert.equal(plain.code, 0, plain.stderr);
    assert.doesNotMatch(plain.stderr, /hello from lab/);
  });

  it("extendMcpInstall: the registered server gets the extension's arguments", async () => {
    const home = tempDir();
    try {
      const argv = [...LAB, "--format", "json", "mcp", "install", "--client", "cursor", "--print"];
      const env = { HOME: home.path, XDG_CONFIG_HOME: home.path, APPDATA: home.path };
      const extended = await run([...argv, "--banner", "hi"], { env, cwd: home.path });
      assert.equal(extended.code, 0, extended.stderr);
      const args = onlyEnvelope(extended.stdout).data.snippet.mcpServers.lab.args as string[];
      assert.deepEqual(args.slice(-4), ["mcp", "serve", "--banner", "hi"]);
      const plain = await run(argv, { env, cwd: home.path });
      assert.equal(plain.code, 0, plain.stderr);
      assert.deepEqual((onlyEnvelope(plain.stdout).data.snippet.mcpServers.lab.args as string[]).slice(-2), [
        "mcp",
        "serve",
      ]);
    } finally {
      home.cleanup();
    }
  });
});
