// `mcp listen --confirmation-secret-file` and `--state-store` are checked before anything listens
// (docs/scaling.md): a secret file that is missing, not a regular file (a directory, a FIFO: never waited
// on), readable by others, too short or too long is ARG_ERROR, and no message shows its content; a store
// address that is not redis://host:port/db is ARG_ERROR; a store that does not answer is UNAVAILABLE (12,
// retryable), its password never printed. On the tool's own `mcp listen` and on `toolwire mcp listen --exec`.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOTES, onlyEnvelope, run, tempDir } from "../helpers/run.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

const KEY = "s3cr3t-".repeat(8);
const ADDRESS = "http://127.0.0.1:0/mcp";

const LISTENERS = [
  { name: "notes mcp listen", argv: (flags: string[]) => [...NOTES, "mcp", "listen", ...flags, ADDRESS] },
  {
    name: "toolwire mcp listen --exec notes",
    argv: (flags: string[]) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(NOTES), ...flags, ADDRESS],
  },
] as const;

/** Runs the listener and checks it refused with `exitCode` and `code`, printing one envelope and no secret. */
async function refused(argv: string[], exitCode: number, code: string, home: string): Promise<string> {
  const result = await run(argv, { env: { NOTES_HOME: home } });
  assert.equal(result.code, exitCode, result.stdout + result.stderr);
  const envelope = onlyEnvelope(result.stdout);
  assert.equal(envelope.error.code, code);
  for (const secret of [KEY, "hunter2"]) {
    assert.ok(!(result.stdout + result.stderr).includes(secret), "the secret is never printed");
  }
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  return envelope.error.message;
}

for (const listener of LISTENERS) {
  describe(`${listener.name}: the fleet flags are checked before anything listens`, () => {
    it("a secret file that is missing, a directory, a FIFO, shared, too short or too long is ARG_ERROR", async () => {
      const dir = tempDir();
      try {
        const file = (name: string, content: string, mode = 0o600) => {
          const path = join(dir.path, name);
          writeFileSync(path, content);
          chmodSync(path, mode);
          return path;
        };
        const cases: Array<[string, RegExp]> = [
          [join(dir.path, "absent"), /does not exist/],
          [file("shared", `${KEY}\n`, 0o644), /can be read or written by others/],
          [file("short", "x".repeat(31)), /holds 31 bytes/],
          [file("long", "x".repeat(4097)), /more than 4096 bytes/],
        ];
        const directory = join(dir.path, "directory");
        mkdirSync(directory, { mode: 0o700 });
        cases.push([directory, /not a regular file/]);
        const fifo = join(dir.path, "fifo");
        if (spawnSync("mkfifo", ["-m", "600", fifo]).status === 0) cases.push([fifo, /not a regular file/]);
        for (const [path, why] of cases) {
          const message = await refused(
            listener.argv(["--confirmation-secret-file", path]),
            2,
            "ARG_ERROR",
            dir.path,
          );
          assert.match(message, why, path);
        }
        const good = file("good", `${KEY}\n`);
        const result = await run(listener.argv(["--dry-run", "--confirmation-secret-file", good]), {
          env: { NOTES_HOME: dir.path },
        });
        assert.equal(result.code, 0, result.stdout + result.stderr);
        assert.equal(onlyEnvelope(result.stdout).data.effect, "would_listen");
      } finally {
        dir.cleanup();
      }
    });

    it("a --state-store that is not redis://host:port/db is ARG_ERROR, even with --dry-run", async () => {
      const dir = tempDir();
      try {
        for (
          const address of ["http://127.0.0.1:6379/0", "redis://127.0.0.1:6379/zero", "redis:///0", "6379"]
        ) {
          const message = await refused(
            listener.argv(["--dry-run", "--state-store", address]),
            2,
            "ARG_ERROR",
            dir.path,
          );
          assert.match(message, /--state-store expects redis:\/\//);
        }
      } finally {
        dir.cleanup();
      }
    });
  });
}

describe("a --state-store that does not answer", () => {
  it("is UNAVAILABLE (12, retryable) and the server does not start; the address is shown without its password", async () => {
    const dir = tempDir();
    try {
      const argv = LISTENERS[0].argv(["--state-store", "redis://:hunter2@127.0.0.1:1/0"]);
      const result = await run(argv, { env: { NOTES_HOME: dir.path } });
      assert.equal(result.code, 12, result.stdout + result.stderr);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.error.retryable, true);
      assert.match(envelope.error.message, /redis:\/\/127\.0\.0\.1:1\/0/);
      assert.ok(!(result.stdout + result.stderr).includes("hunter2"));
    } finally {
      dir.cleanup();
    }
  });
});
