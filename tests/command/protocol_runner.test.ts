// The two-phase protocol-command runner (REQ-C-032), on a protocol that is not MCP: the lab fixture's
// `echo-lines` upper-cases each stdin line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  finished,
  lastLine,
  onlyEnvelope,
  programArgv,
  run,
  sendSignal,
  start,
  tempDir,
  waitForOutput,
} from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

describe("protocol runner: phase 1", () => {
  it("a prepare failure exits with its declared code, stdout empty, the envelope last on stderr", async () => {
    const result = await run([...LAB, "--format", "json", "echo-lines", "--fail-prepare"], {
      stdin: "hello\n",
    });
    assert.equal(result.code, 5);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /lab: error: configuration lab.toml does not exist/);
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.error.code, "NOT_FOUND");
    assert.equal(envelope.meta.exit_code, 5);
  });

  it("a declared command-specific code keeps its declared name, retryable and the error's data", async () => {
    const result = await run([...LAB, "--format", "json", "echo-lines", "--fail-code", "81"], { stdin: "" });
    assert.equal(result.code, 81);
    assert.equal(result.stdout, "");
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.error.code, "STALE_CONFIG");
    assert.equal(envelope.error.retryable, true);
    assert.deepEqual(envelope.data, { asked: 81 });
    assert.deepEqual(envelope.warnings, []);
  });

  it("an undeclared code exits 1 with an UNDECLARED_EXIT_CODE warning, as an ordinary command's does", async () => {
    const result = await run([...LAB, "--format", "json", "echo-lines", "--fail-code", "12"], { stdin: "" });
    assert.equal(result.code, 1);
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.meta.exit_code, 1);
    assert.equal(envelope.warnings.length, 1);
    assert.equal(envelope.warnings[0].code, "UNDECLARED_EXIT_CODE");
    assert.equal(envelope.warnings[0].exit_code, 12);
    const plain = await run([...LAB, "--format", "plain", "echo-lines", "--fail-code", "12"], { stdin: "" });
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /warning: echo-lines raised exit code 12, which it does not declare/);
  });

  it("in plain format the failure is only plain text on stderr", async () => {
    const result = await run([...LAB, "--format", "plain", "echo-lines", "--fail-prepare"], { stdin: "" });
    assert.equal(result.code, 5);
    assert.equal(result.stdout, "");
    assert.doesNotMatch(result.stderr, /^\{/m);
  });

  it("the timeout covers preparing: a slow prepare exits 10 and never serves", async () => {
    const result = await run([
      ...LAB,
      "--format",
      "json",
      "echo-lines",
      "--prepare-ms",
      "5000",
      "--timeout",
      "0.2",
    ], { stdin: "x\n" });
    assert.equal(result.code, 10);
    assert.equal(result.stdout, "");
    assert.equal(JSON.parse(lastLine(result.stderr)).error.code, "TIMEOUT");
  });

  for (const flag of ["--idempotency-key=k", "--dry-run", "--output=x", "--confirm-destructive"]) {
    it(`refuses ${flag} with exit 2 before serving`, async () => {
      const result = await run([...LAB, "--format", "json", "echo-lines", flag], { stdin: "x\n" });
      assert.equal(result.code, 2);
      assert.equal(result.stdout, "");
      const envelope = JSON.parse(lastLine(result.stderr));
      assert.equal(envelope.error.code, "ARG_ERROR");
      assert.match(envelope.error.message, /does not accept --/);
    });
  }
});

describe("protocol runner: phase 2", () => {
  it("serves until EOF, then exits 0 with nothing on stderr", async () => {
    const result = await run([...LAB, "--format", "json", "echo-lines"], { stdin: "one\ntwo\n" });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "ONE\nTWO\n");
    assert.equal(result.stderr, "");
  });

  it("console.log and process.stdout.write while serving go to stderr, never into the protocol", async () => {
    const result = await run([...LAB, "echo-lines", "--stray"], { stdin: "a\nb\n" });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "A\nB\n");
    assert.match(result.stderr, /stray: a\n/);
    assert.match(result.stderr, /stray write: b\n/);
  });

  it("SIGTERM while serving exits 143 with the envelope last on stderr", async () => {
    const child = start([...LAB, "--format", "json", "echo-lines"]);
    const done = finished(child);
    child.stdin!.write("ping\n");
    await waitForOutput(child, "stdout", "PING\n");
    sendSignal(child, "SIGTERM");
    const result = await done;
    assert.equal(result.code, 143);
    assert.equal(result.stdout, "PING\n");
    const envelope = JSON.parse(lastLine(result.stderr));
    assert.equal(envelope.error.code, "CANCELLED");
    assert.equal(envelope.error.context.signal, "SIGTERM");
  });

  it("an idle server outlives the timeout once serving began", async () => {
    const child = start([...LAB, "echo-lines", "--timeout", "0.3"]);
    const done = finished(child);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    child.stdin!.write("still here\n");
    await waitForOutput(child, "stdout", "STILL HERE\n");
    child.stdin!.end();
    const result = await done;
    assert.equal(result.code, 0);
  });
});

describe("--output for commands that declare output_file", () => {
  it("writes data to the file and reports where", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "report.json");
      const result = await run([...LAB, "export", "--rows", "3", "--output", file]);
      assert.equal(result.code, 0);
      const envelope = onlyEnvelope(result.stdout);
      assert.equal(envelope.data.output, file);
      assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { rows: [{ n: 0 }, { n: 1 }, { n: 2 }] });
      assert.equal(envelope.data.bytes, readFileSync(file).length);
    } finally {
      dir.cleanup();
    }
  });

  it("commands without output_file do not take --output", async () => {
    const result = await run([...LAB, "echo", "--text", "x", "--output", "/tmp/nope"]);
    assert.equal(result.code, 2);
  });
});
