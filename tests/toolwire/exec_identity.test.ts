// Who `toolwire mcp serve --exec` says it is: the manifest carries no tool identity (the published format has
// no member for it), so the bridge asks `<cli> --format json --version`; a CLI that does not answer it is
// served under toolwire's own name, its command line in the instructions.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FRAMEWORK_VERSION } from "../../lib/version.ts";
import { NOTES, onlyEnvelope, run, tempDir } from "../helpers/run.ts";
import { connect, execLine, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

async function serverOf(cli: readonly string[], env: Record<string, string> = {}) {
  const client = await connect([...TOOLWIRE, "mcp", "serve", "--exec", execLine(cli)], { env });
  try {
    return { info: client.getServerVersion(), instructions: client.getInstructions() ?? "" };
  } finally {
    await client.close();
  }
}

describe("toolwire mcp serve --exec: the server's identity", () => {
  it("--version reports the tool's name, version and description", async () => {
    const result = await run([...NOTES, "--format", "json", "--version"]);
    assert.equal(result.code, 0, result.stderr);
    const { data } = onlyEnvelope(result.stdout);
    assert.deepEqual(data, {
      name: "notes",
      version: "1.0.0",
      description: "Keep short notes with tags",
      framework_version: FRAMEWORK_VERSION,
    });
  });

  it("a toolwire tool is served under the name and version its --version reports", async () => {
    const home = tempDir();
    try {
      const { info, instructions } = await serverOf(NOTES, { NOTES_HOME: home.path });
      assert.equal(info?.name, "notes");
      assert.equal(info?.version, "1.0.0");
      assert.match(instructions, /^Keep short notes with tags\. Each tool runs '/);
    } finally {
      home.cleanup();
    }
  });

  it("a CLI without --version is served as toolwire, its command line in the instructions", async () => {
    const cli = pyfix();
    const { info, instructions } = await serverOf(cli);
    assert.equal(info?.name, "toolwire");
    assert.equal(info?.version, FRAMEWORK_VERSION);
    assert.ok(instructions.startsWith(`The commands of '${execLine(cli)}'. Each tool runs`), instructions);
  });
});
