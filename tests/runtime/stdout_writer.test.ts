// The process's stdout writer (`stdioWrite("stdout")`), in a real process on each runtime: writes that start
// while a long one is still in progress each arrive whole, and none of them corrupts the long one.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { finished, programArgv, start } from "../helpers/run.ts";

const WRITES = programArgv("tests/fixtures/stdout_writes.ts");

/** `bytes` without the one occurrence of `part`; fails when `part` is not there exactly once. */
function without(bytes: Buffer, part: string): Buffer {
  const needle = Buffer.from(part);
  const at = bytes.indexOf(needle);
  assert.notEqual(at, -1, `${JSON.stringify(part)} arrived whole`);
  assert.equal(bytes.indexOf(needle, at + 1), -1, `${JSON.stringify(part)} arrived once`);
  return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + needle.length)]);
}

describe("stdout writer", () => {
  it("writes started during a long write arrive whole, and the long one arrives intact", async () => {
    const child = start(WRITES);
    const chunks: Buffer[] = [];
    child.stdout!.on("data", (chunk: Buffer) => chunks.push(chunk));
    const result = await finished(child);
    child.stdin!.destroy();
    assert.equal(result.code, 0, result.stderr);
    // A short write to a pipe is atomic, but it may land between the long text's pieces, or inside one (even
    // inside a character): compare bytes, with the short ones taken out.
    const rest = without(without(Buffer.concat(chunks), "second\n"), "third\n");
    assert.ok(rest.equals(Buffer.from(`${"a€𝄞".repeat(40_000)}\n`)), "the long write arrived intact");
  });
});
