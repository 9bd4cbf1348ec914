// The newline framer, in-process: exact frames for every way a byte stream can be cut.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LineFramer } from "../../lib/framing/line_framer.ts";
import { type LineFrame, LineSplitter } from "../../lib/framing/line_splitter.ts";

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

describe("LineSplitter: long lines", () => {
  /**
   * `text` fed in chunks of `size` bytes through one splitter, the way a reader feeds it: one buffer refilled
   * for every chunk, so each frame is read before the next push (a line inside a chunk is a view of it).
   */
  function split(text: string, size: number, maxLineBytes?: number): LineFrame[] {
    const bytes = encoder.encode(text);
    const splitter = new LineSplitter(maxLineBytes === undefined ? {} : { maxLineBytes });
    const out: LineFrame[] = [];
    const kept: LineFrame[] = [];
    const keep = () => {
      for (const frame of out.splice(0)) {
        kept.push(frame.kind === "line" ? { kind: "line", bytes: frame.bytes.slice() } : frame);
      }
    };
    const reused = new Uint8Array(size);
    for (let offset = 0; offset < bytes.length; offset += size) {
      const piece = bytes.subarray(offset, offset + size);
      reused.set(piece);
      splitter.push(reused.subarray(0, piece.length), out);
      keep();
      reused.fill(0x3f);
    }
    splitter.end(out);
    keep();
    return kept;
  }

  it("a line of several MiB split over many chunks comes out whole, between short lines", () => {
    const long = `{"text":"${"0123456789abcdef".repeat(200_000)}😀"}`;
    const frames = split(`{"a":1}\n${long}\r\n{"b":2}\n${long}`, 65_521);
    assert.deepEqual(frames.map(show), ['{"a":1}', long, '{"b":2}', long]);
  });

  it("a long line is collected in one buffer that grows in place, not joined from parts", () => {
    const splitter = new LineSplitter();
    const out: LineFrame[] = [];
    const chunk = encoder.encode("x".repeat(64 * 1024));
    for (let i = 0; i < 48; i++) splitter.push(chunk, out);
    splitter.push(encoder.encode("\n"), out);
    assert.equal(out.length, 1);
    const bytes = (out[0] as { bytes: Uint8Array }).bytes;
    assert.equal(bytes.length, 48 * 64 * 1024);
    assert.ok(bytes.every((byte) => byte === 0x78));
    // Joined parts would be a fresh fixed-size buffer, made while the parts are still held: twice the line.
    assert.equal((bytes.buffer as ArrayBuffer & { resizable?: boolean }).resizable, true);
  });

  it("the limit holds for long lines: exactly at it (with or without \\r) accepted, one byte over skipped", () => {
    const max = 2 * 1024 * 1024 + 5;
    const atLimit = "y".repeat(max);
    const over = "z".repeat(max + 1);
    for (const size of [64 * 1024, 1_000_003]) {
      assert.deepEqual(
        split(`${atLimit}\n${atLimit}\r\n${over}\n${over}\r\nnext`, size, max).map(show),
        [atLimit, atLimit, { oversized: max + 1 }, { oversized: max + 1 }, "next"],
        `chunks of ${size}`,
      );
    }
    // The last chunk alone takes the held line past the limit.
    const splitter = new LineSplitter({ maxLineBytes: max });
    const out: LineFrame[] = [];
    splitter.push(encoder.encode("w".repeat(1_500_000)), out);
    splitter.push(encoder.encode(`${"w".repeat(1_000_000)}\r\nafter\n`), out);
    assert.deepEqual(out.map(show), [{ oversized: 2_500_000 }, "after"]);
  });
});

describe("LineSplitter: keepHead", () => {
  it("a line too long keeps its first maxLineBytes as the oversized frame's head, for every split point", () => {
    const max = 10;
    const long = "abcdefghijklmnopqrstuvwxyz";
    const text = `short\n${long}\nnext\n${long.slice(0, 12)}`;
    const bytes = encoder.encode(text);
    for (let size = 1; size <= bytes.length; size++) {
      const splitter = new LineSplitter({ maxLineBytes: max, keepHead: true });
      const out: LineFrame[] = [];
      for (let offset = 0; offset < bytes.length; offset += size) {
        splitter.push(bytes.slice(offset, offset + size), out);
      }
      splitter.end(out);
      const shown = out.map((frame) =>
        frame.kind === "line"
          ? decoder.decode(frame.bytes)
          : { size: frame.size, head: decoder.decode(frame.head ?? new Uint8Array(0)) }
      );
      assert.deepEqual(shown, [
        "short",
        { size: long.length, head: long.slice(0, max) },
        "next",
        { size: 12, head: long.slice(0, max) },
      ], `chunks of ${size}`);
    }
  });

  it("without keepHead, an oversized frame carries no head", () => {
    const splitter = new LineSplitter({ maxLineBytes: 4 });
    const out: LineFrame[] = [];
    splitter.push(encoder.encode("toolong\n"), out);
    assert.deepEqual(out, [{ kind: "oversized", size: 7 }]);
  });
});
