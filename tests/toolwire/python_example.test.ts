// The copy-paste example of a foreign CLI, examples/python/greet.py: `toolwire check` passes it (its etag
// included), and `toolwire mcp serve --exec` bridges it to a real MCP client under its own name.
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Loose, onlyEnvelope, ROOT, run } from "../helpers/run.ts";
import { connect, execLine, PYTHON, TOOLWIRE } from "../helpers/toolwire.ts";

const GREET = [PYTHON, join(ROOT, "examples", "python", "greet.py")];

describe("the Python example CLI (examples/python/greet.py)", () => {
  it("passes toolwire check: every criterion passed or skipped, the etag its content's", async () => {
    const result = await run([...TOOLWIRE, "--format", "json", "check", "--", ...GREET], {
      timeoutMs: 60_000,
    });
    const report = onlyEnvelope(result.stdout);
    const failed = report.data.criteria.filter((criterion: Loose) => criterion.status === "fail");
    assert.equal(result.code, 0, JSON.stringify(failed));
    const byId = new Map(report.data.criteria.map((criterion: Loose) => [criterion.id, criterion]));
    for (
      const id of ["manifest-envelope", "manifest-schema", "manifest-etag", "ac06-help", "ac13-invalid-flag"]
    ) {
      assert.equal((byId.get(id) as Loose).status, "pass", id);
    }
  });

  it("is served over MCP by the bridge: its name, its tool, a call's envelope", async () => {
    const client = await connect([...TOOLWIRE, "mcp", "serve", "--exec", execLine(GREET)]);
    try {
      assert.equal(client.getServerVersion()?.name, "greet");
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["hello", "manifest"]);
      const called = await client.callTool({ name: "hello", arguments: { name: "ada" } });
      assert.equal(called.isError, false);
      assert.deepEqual((called.structuredContent as Loose).data, { greeting: "hello ada" });
    } finally {
      await client.close();
    }
  });
});
