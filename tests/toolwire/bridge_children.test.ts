// `toolwire mcp serve --exec`: what becomes of a bridged call's processes and output. A bridged CLI may
// leave a grandchild in its process group — holding the call's pipes, or with stdio of its own, ignoring
// SIGTERM — and may write far more than anyone reads; none of that may wedge a call, outlive it, or keep
// the server from ending. Long and tiny time limits, and the environment a bridged CLI gets.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lastLine, type Loose, run, tempDir } from "../helpers/run.ts";
import { modern, modernMeta, WireSession } from "../helpers/mcp_wire.ts";
import { execLine, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

const FAMILY = pyfix("family");

function bridge(...flags: string[]): WireSession {
  return new WireSession([...TOOLWIRE, "mcp", "serve", "--exec", execLine(FAMILY), ...flags], {
    timeoutMs: 20_000,
  });
}

function call(
  id: number,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Record<string, unknown> {
  return modern(id, "tools/call", { name, arguments: args }, meta);
}

const PROC = existsSync("/proc/self/stat");

/** The processes of a group that are still alive (a zombie has ended; it only waits to be reaped). */
function groupMembers(pgid: number): number[] {
  if (!PROC) {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // After the command name in parentheses: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") members.push(Number(entry));
  }
  return members;
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

interface Family {
  child: number;
  grandchild: number;
  pgid: number;
}

/** Waits for the `fork` command's pid file: its own pid, its grandchild's, and its process group. */
async function familyOf(pidFile: string): Promise<Family> {
  assert.ok(
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").split(" ").length === 3),
    "fork started",
  );
  const [child, grandchild, pgid] = readFileSync(pidFile, "utf8").split(" ").map(Number) as [
    number,
    number,
    number,
  ];
  return { child, grandchild, pgid };
}

/** Asserts the group ends (soon: it is signalled, not waited for), and ends it anyway so no test leaks it. */
async function assertGroupEnds(family: Family, when: string): Promise<void> {
  const ended = await waitFor(() => groupMembers(family.pgid).length === 0, 5_000);
  const left = groupMembers(family.pgid);
  if (left.length > 0) process.kill(-family.pgid, "SIGKILL");
  assert.ok(ended, `${when}: processes ${left.join(", ")} of group ${family.pgid} are still running`);
  assert.equal(family.pgid, family.child, "the call ran in a process group of its own");
}

/** Runs `body` with a temporary pid file, ending any group it names when the test fails. */
async function withPidFile(body: (pidFile: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const pidFile = join(dir.path, "pids");
  try {
    await body(pidFile);
  } finally {
    if (existsSync(pidFile)) {
      const pgid = Number(readFileSync(pidFile, "utf8").split(" ")[2]);
      if (pgid > 1 && groupMembers(pgid).length > 0) process.kill(-pgid, "SIGKILL");
    }
    dir.cleanup();
  }
}

describe("toolwire mcp serve --exec: a bridged CLI's grandchildren", () => {
  it("a grandchild that holds the call's stdout does not wedge the call, and does not outlive it", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge();
      const reply = await s.request(call(1, "fork", { pid_file: pidFile, stubborn: true }));
      assert.equal(reply.result.isError, false, JSON.stringify(reply));
      const family = await familyOf(pidFile);
      assert.equal(reply.result.structuredContent.data.grandchild, family.grandchild);
      await assertGroupEnds(family, "after the call");
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
    });
  });

  it("a grandchild with stdio of its own, ignoring SIGTERM, does not outlive the call", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge();
      const reply = await s.request(call(1, "fork", { pid_file: pidFile, quiet: true, stubborn: true }));
      assert.equal(reply.result.isError, false, JSON.stringify(reply));
      await assertGroupEnds(await familyOf(pidFile), "after the call");
      assert.equal((await s.close()).code, 0);
    });
  });

  it("a grandchild that left the group but holds the call's pipes cannot wedge the call", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge();
      try {
        const reply = await s.request(call(1, "fork", { pid_file: pidFile, escape: true }));
        assert.equal(reply.result.isError, false, JSON.stringify(reply));
        assert.equal((await s.close()).code, 0);
      } finally {
        // Out of the group's reach by design: the test ends it itself.
        if (existsSync(pidFile)) process.kill((await familyOf(pidFile)).grandchild, "SIGKILL");
      }
    });
  });

  it("a cancelled call's whole group ends, a grandchild ignoring SIGTERM too", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge();
      s.send(call(1, "fork", { pid_file: pidFile, seconds: 60, stubborn: true }));
      const family = await familyOf(pidFile);
      s.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "test", _meta: modernMeta() },
      });
      await assertGroupEnds(family, "after the cancel");
      const after = await s.request(call(2, "echo", { text: "still serving" }));
      assert.equal(after.result.structuredContent.data.text, "still serving");
      assert.equal((await s.close()).code, 0);
      assert.doesNotMatch(s.stdoutText, /"id":1\b/);
    });
  });

  it("a call over --call-timeout answers TIMEOUT even when a grandchild holds its pipes, and its group ends", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge("--call-timeout", "1");
      s.send(call(1, "fork", { pid_file: pidFile, seconds: 60, stubborn: true }));
      const family = await familyOf(pidFile);
      const reply = await s.next(15_000);
      assert.equal(reply.id, 1);
      assert.equal(reply.result.structuredContent.error.code, "TIMEOUT");
      await assertGroupEnds(family, "after the timeout");
      assert.equal((await s.close()).code, 0);
    });
  });

  it("at stdin EOF the server answers the open call, exits 0, and leaves nothing of the group behind", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge();
      s.send(call(1, "fork", { pid_file: pidFile, stubborn: true }));
      const family = await familyOf(pidFile);
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
      const reply = JSON.parse(lastLine(result.stdout));
      assert.deepEqual([reply.id, reply.result.isError], [1, false]);
      await assertGroupEnds(family, "after the server exited");
    });
  });

  it("at stdin EOF, a call still running is waited for up to --call-timeout, then its group ends", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge("--call-timeout", "1");
      s.send(call(1, "fork", { pid_file: pidFile, seconds: 60, quiet: true, stubborn: true }));
      const family = await familyOf(pidFile);
      const result = await s.close();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(JSON.parse(lastLine(result.stdout)).result.structuredContent.error.code, "TIMEOUT");
      await assertGroupEnds(family, "after the server exited");
    });
  });

  it("SIGTERM to the server ends every call's whole group", async () => {
    await withPidFile(async (pidFile) => {
      const s = bridge();
      s.send(call(1, "fork", { pid_file: pidFile, seconds: 60, stubborn: true }));
      const family = await familyOf(pidFile);
      process.kill(s.child.pid!, "SIGTERM");
      const result = await s.exited();
      assert.equal(result.code, 143, result.stderr);
      await assertGroupEnds(family, "after the server's SIGTERM");
    });
  });
});

describe("toolwire mcp serve --exec: a bridged CLI's output", () => {
  it("32 MB of stderr without a newline is read in linear time; the log line is cut and says so", async () => {
    const s = bridge();
    const bytes = 32 * 1024 * 1024;
    s.send(
      call(1, "noise", { stderr_bytes: bytes, stderr_line: "after the flood" }, {
        "io.modelcontextprotocol/logLevel": "info",
      }),
    );
    const [flood, after, reply] = await s.take(3, 18_000);
    assert.equal(flood.method, "notifications/message");
    assert.match(flood.params.data, /^x+… \[\d+ more bytes cut\]$/);
    const cut = Number(/\[(\d+) more bytes cut\]/.exec(flood.params.data)![1]);
    assert.equal(
      flood.params.data.indexOf("…") + cut,
      bytes,
      "what is kept plus what is cut is the whole line",
    );
    assert.deepEqual([after.method, after.params.data], ["notifications/message", "after the flood"]);
    assert.equal(reply.id, 1);
    assert.equal(reply.result.structuredContent.data.stderr_bytes, bytes);
    assert.equal((await s.close()).code, 0);
  });

  it("stdout past --max-output-bytes keeps its end: an envelope on the last line still answers, a cut one is a clear error", async () => {
    const s = bridge("--max-output-bytes", String(1024 * 1024));
    const whole = await s.request(call(1, "noise", { stdout_bytes: 3 * 1024 * 1024, stdout_newline: true }));
    assert.equal(whole.result.isError, false, JSON.stringify(whole).slice(0, 500));
    const cut = await s.request(call(2, "noise", { stdout_bytes: 3 * 1024 * 1024 }));
    assert.equal(cut.result.isError, true);
    const { error } = cut.result.structuredContent;
    assert.equal(error.code, "GENERAL_ERROR");
    assert.match(
      error.message,
      /stdout passed the --max-output-bytes limit of 1048576 bytes; its first \d+ bytes were dropped/,
    );
    assert.ok(error.stdout_tail.length <= 2048);
    assert.equal((await s.close()).code, 0);
  });

  it("--max-output-bytes must be at least 1024", async () => {
    const result = await run([
      ...TOOLWIRE,
      "--format",
      "json",
      "mcp",
      "serve",
      "--exec",
      execLine(FAMILY),
      "--max-output-bytes",
      "10",
    ]);
    assert.equal(result.code, 2);
    assert.match(
      JSON.parse(lastLine(result.stderr)).error.message,
      /--max-output-bytes expects at least 1024, got 10/,
    );
  });
});

describe("toolwire mcp serve --exec: call time limits", () => {
  it("--call-timeout 3000000 (beyond a 32-bit timer) lets a call run", async () => {
    const s = bridge("--call-timeout", "3000000");
    const reply = await s.request(call(1, "slow", { seconds: 0.3 }));
    assert.equal(reply.result.isError, false, JSON.stringify(reply));
    assert.equal(reply.result.structuredContent.data.slept, 0.3);
    assert.equal((await s.close()).code, 0);
  });

  it("a tiny positive --call-timeout is a limit, not none", async () => {
    const s = bridge("--call-timeout", "0.0000001");
    const reply = await s.request(call(1, "slow", { seconds: 5 }));
    assert.equal(reply.result.structuredContent.error.code, "TIMEOUT");
    assert.equal((await s.close()).code, 0);
  });

  for (const value of ["-1", "NaN", "Infinity"]) {
    it(`--call-timeout ${value} is an ARG_ERROR`, async () => {
      const result = await run([
        ...TOOLWIRE,
        "--format",
        "json",
        "mcp",
        "serve",
        "--exec",
        execLine(FAMILY),
        "--call-timeout",
        value,
      ]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(JSON.parse(lastLine(result.stderr)).error.message, /--call-timeout expects/);
    });
  }
});

describe("toolwire mcp serve --exec: the environment of a bridged CLI", () => {
  const SECRET = { TOOLWIRE_TEST_SECRET: "s3cret", TOOLWIRE_TEST_OTHER: "other" };

  async function envOf(flags: string[], name: string): Promise<Loose> {
    const s = new WireSession([...TOOLWIRE, "mcp", "serve", "--exec", execLine(FAMILY), ...flags], {
      env: SECRET,
    });
    const reply = await s.request(call(1, "env", { name }));
    assert.equal((await s.close()).code, 0);
    assert.equal(reply.result.isError, false, JSON.stringify(reply));
    return reply.result.structuredContent.data;
  }

  it("by default the bridged CLI inherits the server's whole environment", async () => {
    assert.equal((await envOf([], "TOOLWIRE_TEST_SECRET")).value, "s3cret");
  });

  it("with --env-allow it gets the basics and the named variables only", async () => {
    const other = await envOf(["--env-allow", "TOOLWIRE_TEST_OTHER"], "TOOLWIRE_TEST_SECRET");
    assert.equal(other.value, null);
    assert.ok(other.names.includes("TOOLWIRE_TEST_OTHER"));
    assert.ok(other.names.includes("PATH"));
    for (const name of other.names) {
      assert.match(
        name,
        /^(TOOLWIRE_TEST_OTHER|PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|TEMP|TMP|SYSTEMROOT|WINDIR|COMSPEC|PATHEXT|USERPROFILE)$/,
      );
    }
    assert.equal(
      (await envOf(["--env-allow", "TOOLWIRE_TEST_OTHER,TOOLWIRE_TEST_SECRET"], "TOOLWIRE_TEST_SECRET"))
        .value,
      "s3cret",
    );
    assert.equal(
      (await envOf(["--env-allow", "PATH", "--env-allow", "TOOLWIRE_TEST_SECRET"], "TOOLWIRE_TEST_SECRET"))
        .value,
      "s3cret",
    );
  });

  it("an invalid --env-allow name, or --env-allow without --exec, is an ARG_ERROR", async () => {
    for (
      const [args, message] of [
        [
          ["--exec", execLine(FAMILY), "--env-allow", "A=B"],
          /--env-allow: 'A=B' is not an environment variable name/,
        ],
        [
          ["--exec", execLine(FAMILY), "--env-allow", "OK,"],
          /--env-allow: '' is not an environment variable name/,
        ],
        [["--env-allow", "PATH"], /--env-allow applies only with --exec/],
      ] as const
    ) {
      const result = await run([...TOOLWIRE, "--format", "json", "mcp", "serve", ...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(JSON.parse(lastLine(result.stderr)).error.message, message);
    }
  });
});
