// `--output <file>` on a command that declares output_file (the lab fixture's `export`, whose --marker file
// shows whether the handler ran). A target that cannot be written is an ARG_ERROR before anything runs; a
// write that fails after the command ran is one envelope with a declared code, the result kept in data. The
// tests run as root in CI, where permission bits block nothing: the bad targets are made of directories,
// regular files in the way, a FIFO and /proc.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { onlyEnvelope, programArgv, run, tempDir } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

function assertNoStackTrace(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at |internal error/m, stderr);
}

/** A temporary directory holding a directory, a regular file and a FIFO, and where the marker would go. */
function workspace(): { path: string; marker: string; cleanup: () => void } {
  const dir = tempDir();
  mkdirSync(join(dir.path, "dir"));
  writeFileSync(join(dir.path, "file"), "in the way");
  execFileSync("mkfifo", [join(dir.path, "fifo")]);
  return { path: dir.path, marker: join(dir.path, "marker"), cleanup: dir.cleanup };
}

describe("--output that cannot be written: exit 2 ARG_ERROR, one envelope, the command never ran", () => {
  const targets: Array<[what: string, target: (dir: string) => string, message: RegExp]> = [
    ["a directory", (dir) => join(dir, "dir"), /is a directory/],
    [
      "a path whose directory does not exist",
      (dir) => join(dir, "missing", "report.json"),
      /the directory '.*missing' does not exist/,
    ],
    [
      "a path whose parent is a regular file",
      (dir) => join(dir, "file", "report.json"),
      /'.*file' is not a directory/,
    ],
    ["an empty path", () => "", /--output expects a file path, got ''/],
    ["a FIFO", (dir) => join(dir, "fifo"), /is not a regular file/],
    [
      "a file in /proc, where nothing can be created",
      () => "/proc/version",
      /cannot create a file in '\/proc'/,
    ],
    ["a new file under /proc/self", () => "/proc/self/report.json", /cannot create a file in '\/proc\/self'/],
  ];
  for (const [what, target, message] of targets) {
    it(what, async () => {
      const dir = workspace();
      try {
        const before = readdirSync(dir.path).sort();
        const result = await run([
          ...LAB,
          "--format",
          "json",
          "export",
          "--marker",
          dir.marker,
          "--output",
          target(dir.path),
        ]);
        assert.equal(result.code, 2, result.stderr);
        const envelope = onlyEnvelope(result.stdout);
        assert.equal(envelope.error.code, "ARG_ERROR");
        assert.equal(envelope.error.phase, "validation");
        assert.equal(envelope.meta.exit_code, 2);
        assert.equal(envelope.error.issues[0].field, "--output");
        assert.match(envelope.error.message, message);
        assert.equal(existsSync(dir.marker), false, "the handler must not have run");
        assert.deepEqual(readdirSync(dir.path).sort(), before, "nothing created, nothing left behind");
        assert.equal(result.stderr, "");
      } finally {
        dir.cleanup();
      }
    });
  }

  it("every problem is reported together, and in plain format as text on stderr", async () => {
    const dir = workspace();
    try {
      const bad = join(dir.path, "dir");
      const json = await run([
        ...LAB,
        "--format",
        "json",
        "export",
        "--rows",
        "x",
        "--marker",
        dir.marker,
        "--output",
        bad,
      ]);
      assert.equal(json.code, 2);
      assert.deepEqual(
        onlyEnvelope(json.stdout).error.issues.map((issue: { field: string }) => issue.field),
        ["--rows", "--output"],
      );
      const plain = await run([
        ...LAB,
        "--format",
        "plain",
        "export",
        "--marker",
        dir.marker,
        "--output",
        bad,
      ]);
      assert.equal(plain.code, 2);
      assert.equal(plain.stdout, "");
      assert.match(plain.stderr, /lab: error: --output '.*dir' is a directory/);
      assertNoStackTrace(plain.stderr);
      assert.equal(existsSync(dir.marker), false);
    } finally {
      dir.cleanup();
    }
  });
});

describe("--output that fails after the command ran", () => {
  it("a directory appearing at the target meanwhile: exit 1 OUTPUT_WRITE_FAILED, one envelope, the result in data", async () => {
    const dir = workspace();
    try {
      const file = join(dir.path, "report.json");
      // The handler itself puts a directory where the file is to go: the check before running passed.
      const result = await run([
        ...LAB,
        "--format",
        "json",
        "export",
        "--rows",
        "2",
        "--marker",
        dir.marker,
        "--mkdir",
        file,
        "--output",
        file,
      ]);
      assert.equal(result.code, 1, result.stderr);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.ok, false);
      assert.equal(envelope.error.code, "OUTPUT_WRITE_FAILED");
      assert.equal(envelope.meta.exit_code, 1);
      assert.match(envelope.error.message, /could not be written to '.*report\.json'/);
      assert.deepEqual(envelope.data, { rows: [{ n: 0 }, { n: 1 }] }, "the result is not lost");
      assertNoStackTrace(result.stderr);
      assert.equal(existsSync(dir.marker), true, "the handler ran once");
      assert.deepEqual(
        readdirSync(dir.path).filter((name) => name.endsWith(".tmp")),
        [],
        "no temporary file left",
      );
    } finally {
      dir.cleanup();
    }
  });

  it("in plain format: the data, then the error on stderr, exit 1", async () => {
    const dir = workspace();
    try {
      const file = join(dir.path, "report.json");
      const result = await run([
        ...LAB,
        "--format",
        "plain",
        "export",
        "--rows",
        "1",
        "--mkdir",
        file,
        "--output",
        file,
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, "rows:\n  n\n  0\n");
      assert.match(result.stderr, /could not be written/);
      assertNoStackTrace(result.stderr);
    } finally {
      dir.cleanup();
    }
  });
});
