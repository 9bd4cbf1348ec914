// The newline framer and the serial writer, in-process: exact frames for every way a byte stream can be cut.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type LineFrame, LineFramer } from "../../lib/framing/line_framer.ts";
import { streamSink } from "../../lib/runtime/byte_channel.ts";
import { SerialWriter } from "../../lib/framing/serial_writer.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function frames(chunks: Uint8Array[], maxLineBytes?: number): Promise<Array<string | { oversized: number }>> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const out: Array<string | { oversized: number }> = [];
  const reader = source.pipeThrough(new LineFramer(maxLineBytes === undefined ? {} : { maxLineBytes })).getReader();
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
    assert.deepEqual(await frames([...bytes].map((byte) => Uint8Array.of(byte))), whole, "one byte per chunk");
  });

  it("drops an oversized line whole, reports its size, and goes on", async () => {
    const long = "x".repeat(50);
    assert.deepEqual(await frames([encoder.encode(`ok\n${long}\nnext\n`)], 10), ["ok", { oversized: 50 }, "next"]);
    const chunks = Array.from({ length: 20 }, () => encoder.encode("y".repeat(7)));
    assert.deepEqual(await frames([...chunks, encoder.encode("\nafter\n")], 10), [{ oversized: 140 }, "after"]);
  });

  it("accepts a line of exactly the limit, with or without \\r", async () => {
    assert.deepEqual(await frames([encoder.encode("1234567890\n1234567890\r\n")], 10), ["1234567890", "1234567890"]);
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

describe("SerialWriter", () => {
  it("writes whole messages in order, joining bursts into fewer writes", async () => {
    const writes: string[] = [];
    const sink = new WritableStream<Uint8Array>({
      async write(chunk) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        writes.push(decoder.decode(chunk));
      },
    });
    const out = new SerialWriter(streamSink(sink));
    const done = Array.from({ length: 100 }, (_, i) => out.write(encoder.encode(`m${i}\n`)));
    await Promise.all(done);
    await out.flush();
    assert.equal(writes.join(""), Array.from({ length: 100 }, (_, i) => `m${i}\n`).join(""));
    assert.ok(writes.length < 100, `expected batching, got ${writes.length} writes`);
    assert.ok(writes.every((chunk) => chunk.endsWith("\n")), "a write never ends inside a message");
  });

  it("writes a message to an idle sink at once, and joins what is queued meanwhile into the next write", async () => {
    const writes: string[] = [];
    const pending: Array<() => void> = [];
    const sink = new WritableStream<Uint8Array>({
      write(chunk) {
        writes.push(decoder.decode(chunk));
        return new Promise<void>((resolve) => pending.push(resolve));
      },
    });
    const out = new SerialWriter(streamSink(sink));
    const first = out.write("one\n");
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    assert.deepEqual(writes, ["one\n"], "written within microtasks, not on a later turn of the event loop");
    const rest = [out.write("two\n"), out.write(encoder.encode("three\n"))];
    pending.shift()!();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(writes, ["one\n", "two\nthree\n"]);
    pending.shift()!();
    await Promise.all(rest);
  });

  it("reports a failed sink once and drops later writes instead of throwing", async () => {
    const sink = new WritableStream<Uint8Array>({
      write() {
        throw Object.assign(new Error("broken pipe"), { code: "EPIPE" });
      },
    });
    const out = new SerialWriter(streamSink(sink));
    await out.write(encoder.encode("a\n"));
    const error = await out.failed;
    assert.equal((error as { code: string }).code, "EPIPE");
    assert.equal(out.broken, true);
    await out.write(encoder.encode("b\n"));
    await out.flush();
  });
});
