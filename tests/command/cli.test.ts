// End-to-end behaviour of the command framework: every test spawns the real `notes` example or the `lab`
// fixture and reads what a script or an agent would read.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  finished,
  NOTES,
  onlyEnvelope,
  programArgv,
  run,
  sendSignal,
  start,
  tempDir,
  waitForOutput,
} from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

describe("notes: one envelope per invocation", () => {
  it("`--format json add --title x` prints exactly one envelope line and exits 0", async () => {
    const home = tempDir();
    try {
      const result = await run([...NOTES, "--format", "json", "add", "--title", "x"], {
        env: { NOTES_HOME: home.path },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.split("\n").filter(Boolean).length, 1);
      const envelope = onlyEnvelope(result.stdout);
      assert.deepEqual(Object.keys(envelope), ["ok", "data", "error", "warnings", "meta"]);
      assert.equal(envelope.ok, true);
      assert.equal(envelope.error, null);
      assert.equal(envelope.data.effect, "created");
      assert.equal(envelope.data.note.title, "x");
      assert.equal(envelope.meta.exit_code, 0);
      assert.equal(typeof envelope.meta.duration_ms, "number");
    } finally {
      home.cleanup();
    }
  });

  it("a bad flag exits 2 with an ARG_ERROR envelope and leaves NOTES_HOME untouched", async () => {
    const home = tempDir();
    const notesHome = join(home.path, "notes-home");
    try {
      const result = await run([...NOTES, "add", "--title", "x", "--limit", "3"], {
        env: { NOTES_HOME: notesHome },
      });
      assert.equal(result.code, 2);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.ok, false);
      assert.equal(envelope.error.code, "ARG_ERROR");
      assert.equal(envelope.error.phase, "validation");
      assert.match(envelope.error.message, /unknown flag --limit/);
      assert.equal(existsSync(notesHome), false, "nothing may be created on a validation failure");
    } finally {
      home.cleanup();
    }
  });

  it("collects every input error before anything runs, and names the closest known flag", async () => {
    const result = await run([...NOTES, "add", "--titel", "x", "--bogus"]);
    assert.equal(result.code, 2);
    const { error } = onlyEnvelope(result.stdout);
    const messages = error.issues.map((issue: { message: string }) => issue.message);
    assert.deepEqual(messages, [
      "unknown flag --titel",
      "unknown flag --bogus",
      "--title is required",
      "unexpected argument 'x'",
    ]);
    assert.equal(error.issues[0].suggestion, "did you mean --title?");
  });

  it("a boolean flag with a non-boolean value is refused with the exact message", async () => {
    const result = await run([...LAB, "types", "--bool=maybe", "w"]);
    assert.equal(result.code, 2);
    assert.equal(onlyEnvelope(result.stdout).error.message, "--bool expects a boolean, got 'maybe'");
  });

  it("accepts global flags before and after the command words", async () => {
    const home = tempDir();
    try {
      const before = await run([...NOTES, "--format", "json", "list"], { env: { NOTES_HOME: home.path } });
      const after = await run([...NOTES, "list", "--format=json"], { env: { NOTES_HOME: home.path } });
      assert.equal(before.code, 0);
      assert.deepEqual(onlyEnvelope(before.stdout).data, []);
      assert.deepEqual(onlyEnvelope(after.stdout).data, []);
    } finally {
      home.cleanup();
    }
  });

  it("show of a missing note exits 5 NOT_FOUND", async () => {
    const home = tempDir();
    try {
      const result = await run([...NOTES, "show", "41"], { env: { NOTES_HOME: home.path } });
      assert.equal(result.code, 5);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.error.code, "NOT_FOUND");
      assert.equal(envelope.error.retryable, false);
    } finally {
      home.cleanup();
    }
  });

  it("an unknown command is an ARG_ERROR naming the closest command", async () => {
    const result = await run([...NOTES, "lst"]);
    assert.equal(result.code, 2);
    const { error } = onlyEnvelope(result.stdout);
    assert.equal(error.message, "unknown command 'lst'");
    assert.equal(error.suggestion, "did you mean 'list'?");
  });
});

describe("notes: formats", () => {
  it("json is the default off a terminal; NOTES_FORMAT=plain switches to readable text", async () => {
    const home = tempDir();
    try {
      await run([...NOTES, "add", "--title", "milk", "--tag", "home"], { env: { NOTES_HOME: home.path } });
      const json = await run([...NOTES, "list"], { env: { NOTES_HOME: home.path } });
      assert.equal(onlyEnvelope(json.stdout).data[0].title, "milk");
      const plain = await run([...NOTES, "list"], { env: { NOTES_HOME: home.path, NOTES_FORMAT: "plain" } });
      assert.equal(plain.code, 0);
      assert.match(plain.stdout, /^id\s+title\s+tags\n1\s+milk\s+home\n$/);
    } finally {
      home.cleanup();
    }
  });

  it("plain errors go to stderr with the next step; stdout stays empty", async () => {
    const result = await run([...NOTES, "--format", "plain", "show", "x"]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /notes: error: <id> expects an integer, got 'x'/);
  });

  it("an invalid NOTES_FORMAT is an ARG_ERROR", async () => {
    const result = await run([...NOTES, "list"], { env: { NOTES_FORMAT: "yaml" } });
    assert.equal(result.code, 2);
    assert.match(
      onlyEnvelope(result.stdout).error.message,
      /NOTES_FORMAT expects one of json, plain, got 'yaml'/,
    );
  });
});

describe("notes: --help, --schema, --version are pure", () => {
  it("--help prints help to stdout, exits 0, and never reads stdin", async () => {
    // stdin stays open and unwritten: a command that read it would hang and be killed.
    const result = await run([...NOTES, "add", "--help"], { timeoutMs: 10_000 });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Usage: notes add \[flags\]/);
    assert.match(result.stdout, /--title <string>/);
    assert.match(result.stdout, /Exit codes:/);
  });

  it("--help on the tool lists every command", async () => {
    const result = await run([...NOTES, "--help"]);
    assert.equal(result.code, 0);
    for (const command of ["add", "list", "show", "remove", "init", "manifest", "mcp serve"]) {
      assert.match(result.stdout, new RegExp(`\\n  ${command} `), command);
    }
  });

  it("--schema prints the command's manifest entry", async () => {
    const result = await run([...NOTES, "remove", "--schema"]);
    assert.equal(result.code, 0);
    const entry = onlyEnvelope(result.stdout).data;
    assert.equal(entry.danger_level, "destructive");
    assert.equal(entry.requires_confirmation, true);
    assert.ok(entry.flags["dry-run"] && entry.flags["confirm-destructive"] && entry.flags["idempotency-key"]);
  });

  it("--version prints the tool and framework versions", async () => {
    const result = await run([...NOTES, "--version"]);
    assert.equal(result.code, 0);
    const { data } = onlyEnvelope(result.stdout);
    assert.equal(data.name, "notes");
    assert.equal(data.version, "1.0.0");
    assert.match(data.framework_version, /^\d+\.\d+\.\d+$/);
  });
});

describe("notes: destructive commands preview, confirm, and dry-run", () => {
  it("remove without --confirm-destructive exits 2 CONFIRMATION_REQUIRED with a preview and deletes nothing", async () => {
    const home = tempDir();
    const env = { NOTES_HOME: home.path };
    try {
      await run([...NOTES, "add", "--title", "keep me"], { env });
      const refused = await run([...NOTES, "remove", "1"], { env });
      assert.equal(refused.code, 2);
      const { error } = onlyEnvelope(refused.stdout);
      assert.equal(error.code, "CONFIRMATION_REQUIRED");
      assert.equal(error.preview.effect, "would_delete");
      assert.equal(error.preview.would_affect.notes[0].title, "keep me");

      const dry = await run([...NOTES, "remove", "1", "--dry-run"], { env });
      assert.equal(dry.code, 0);
      assert.equal(onlyEnvelope(dry.stdout).data.effect, "would_delete");
      assert.equal(onlyEnvelope((await run([...NOTES, "list"], { env })).stdout).data.length, 1);

      const confirmed = await run([...NOTES, "rm", "1", "--confirm-destructive"], { env });
      assert.equal(confirmed.code, 0);
      assert.equal(onlyEnvelope(confirmed.stdout).data.effect, "deleted");
      assert.equal(onlyEnvelope((await run([...NOTES, "list"], { env })).stdout).data.length, 0);
    } finally {
      home.cleanup();
    }
  });
});

describe("notes: --idempotency-key", () => {
  it("a replay returns the original data with effect noop; other arguments with the same key exit 6", async () => {
    const home = tempDir();
    const env = { NOTES_HOME: home.path };
    try {
      const first = onlyEnvelope(
        (await run([...NOTES, "add", "--title", "once", "--idempotency-key", "k-1"], { env })).stdout,
      );
      const replay = await run([...NOTES, "add", "--title", "once", "--idempotency-key", "k-1"], { env });
      assert.equal(replay.code, 0);
      const second = onlyEnvelope(replay.stdout);
      assert.equal(second.data.effect, "noop");
      assert.deepEqual(second.data.note, first.data.note);
      assert.equal(second.meta.idempotency_hit, true);
      assert.equal(
        onlyEnvelope((await run([...NOTES, "list"], { env })).stdout).data.length,
        1,
        "the replay must not add",
      );

      const conflict = await run([...NOTES, "add", "--title", "other", "--idempotency-key", "k-1"], { env });
      assert.equal(conflict.code, 6);
      assert.equal(onlyEnvelope(conflict.stdout).error.code, "IDEMPOTENCY_CONFLICT");
      const stored = readdirSync(join(home.path, ".idempotency"));
      assert.equal(stored.length, 1);
      assert.match(stored[0]!, /^[0-9a-f]{64}\.json$/);
      assert.equal(
        JSON.parse(readFileSync(join(home.path, ".idempotency", stored[0]!), "utf8")).command,
        "add",
      );
    } finally {
      home.cleanup();
    }
  });

  it("safe commands do not take --idempotency-key", async () => {
    const result = await run([...NOTES, "list", "--idempotency-key", "k"]);
    assert.equal(result.code, 2);
    assert.match(onlyEnvelope(result.stdout).error.message, /unknown flag --idempotency-key/);
  });
});

describe("lab: timeouts", () => {
  it("a handler that never returns and ignores its signal still ends with exit 10 TIMEOUT", async () => {
    const result = await run([...LAB, "hang", "--timeout", "0.3"]);
    assert.equal(result.code, 10);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "TIMEOUT");
    assert.equal(envelope.error.retryable, true, "a safe command's TIMEOUT has no side effects");
    assert.equal(envelope.meta.timeout_ms, 300);
    assert.ok(envelope.meta.duration_ms >= 300);
  });

  it("a handler stuck in a blocking fs call (opening a FIFO nobody writes) still ends with exit 10, envelope flushed", async () => {
    const dir = tempDir();
    try {
      const fifo = join(dir.path, "never-written");
      execFileSync("mkfifo", [fifo]);
      for (const format of ["json", "plain"]) {
        // The runner's own limit is far above the command's: a run that does not exit fails on its code.
        const result = await run([
          ...LAB,
          "--format",
          format,
          "read-file",
          "--path",
          fifo,
          "--timeout",
          "0.5",
        ], {
          timeoutMs: 15_000,
        });
        assert.equal(result.code, 10, `${format}: ${result.stdout}${result.stderr}`);
        if (format === "json") assert.equal(onlyEnvelope(result.stdout).error.code, "TIMEOUT");
        else assert.match(result.stderr, /lab: error: read-file exceeded its time limit of 0\.5 s/);
      }
      // The FIFO is still a FIFO, and nothing was written into it.
      assert.ok(statSync(fifo).isFIFO());
    } finally {
      dir.cleanup();
    }
  });

  it("--timeout 0 means no limit, and the default limit is recorded in meta.timeout_ms", async () => {
    const result = await run([...LAB, "sleep", "--ms", "50", "--timeout", "0"]);
    assert.equal(result.code, 0);
    assert.equal(onlyEnvelope(result.stdout).meta.timeout_ms, 0);
    const defaulted = await run([...LAB, "sleep", "--ms", "1"]);
    assert.equal(onlyEnvelope(defaulted.stdout).meta.timeout_ms, 60_000);
  });

  it("a negative --timeout is an ARG_ERROR", async () => {
    const result = await run([...LAB, "sleep", "--timeout", "-1"]);
    assert.equal(result.code, 2);
  });
});

describe("lab: signals", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
    it(`${signal} during a slow command exits ${code} with one CANCELLED envelope, after cleanup ran`, async () => {
      const dir = tempDir();
      const marker = join(dir.path, "marker");
      try {
        const child = start([...LAB, "sleep", "--marker", marker]);
        const done = finished(child);
        await waitForOutput(child, "stderr", "sleeping");
        sendSignal(child, signal);
        const result = await done;
        assert.equal(result.code, code, result.stderr);
        const envelope = onlyEnvelope(result.stdout);
        assert.equal(envelope.error.code, "CANCELLED");
        assert.equal(envelope.error.context.signal, signal);
        assert.equal(envelope.meta.exit_code, code);
        assert.equal(readFileSync(marker, "utf8"), "cleaned up");
      } finally {
        dir.cleanup();
      }
    });
  }

  it("a second signal exits at once and writes nothing more", async () => {
    const child = start([...LAB, "hang"]);
    const done = finished(child);
    await waitForOutput(child, "stderr", "hanging");
    sendSignal(child, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    sendSignal(child, "SIGTERM");
    const result = await done;
    assert.equal(result.code, 143);
    assert.equal(
      result.stdout,
      "",
      "the first signal's envelope waits for cleanup; the second ends before it",
    );
  });
});

describe("lab: output integrity", () => {
  it("a 1 MB result arrives whole through a pipe (no 64 KiB truncation at exit)", async () => {
    const result = await run([...LAB, "spew", "--bytes", "1000000"]);
    assert.equal(result.code, 0);
    assert.equal(onlyEnvelope(result.stdout).data.text.length, 1_000_000);
  });

  it("console.log in a handler goes to stderr; stdout holds only the envelope", async () => {
    const result = await run([...LAB, "noisy"]);
    assert.equal(result.code, 0);
    assert.equal(onlyEnvelope(result.stdout).data.quiet, false);
    assert.match(result.stderr, /stray prose from a handler/);
  });

  it("a broken stdout pipe ends the process quietly", async () => {
    const child = start([...LAB, "spew", "--bytes", "20000000"]);
    child.stdout!.destroy();
    const result = await finished(child);
    assert.doesNotMatch(result.stderr, /EPIPE|BrokenPipe|Error/);
    assert.equal(result.code, 0);
  });
  // `> /dev/full`: every write fails with ENOSPC. Unlike a reader that went away, that loses output someone
  // was to read.
  const toDevFull = (argv: readonly string[]) => ["sh", "-c", 'exec "$@" > /dev/full', "sh", ...argv];
  const LOST =
    /^notes: error: stdout could not be written \((ENOSPC|No space left on device).*\); what the command printed is lost$/m;

  it("stdout that cannot be written (ENOSPC, > /dev/full) is exit 1 with the reason on stderr, in every format", async () => {
    for (
      const argv of [
        ["completions", "bash"],
        ["--format", "json", "list"],
        ["--format", "plain", "list"],
      ]
    ) {
      const home = tempDir();
      try {
        const result = await run(toDevFull([...NOTES, ...argv]), { env: { NOTES_HOME: home.path } });
        assert.equal(result.code, 1, `${argv.join(" ")}: ${result.stderr}`);
        assert.match(result.stderr, LOST, argv.join(" "));
      } finally {
        home.cleanup();
      }
    }
  });

  it("a protocol server whose stdout cannot be written ends with exit 1 and the reason, not a clean 0", async () => {
    const initialize =
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';
    const result = await run(toDevFull([...NOTES, "mcp", "serve"]), { stdin: initialize });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, LOST);
  });
});

describe("lab: exit codes", () => {
  it("a declared command-specific code is used with its declared retryable", async () => {
    const result = await run([...LAB, "fail", "--code", "80"]);
    assert.equal(result.code, 80);
    const { error } = onlyEnvelope(result.stdout);
    assert.equal(error.retryable, true);
    assert.equal(error.message, "failing with 80 as asked");
  });

  it("an undeclared code is reported as GENERAL_ERROR with a warning, keeping the manifest exhaustive", async () => {
    const result = await run([...LAB, "fail", "--code", "12"]);
    assert.equal(result.code, 1);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal((envelope.warnings[0] as { code: string }).code, "UNDECLARED_EXIT_CODE");
  });

  for (const async of [false, true]) {
    it(`data that JSON makes no object or array is GENERAL_ERROR naming it${async ? " (async)" : ""}`, async () => {
      for (
        const [kind, named] of [
          ["string", /returned a string as its data;/],
          ["number", /returned a number as its data;/],
          ["date", /returned a Date as its data, which JSON turns into a string;/],
          ["function", /returned a function as its data;/],
        ] as const
      ) {
        const result = await run([...LAB, "shape", "--kind", kind, ...(async ? ["--async"] : [])]);
        assert.equal(result.code, 1, `${kind}: ${result.stdout}`);
        const envelope = onlyEnvelope(result.stdout);
        assert.equal(envelope.ok, false);
        assert.equal(envelope.data, null);
        assert.equal(envelope.error.code, "GENERAL_ERROR");
        assert.match(envelope.error.message, named);
      }
      // A Map is an object to JSON (an empty one): that is data.
      const map = await run([...LAB, "shape", "--kind", "map", ...(async ? ["--async"] : [])]);
      assert.equal(map.code, 0, map.stdout);
      assert.deepEqual(onlyEnvelope(map.stdout).data, {});
    });
  }

  it("an exception is GENERAL_ERROR: envelope on stdout, stack on stderr", async () => {
    const result = await run([...LAB, "crash"]);
    assert.equal(result.code, 1);
    assert.equal(onlyEnvelope(result.stdout).error.code, "GENERAL_ERROR");
    assert.match(result.stderr, /TypeError: boom/);
  });
});

describe("lab: flag forms", () => {
  it("parses --a=b, --a b, short flags, clusters, negative numbers, repeats, enums and --", async () => {
    const result = await run([
      ...LAB,
      "types",
      "-s",
      "text",
      "-i",
      "-5",
      "--num=2.5",
      "-bv",
      "--arr",
      "a",
      "--arr=b",
      "--color",
      "green",
      "--",
      "-first",
    ]);
    assert.equal(result.code, 0, result.stdout);
    const { data } = onlyEnvelope(result.stdout);
    assert.deepEqual(data.flags, {
      str: "text",
      int: -5,
      num: 2.5,
      bool: true,
      verbose: true,
      arr: ["a", "b"],
      color: "green",
    });
    assert.deepEqual(data.args, { first: "-first" });
  });

  it("--no-<flag> sets a boolean false; defaults fill what is absent", async () => {
    const result = await run([...LAB, "types", "--no-bool", "one", "two"]);
    const { data } = onlyEnvelope(result.stdout);
    assert.equal(data.flags.bool, false);
    assert.equal(data.flags.color, "red");
    assert.deepEqual(data.flags.arr, []);
    assert.deepEqual(data.args, { first: "one", second: "two" });
  });

  it("type errors name the flag, the expectation and the value", async () => {
    const result = await run([...LAB, "types", "-i", "1.5", "--num", "x", "--color", "gren", "--str"]);
    assert.equal(result.code, 2);
    const messages = onlyEnvelope(result.stdout).error.issues.map((issue: { message: string }) =>
      issue.message
    );
    assert.deepEqual(messages, [
      "-i expects an integer, got '1.5'",
      "--num expects a number, got 'x'",
      "--color expects one of red, green, blue, got 'gren'",
      "--str expects a value",
      "missing argument <first>",
    ]);
  });

  it("a non-array flag given twice is refused", async () => {
    const result = await run([...LAB, "types", "--str", "a", "--str", "b", "w"]);
    assert.equal(result.code, 2);
    assert.match(onlyEnvelope(result.stdout).error.message, /--str was given more than once/);
  });
});
