// `toolwire mcp listen --exec "<cli>" <address>`: a bridged CLI served on a Unix socket or a loopback TCP port
// to many clients at once, spawned for real; SIGTERM closes it with exit 143 and the envelope; loopback only
// unless --allow-remote; a stale socket file is reused, a live one, a file or a FIFO is a conflict and left
// alone; --dry-run lists what would be served and listens nowhere; per-call flags are not offered.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectSocket, type SocketAddress } from "../../lib/runtime/socket.ts";
import { initialize, modern } from "../helpers/mcp_wire.ts";
import { Inbox } from "../helpers/inbox.ts";
import {
  exitCodeOf,
  finished,
  type Loose,
  NOTES,
  onlyEnvelope,
  run,
  start,
  tempDir,
} from "../helpers/run.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

const cleanups: Array<() => void> = [];
after(() => cleanups.forEach((cleanup) => cleanup()));

function scratch(): string {
  const dir = tempDir("toolwire-listen-");
  cleanups.push(dir.cleanup);
  return dir.path;
}

/** Starts `mcp listen` and waits for the line naming its address on stderr. */
async function listen(address: string, home: string, ...flags: string[]) {
  const child = start([...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), ...flags, address], {
    env: { NOTES_HOME: home },
  });
  const stderr: string[] = [];
  const serving = new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString());
      const found = /serving \S+ on (\S+)/.exec(stderr.join(""));
      if (found) resolve(found[1]!);
    });
    child.once("exit", (code) => reject(new Error(`mcp listen exited ${code}: ${stderr.join("")}`)));
  });
  const done = finished(child, 30_000);
  return { child, shown: await serving, done };
}

function socketAddress(shown: string): SocketAddress {
  if (shown.startsWith("unix:")) return { kind: "unix", path: shown.slice(5) };
  const match = /^tcp:(.+):(\d+)$/.exec(shown)!;
  return { kind: "tcp", host: match[1]!, port: Number(match[2]) };
}

/** One session over a connection: lines out, parsed lines in. */
async function session(address: SocketAddress) {
  const connection = await connectSocket(address);
  const inbox = new Inbox<Loose>();
  const decoder = new TextDecoder();
  let pending = "";
  const reading = (async () => {
    for (let chunk = await connection.read(); chunk !== null; chunk = await connection.read()) {
      pending += decoder.decode(chunk, { stream: true });
      for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
        inbox.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
      }
    }
  })().catch(() => {
    // A connection the server reset (Node's answer to an accept without descriptors) brings no answer;
    // a request on it times out.
  });
  return {
    async request(message: Record<string, unknown>): Promise<Loose> {
      await connection.write(`${JSON.stringify(message)}\n`);
      return await inbox.next(20_000);
    },
    async close() {
      connection.close();
      await reading;
    },
  };
}

describe("toolwire mcp listen", () => {
  for (const kind of ["unix", "tcp"] as const) {
    it(`serves 50 concurrent ${kind} clients, each its own session, then SIGTERM: exit 143, the envelope, nothing left`, async () => {
      const dir = scratch();
      const requested = kind === "unix" ? `unix:${join(dir, "notes.sock")}` : "tcp:127.0.0.1:0";
      const server = await listen(requested, dir);
      const address = socketAddress(server.shown);
      await Promise.all(Array.from({ length: 50 }, async (_, n) => {
        const s = await session(address);
        const legacy = n % 2 === 1;
        if (legacy) assert.equal((await s.request(initialize(0))).result.serverInfo.name, "notes");
        const params = { name: "add", arguments: { title: `from client ${n}` } };
        const added = await s.request(
          legacy ? { jsonrpc: "2.0", id: 1, method: "tools/call", params } : modern(1, "tools/call", params),
        );
        assert.equal(added.id, 1);
        assert.equal(
          added.result.structuredContent.data.note.title,
          `from client ${n}`,
          "each client gets its own answer",
        );
        await s.close();
      }));
      server.child.kill("SIGTERM");
      const result = await server.done;
      assert.equal(exitCodeOf(result.code, result.signal), 143, result.stderr);
      assert.equal(onlyEnvelope(result.stdout).error.code, "CANCELLED");
      if (kind === "unix") {
        assert.equal(
          existsSync(address.kind === "unix" ? address.path : ""),
          false,
          "the socket file is removed",
        );
      }
      const listed = await run([...NOTES, "list"], { env: { NOTES_HOME: dir } });
      assert.equal(onlyEnvelope(listed.stdout).data.length, 50, "every call ran exactly once");
    });
  }

  it("listens on loopback only, unless --allow-remote; a bad address is an ARG_ERROR", async () => {
    const dir = scratch();
    for (
      const address of [
        "tcp:0.0.0.0:0",
        "tcp:192.0.2.1:7000",
        "http://192.0.2.1:80/mcp",
        "tcp:127.0.0.1:70000",
        "unix:",
      ]
    ) {
      const result = await run([...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), address], {
        env: { NOTES_HOME: dir },
      });
      assert.equal(result.code, 2, `${address}: ${result.stderr}`);
      assert.equal(onlyEnvelope(result.stdout).error.code, "ARG_ERROR");
    }
  });

  it("reuses a stale socket file, refuses a live one (6) and a path that is not a socket (6)", async () => {
    const dir = scratch();
    const path = join(dir, "notes.sock");
    const first = await listen(`unix:${path}`, dir);
    const second = await run([...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), `unix:${path}`], {
      env: { NOTES_HOME: dir },
    });
    assert.equal(second.code, 6, second.stderr);
    first.child.kill("SIGKILL");
    await first.done;
    assert.equal(existsSync(path), true, "a killed server leaves its socket file");
    const again = await listen(`unix:${path}`, dir);
    const s = await session({ kind: "unix", path });
    assert.equal(
      (await s.request(modern(1, "tools/list"))).result.tools.some((tool: { name: string }) =>
        tool.name === "add"
      ),
      true,
    );
    await s.close();
    again.child.kill("SIGTERM");
    await again.done;
    const file = join(dir, "plain.txt");
    writeFileSync(file, "not a socket");
    const refused = await run([...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), `unix:${file}`], {
      env: { NOTES_HOME: dir },
    });
    assert.equal(refused.code, 6, refused.stderr);
    // A FIFO (or a device: as root, unix:/dev/null) is not a socket either, and is never removed.
    const fifo = join(dir, "fifo");
    if (spawnSync("mkfifo", [fifo]).status === 0) {
      const onFifo = await run([...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), `unix:${fifo}`], {
        env: { NOTES_HOME: dir },
      });
      assert.equal(onFifo.code, 6, onFifo.stderr);
      assert.equal(lstatSync(fifo).isFIFO(), true, "the FIFO is left alone");
    }
  });

  it("--dry-run lists what would be served with each danger level and listens nowhere; per-call flags are refused", async () => {
    const dir = scratch();
    const path = join(dir, "dry.sock");
    const dry = await run([
      ...TOOLWIRE,
      "mcp",
      "listen",
      "--exec",
      execLine(NOTES),
      "--dry-run",
      `unix:${path}`,
    ], {
      env: { NOTES_HOME: dir },
    });
    assert.equal(dry.code, 0, dry.stderr);
    const data = onlyEnvelope(dry.stdout).data;
    assert.equal(data.effect, "would_listen");
    assert.deepEqual(
      Object.fromEntries(data.tools.map((tool: Loose) => [tool.name, tool.danger_level])),
      { add: "mutating", list: "safe", manifest: "safe", remove: "destructive", show: "safe" },
    );
    assert.equal(existsSync(path), false, "nothing listens");
    for (const flag of [["--idempotency-key", "k1"], ["--confirm-destructive"]]) {
      const result = await run([
        ...TOOLWIRE,
        "mcp",
        "listen",
        "--exec",
        execLine(NOTES),
        ...flag,
        `unix:${path}`,
      ], {
        env: { NOTES_HOME: dir },
      });
      assert.equal(result.code, 2, `${flag[0]}: ${result.stderr}`);
      assert.match(onlyEnvelope(result.stdout).error.message, new RegExp(`unknown flag ${flag[0]}`));
    }
    const open = await run([...TOOLWIRE, "mcp", "listen", "--allow-remote", "http://192.0.2.1:0/mcp"], {
      env: { NOTES_HOME: dir },
    });
    assert.equal(open.code, 2, "an HTTP endpoint others can reach needs authentication, or --no-auth");
    assert.match(onlyEnvelope(open.stdout).error.message, /needs authentication/);
  });

  it(
    "out of file descriptors, a bridged call is a retryable tool error, and the listener serves again once they are free",
    { skip: process.platform === "linux" ? false : "ulimit -n and /proc are Linux's" },
    async () => {
      const dir = scratch();
      // The server gets few descriptors: connections use them up until one is no longer accepted.
      const child = start(
        [
          "sh",
          "-c",
          'ulimit -n 64 && exec "$0" "$@"',
          ...TOOLWIRE,
          "mcp",
          "listen",
          "--exec",
          execLine(NOTES),
          "tcp:127.0.0.1:0",
        ],
        { env: { NOTES_HOME: dir } },
      );
      let stderr = "";
      const shown = await new Promise<string>((resolve, reject) => {
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /serving \S+ on (\S+)/.exec(stderr);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`mcp listen exited ${code}: ${stderr}`)));
      });
      const done = finished(child, 60_000);
      const address = socketAddress(shown);
      const open: Array<Awaited<ReturnType<typeof session>>> = [];
      try {
        for (let i = 0; i < 100; i++) {
          const s = await session(address);
          const listed = await Promise.race([
            s.request(modern(1, "tools/list")),
            new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1_000)),
          ]);
          if (listed === undefined) {
            void s.close();
            break;
          }
          open.push(s);
        }
        assert.ok(
          open.length > 0 && open.length < 100,
          `descriptors ran out after ${open.length} connections`,
        );
        // One descriptor back is not enough to start a child (its three pipes need six).
        await open.pop()!.close();
        const call = await open[0]!.request(modern(2, "tools/call", { name: "list", arguments: {} }));
        assert.equal(call.error, undefined, `answered as a tool result, not ${JSON.stringify(call.error)}`);
        const envelope = call.result.structuredContent;
        if (!envelope.ok) {
          assert.equal(envelope.error.retryable, true, JSON.stringify(envelope.error));
          assert.match(envelope.error.message, /EMFILE|ENFILE|EAGAIN/);
        }
        await Promise.all(open.splice(0).map((s) => s.close()));
        await new Promise((resolve) => setTimeout(resolve, 500));
        const fresh = await session(address);
        const again = await fresh.request(modern(3, "tools/call", { name: "list", arguments: {} }));
        assert.equal(
          again.result.structuredContent.ok,
          true,
          "the listener serves again once descriptors are free",
        );
        await fresh.close();
      } finally {
        await Promise.all(open.map((s) => s.close()));
        child.kill("SIGTERM");
        await done;
      }
      assert.doesNotMatch(stderr, /panicked|stack backtrace|TypeError/);
    },
  );

  it("is not an MCP tool of toolwire's own server", async () => {
    const manifest = onlyEnvelope((await run([...TOOLWIRE, "manifest"])).stdout).data;
    assert.equal(manifest.commands["mcp.listen"].mcp, false);
    // Rated by what it does itself; each call it serves keeps its own contract inside the protocol.
    assert.equal(manifest.commands["mcp.listen"].danger_level, "safe");
    assert.match(manifest.commands["mcp.listen"].description, /destructive commands included/);
  });
});
