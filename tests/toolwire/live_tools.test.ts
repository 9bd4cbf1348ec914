// Live tool lists: `toolwire mcp serve --exec` follows a bridged CLI whose manifest changes under it. The
// official v2 SDK client in auto mode (2026-07-28: subscriptions/listen) and a legacy client both hear
// list_changed and list the new tools; a call in flight finishes against the manifest it started with; a
// new manifest that fails its checks is reported on stderr and the old tools go on being served.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { initialize } from "../helpers/mcp_wire.ts";
import { WireSession } from "../helpers/mcp_wire.ts";
import { changingCli } from "../helpers/changing_cli.ts";
import { ROOT, tempDir, waitForOutput } from "../helpers/run.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

function serverArgv(cli: string[], ...flags: string[]): string[] {
  return [...TOOLWIRE, "mcp", "serve", "--exec", execLine(cli), "--watch-interval", "0.1", ...flags];
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("live tool lists of a bridged CLI", { timeout: 60_000 }, () => {
  it("the v2 SDK client (auto mode) hears list_changed through subscriptions/listen and lists the new tools", async () => {
    const dir = tempDir("toolwire-live-");
    try {
      const cli = changingCli(dir.path, ["alpha", "slow"]);
      const seen: string[][] = [];
      const client = new Client({ name: "live-test", version: "1.0.0" }, {
        versionNegotiation: { mode: "auto" },
        listChanged: {
          tools: {
            onChanged: (error, tools) =>
              void (error ? undefined : seen.push((tools ?? []).map((tool) => tool.name))),
          },
        },
      });
      const [command, ...args] = serverArgv(cli.argv);
      await client.connect(
        new StdioClientTransport({ command: command!, args, stderr: "ignore", cwd: ROOT }),
      );
      try {
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), [
          "alpha",
          "manifest",
          "slow",
        ]);
        // A call in flight when the manifest changes finishes against the manifest it started with.
        // Only once the call's own process has read the old manifest and is running.
        const started = join(dir.path, "slow-started");
        const inFlight = client.callTool({ name: "slow", arguments: { ms: 1_500, started } });
        await until(() => existsSync(started), "the slow call to start");
        cli.set(["alpha", "beta"]);
        cli.rewrite();
        await until(() => seen.some((names) => names.includes("beta")), "list_changed with beta");
        assert.deepEqual(seen.at(-1)!.sort(), ["alpha", "beta", "manifest"]);
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), [
          "alpha",
          "beta",
          "manifest",
        ]);
        const finished = await inFlight as { structuredContent: { ok: boolean; data: { name: string } } };
        assert.equal(finished.structuredContent.ok, true);
        assert.equal(finished.structuredContent.data.name, "slow");
        const beta = await client.callTool({ name: "beta", arguments: {} }) as {
          structuredContent: { data: { name: string } };
        };
        assert.equal(beta.structuredContent.data.name, "beta");
      } finally {
        await client.close();
      }
    } finally {
      dir.cleanup();
    }
  });

  it("a legacy client gets unsolicited list_changed; a manifest that fails is reported and the old tools stay", async () => {
    const dir = tempDir("toolwire-live-");
    try {
      const cli = changingCli(dir.path, ["alpha"]);
      const s = new WireSession(serverArgv(cli.argv));
      const init = await s.request(initialize(0));
      assert.deepEqual(init.result.capabilities.tools, { listChanged: true });
      cli.set(["alpha", "gamma"]);
      const changed = await s.next(15_000);
      assert.equal(changed.method, "notifications/tools/list_changed");
      const listed = await s.request({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name).sort(), [
        "alpha",
        "gamma",
        "manifest",
      ]);
      // "Bad Name" is no command path: the CLI fails to start, so it prints no manifest.
      // The refusal is awaited, not slept for: on a loaded machine the look can take longer than any pause.
      const refused = waitForOutput(s.child, "stderr", "new manifest was refused", 20_000);
      cli.set(["alpha", "Bad Name"]);
      cli.rewrite();
      await refused;
      const still = await s.request({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      assert.deepEqual(still.result.tools.map((tool: { name: string }) => tool.name).sort(), [
        "alpha",
        "gamma",
        "manifest",
      ]);
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /new manifest was refused; the tools stay as they were/);
      assert.match(result.stderr, /manifest changed \(sha256:/);
    } finally {
      dir.cleanup();
    }
  });

  it("a look that hangs is stopped at the call timeout and logged, and the looks go on", async () => {
    const dir = tempDir("toolwire-live-");
    try {
      const cli = changingCli(dir.path, ["alpha"]);
      writeFileSync(join(dir.path, "hang-etag"), "");
      const s = new WireSession(serverArgv(cli.argv, "--call-timeout", "1"));
      const stopped = waitForOutput(s.child, "stderr", "asking the CLI for its manifest timed out", 20_000);
      await s.request(initialize(0));
      // The first look is asked at once (the script was rewritten) and hangs; it is stopped after a second.
      cli.rewrite();
      await until(() => cli.starts().some((line) => line.includes("--etag")), "a look with --etag");
      await stopped;
      rmSync(join(dir.path, "hang-etag"));
      cli.set(["alpha", "beta"]);
      cli.rewrite();
      const changed = await s.next(20_000);
      assert.equal(changed.method, "notifications/tools/list_changed");
      const listed = await s.request({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name).sort(), [
        "alpha",
        "beta",
        "manifest",
      ]);
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /asking the CLI for its manifest timed out; .* did not answer within 1 s/);
    } finally {
      dir.cleanup();
    }
  });

  it("--watch-interval 2147484 (past one setTimeout, ~25 days) waits that long: no look in the meantime", async () => {
    const dir = tempDir("toolwire-live-");
    try {
      const cli = changingCli(dir.path, ["alpha"]);
      const s = new WireSession([
        ...TOOLWIRE,
        "mcp",
        "serve",
        "--exec",
        execLine(cli.argv),
        "--watch-interval",
        "2147484",
      ]);
      const init = await s.request(initialize(0));
      assert.deepEqual(init.result.capabilities.tools, { listChanged: true });
      const before = cli.starts().length;
      cli.rewrite();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // The manifest and the --version read before serving; nothing since.
      assert.deepEqual(cli.starts().slice(before), []);
      assert.equal(before, 2, cli.starts().join("\n"));
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
    } finally {
      dir.cleanup();
    }
  });
});
