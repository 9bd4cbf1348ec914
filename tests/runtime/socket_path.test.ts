// claimSocketPath: only a socket nobody listens on is removed. A live server whose accept backlog is full
// answers a connect with EAGAIN, not ECONNREFUSED: it is live, and its socket stays. A FIFO, a file or a
// directory at the path is never touched.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { claimSocketPath } from "../../lib/runtime/socket.ts";
import { tempDir } from "../helpers/run.ts";

const dir = tempDir("toolwire-claim-");
after(() => dir.cleanup());
const python = spawnSync("python3", ["--version"]).status === 0;

describe("claimSocketPath", () => {
  it("frees a missing path and a stale socket; refuses what is not a socket, untouched", async () => {
    assert.equal(await claimSocketPath(join(dir.path, "none.sock")), "free");
    const file = join(dir.path, "file");
    writeFileSync(file, "keep me");
    assert.equal(await claimSocketPath(file), "not-socket");
    assert.ok(existsSync(file));
    const fifo = join(dir.path, "fifo");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status === 0) {
      assert.equal(await claimSocketPath(fifo), "not-socket");
      assert.ok(existsSync(fifo), "a FIFO is never removed");
    }
    assert.equal(await claimSocketPath(dir.path), "not-socket");
  });

  it("a live server with a full backlog (EAGAIN) keeps its socket", {
    skip: python ? false : "python3 is not installed",
  }, async () => {
    const path = join(dir.path, "busy.sock");
    // A server that listens with the smallest backlog and never accepts, its backlog filled by its own clients.
    const server = spawn("python3", [
      "-c",
      `
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(0)
held = []
for _ in range(8):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.setblocking(False)
    try: c.connect(sys.argv[1]); held.append(c)
    except BlockingIOError: break
print("ready", flush=True)
time.sleep(30)
`,
      path,
    ], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve) => server.stdout.on("data", () => resolve()));
      assert.equal(await claimSocketPath(path), "live");
      assert.ok(existsSync(path), "the live server's socket is not removed");
    } finally {
      server.kill("SIGKILL");
    }
  });
});
