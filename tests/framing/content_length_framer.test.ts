// The Content-Length framer and encoder in process: chunk boundaries, headers, limits, and linearity checked by
// counting the bytes it copies or searches, never by timing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type ContentLengthFrame,
  ContentLengthFramer,
  type ContentLengthFramerOptions,
  encodeContentLength,
  OVERSIZED_HEAD_BYTES,
} from "../../lib/framing/content_length_framer.ts";
import { peekTopLevelMembers } from "../../lib/protocol/peek_members.ts";
import { concat, countTouchedBytes } from "../helpers/bytes.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text);

async function framesOf(
  chunks: readonly Uint8Array[],
  options?: ContentLengthFramerOptions,
): Promise<ContentLengthFrame[]> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const reader = input.pipeThrough(new ContentLengthFramer(options)).getReader();
  const frames: ContentLengthFrame[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) frames.push(next.value);
  return frames;
}

/** Frames as comparable values: message bodies as text. */
function readable(frames: ContentLengthFrame[]): unknown[] {
  return frames.map((frame) => (frame.kind === "message" ? { message: decoder.decode(frame.bytes) } : frame));
}

function split(whole: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < whole.length; at += size) chunks.push(whole.slice(at, at + size));
  return chunks;
}

const BODIES = ['{"jsonrpc":"2.0","id":1}', '{"text":"é€😀"}', "{}"];
const byteLength = (text: string) => bytes(text).length;

/** Three messages: plain, with Content-Type and a lower-case name, and with an upper-case name and extra headers. */
const STREAM = concat([
  bytes(`Content-Length: ${byteLength(BODIES[0]!)}\r\n\r\n${BODIES[0]}`),
  bytes(
    `content-length: ${
      byteLength(BODIES[1]!)
    }\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${BODIES[1]}`,
  ),
  bytes(
    `Content-Type: application/json\r\nCONTENT-LENGTH:${byteLength(BODIES[2]!)}\r\nX-Extra: yes\r\n\r\n${
      BODIES[2]
    }`,
  ),
]);

const EXPECTED = BODIES.map((body) => ({ message: body }));

describe("ContentLengthFramer: messages", () => {
  it("frames consecutive messages; Content-Type and other headers are accepted, names in any case", async () => {
    assert.deepEqual(readable(await framesOf([STREAM])), EXPECTED);
  });

  it("gives the same frames for a split at every byte boundary", async () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      const frames = await framesOf([STREAM.slice(0, cut), STREAM.slice(cut)]);
      assert.deepEqual(readable(frames), EXPECTED, `split at byte ${cut}`);
    }
  });

  it("gives the same frames when every byte is its own chunk", async () => {
    assert.deepEqual(readable(await framesOf(split(STREAM, 1))), EXPECTED);
  });

  it("frames a zero-length body as an empty message", async () => {
    const frames = await framesOf([bytes("Content-Length: 0\r\n\r\nContent-Length: 2\r\n\r\n{}")]);
    assert.deepEqual(readable(frames), [{ message: "" }, { message: "{}" }]);
  });

  it("accepts an identical repeated Content-Length", async () => {
    assert.deepEqual(readable(await framesOf([bytes("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}")])), [{
      message: "{}",
    }]);
  });

  it("reports input that ends inside a message as truncated", async () => {
    assert.deepEqual(await framesOf([bytes("Content-Length: 10\r\n\r\n{}")]), [{
      kind: "truncated",
      bytes: 2,
    }]);
    assert.deepEqual(await framesOf([bytes("Content-Len")]), [{ kind: "truncated", bytes: 11 }]);
  });
});

describe("ContentLengthFramer: headers that lose the message boundary", () => {
  const cases: Array<[string, string, string]> = [
    ["missing-length", "Content-Type: application/json\r\n\r\n{}", "no Content-Length"],
    ["invalid-length", "Content-Length: abc\r\n\r\n{}", "byte count"],
    ["invalid-length", "Content-Length: -2\r\n\r\n{}", "byte count"],
    ["invalid-length", "Content-Length: 1.5\r\n\r\n{}", "byte count"],
    ["invalid-length", "Content-Length: 99999999999999999999\r\n\r\n{}", "byte count"],
    ["invalid-length", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "conflicting"],
    ["malformed-header", "hello\r\nContent-Length: 2\r\n\r\n{}", "not a header line"],
    ["malformed-header", "Content Length: 2\r\n\r\n{}", "not a header line"],
    ["malformed-header", "\r\n\r\n{}", "not a header line"],
    ["malformed-header", "Content-Length: 2\nX: y\r\n\r\n{}", "bare CR or LF"],
    ["malformed-header", "Content-Length: 2\r\nX: \u00e9\r\n\r\n{}", "0xc3"],
  ];
  for (const [problem, input, detail] of cases) {
    it(`${problem}: ${JSON.stringify(input)} is the last frame`, async () => {
      const frames = await framesOf([bytes(input), bytes("Content-Length: 2\r\n\r\n{}")]);
      assert.equal(frames.length, 1, "nothing after a lost boundary can be trusted");
      const frame = frames[0]!;
      assert.equal(frame.kind, "bad-header");
      if (frame.kind !== "bad-header") return;
      assert.equal(frame.problem, problem);
      assert.match(frame.detail, new RegExp(detail));
    });
  }

  it("header-too-long: a header block past maxHeaderBytes ends framing without holding more", async () => {
    const frames = await framesOf(
      split(bytes(`X-Pad: ${"a".repeat(10_000)}\r\nContent-Length: 2\r\n\r\n{}`), 100),
      { maxHeaderBytes: 64 },
    );
    assert.deepEqual(frames.map((frame) => frame.kind === "bad-header" && frame.problem), [
      "header-too-long",
    ]);
  });

  it("accepts a header block of exactly maxHeaderBytes", async () => {
    const header = "Content-Length: 2\r\n\r\n";
    assert.deepEqual(readable(await framesOf([bytes(`${header}{}`)], { maxHeaderBytes: header.length })), [{
      message: "{}",
    }]);
  });
});

describe("ContentLengthFramer: limits and linear work", () => {
  it("skips an oversized body, keeps its first bytes as head, and frames the next message", async () => {
    const big = `{"id":7,"padding":"${"x".repeat(10_000)}"}`;
    const stream = concat([
      bytes(`Content-Length: ${big.length}\r\n\r\n${big}`),
      bytes("Content-Length: 2\r\n\r\n{}"),
    ]);
    for (const size of [stream.length, 1000, 7]) {
      const frames = await framesOf(split(stream, size), { maxMessageBytes: 4096 });
      assert.equal(frames.length, 2, `chunks of ${size}`);
      const oversized = frames[0]!;
      const next = frames[1]!;
      assert.equal(oversized.kind, "oversized");
      if (oversized.kind !== "oversized") return;
      assert.equal(oversized.size, big.length);
      assert.equal(decoder.decode(oversized.head), big.slice(0, OVERSIZED_HEAD_BYTES));
      assert.deepEqual(readable([next]), [{ message: "{}" }]);
    }
  });

  it("reports an oversized body cut off by the end of input with what arrived of its head", async () => {
    const frames = await framesOf([bytes('Content-Length: 100000\r\n\r\n{"id":3')], { maxMessageBytes: 10 });
    assert.equal(frames.length, 1);
    const frame = frames[0]!;
    assert.equal(frame.kind === "oversized" && decoder.decode(frame.head), '{"id":3');
  });

  it("copies each byte of a message split into many chunks once: no re-joining, no re-scanning", async () => {
    const body = `{"text":"${"y".repeat(1024 * 1024)}"}`;
    const chunks = split(bytes(`Content-Length: ${body.length}\r\n\r\n${body}`), 1000);
    let frames: ContentLengthFrame[] = [];
    const touched = await countTouchedBytes(async () => {
      frames = await framesOf(chunks);
    });
    assert.equal(frames.length, 1);
    const frame = frames[0]!;
    assert.equal(frame.kind === "message" && frame.bytes.length, body.length);
    // A framer that re-joined its buffer per chunk would touch about chunks × size / 2 ≈ 550 MB here.
    assert.ok(touched <= 2 * body.length, `touched ${touched} bytes for a ${body.length}-byte message`);
  });

  it("skips an oversized body without copying it: only its head is kept", async () => {
    const size = 8 * 1024 * 1024;
    const chunks = [
      bytes(`Content-Length: ${size}\r\n\r\n`),
      ...split(new Uint8Array(size).fill(0x20), 64 * 1024),
    ];
    let frames: ContentLengthFrame[] = [];
    const touched = await countTouchedBytes(async () => {
      frames = await framesOf(chunks, { maxMessageBytes: 1024 * 1024 });
    });
    assert.deepEqual(frames.map((frame) => frame.kind), ["oversized"]);
    assert.ok(touched <= OVERSIZED_HEAD_BYTES, `touched ${touched} bytes while skipping ${size}`);
  });
});

describe("encodeContentLength", () => {
  it("counts UTF-8 bytes, not UTF-16 units", async () => {
    const message = { jsonrpc: "2.0", id: 1, result: "é€😀" };
    const framed = encodeContentLength(message);
    const text = JSON.stringify(message);
    assert.equal(decoder.decode(framed), `Content-Length: ${byteLength(text)}\r\n\r\n${text}`);
    assert.notEqual(byteLength(text), text.length);
    assert.deepEqual(readable(await framesOf([framed])), [{ message: text }]);
  });

  it("takes a string as JSON text already", () => {
    assert.equal(decoder.decode(encodeContentLength('{"a":1}')), 'Content-Length: 7\r\n\r\n{"a":1}');
  });

  it("throws on what JSON cannot hold", () => {
    assert.throws(() => encodeContentLength({ big: 1n }), TypeError);
  });
});

describe("peekTopLevelMembers", () => {
  it("reads top-level scalars before the cut, never nested ones", () => {
    const head = bytes('{"params":{"id":99,"s":"}\\"{"},"id":7,"method":"m\\u00e9","seq":3,"text":"aaaa');
    assert.deepEqual(peekTopLevelMembers(head, ["id", "method", "seq", "text"]), {
      id: 7,
      method: "mé",
      seq: 3,
    });
  });

  it("does not take a number the cut may have shortened", () => {
    assert.deepEqual(peekTopLevelMembers(bytes('{"id":12'), ["id"]), {});
    assert.deepEqual(peekTopLevelMembers(bytes('{"id":12,'), ["id"]), { id: 12 });
  });

  it("finds nothing in what is not an object", () => {
    assert.deepEqual(peekTopLevelMembers(bytes("[1,2]"), ["id"]), {});
    assert.deepEqual(peekTopLevelMembers(new Uint8Array([0xff, 0xfe]), ["id"]), {});
  });
});
