// The process's stdin reader (`processChannel().read`), in a real process on each runtime: what a read with an
// abort signal hands out, and that a fired signal ends reading for good while stdin stays open.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { finished, programArgv, start, waitForOutput } from "../helpers/run.ts";

const READS = programArgv("tests/fixtures/stdin_reads.ts");

describe("stdin reader", () => {
  it("a read ends at its own signal only, and once ended reading is over while stdin stays open", async () => {
    const child = start(READS);
    const done = finished(child);
    child.stdin!.write("one\n");
    await waitForOutput(child, "stdout", "waiting");
    child.stdin!.write("two\n");
    await waitForOutput(child, "stdout", "over");
    child.stdin!.write("three\n");
    const result = await done;
    child.stdin!.destroy();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split("\n"), [
      "chunk:one",
      "waiting",
      "chunk:two",
      "aborted:null",
      "over",
      "after:null",
      "after:null",
    ]);
  });
});
