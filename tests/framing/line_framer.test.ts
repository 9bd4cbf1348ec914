// The newline framer, in-process: exact frames for every way a byte stream can be cut.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type LineFrame, LineFramer } from "../../lib/framing/line_framer.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function frames(
  chunks: Uint8Array[],
  maxLineBytes?: number,
): Promise<Array<string | { oversized: number }>> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const out: Array<string | { oversized: number }> = [];
  const reader = source.pipeThrough(new LineFramer(maxLineBytes === undefined ? {} : { maxLineBytes }))
    .getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(show(value));
  }
}

function show(frame: LineFrame): string | { oversized: number } {
  return frame.kind === "line" ? decoder.decode(frame.bytes) : { oversized: frame.size };
}

describe("LineFramer", () => {
  it("gives the same lines for every split point of the input", async () => {
    const text = '{"a":1}\r\n\n{"b":"é"}\n  \n{"c":3}';
    const bytes = encoder.encode(text);
    const whole = await frames([bytes]);
    assert.deepEqual(whole, ['{"a":1}', '{"b":"é"}', "  ", '{"c":3}']);
    for (let cut = 0; cut <= bytes.length; cut++) {
      assert.deepEqual(await frames([bytes.subarray(0, cut), bytes.subarray(cut)]), whole, `cut at ${cut}`);
    }
    assert.deepEqual(
      await frames([...bytes].map((byte) => Uint8Array.of(byte))),
      whole,
      "one byte per chunk",
    );
  });

  it("drops an oversized line whole, reports its size, and goes on", async () => {
    const long = "x".repeat(50);
    assert.deepEqual(await frames([encoder.encode(`ok\n${long}\nnext\n`)], 10), [
      "ok",
      { oversized: 50 },
      "next",
    ]);
    const chunks = Array.from({ length: 20 }, () => encoder.encode("y".repeat(7)));
    assert.deepEqual(await frames([...chunks, encoder.encode("\nafter\n")], 10), [
      { oversized: 140 },
      "after",
    ]);
  });

  it("accepts a line of exactly the limit, with or without \\r", async () => {
    assert.deepEqual(await frames([encoder.encode("1234567890\n1234567890\r\n")], 10), [
      "1234567890",
      "1234567890",
    ]);
  });

  it("holds only the pending line: memory for a discarded line does not grow with its size", async () => {
    // Feed 10,000 chunks of a never-ending line past the limit; the framer must keep no parts of it.
    const framer = new LineFramer({ maxLineBytes: 64 });
    const writer = framer.writable.getWriter();
    const reader = framer.readable.getReader();
    const pending = reader.read();
    for (let i = 0; i < 10_000; i++) await writer.write(encoder.encode("z".repeat(100)));
    await writer.write(encoder.encode("\n"));
    const first = await pending;
    assert.deepEqual(first.value, { kind: "oversized", size: 1_000_000 });
    await writer.close();
  });
});
