// The synchronous Content-Length splitter in process: random streams cut at random (a property; the seed is
// printed, and TOOLWIRE_PROPERTY_SEED with TOOLWIRE_PROPERTY_PATH replays a failure), header edge cases, limits,
// and linear work shown by counting the bytes it copies, never by timing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import process from "node:process";
import fc from "fast-check";
import {
  type ContentLengthFrame,
  type ContentLengthFramerOptions,
  ContentLengthSplitter,
  type HeaderProblem,
} from "../../lib/framing/content_length_framer.ts";
import { LineSplitter } from "../../lib/framing/line_splitter.ts";
import { DEFAULT_MAX_HEADER_BYTES, OVERSIZED_HEAD_BYTES } from "../../lib/framing/limits.ts";
import { concat, countTouchedBytes } from "../helpers/bytes.ts";
import { propertySettings } from "../reliability/mcp_scenario.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string) => encoder.encode(text);

/** Every frame the splitter makes of these chunks, its end included. */
function split(chunks: Iterable<Uint8Array>, options?: ContentLengthFramerOptions): ContentLengthFrame[] {
  const splitter = new ContentLengthSplitter(options);
  const out: ContentLengthFrame[] = [];
  for (const chunk of chunks) splitter.push(chunk, out);
  splitter.end(out);
  return out;
}

/** Frames as comparable values: bodies and heads as text. */
function shown(frames: readonly ContentLengthFrame[]): unknown[] {
  return frames.map((frame) => {
    if (frame.kind === "message") return { message: decoder.decode(frame.bytes) };
    if (frame.kind === "oversized") return { oversized: frame.size, head: decoder.decode(frame.head) };
    return frame;
  });
}

const MAX_MESSAGE_BYTES = 2048;

/** One message, its header written in one of the ways a client may write it, and the frame it must give. */
const messageArbitrary = fc.record({
  body: fc.oneof(
    { arbitrary: fc.uint8Array({ maxLength: 300 }), weight: 9 },
    { arbitrary: fc.uint8Array({ minLength: MAX_MESSAGE_BYTES + 1, maxLength: 6000 }), weight: 1 },
  ),
  name: fc.constantFrom("Content-Length", "content-length", "CONTENT-LENGTH", "Content-length"),
  before: fc.constantFrom("", " ", "\t", "  "),
  after: fc.constantFrom("", " ", "\t"),
  contentType: fc.constantFrom("none", "first", "last"),
  note: fc.option(fc.nat(40)),
}).map(({ body, name, before, after, contentType, note }) => {
  const lines = [`${name}:${before}${body.length}${after}`];
  if (contentType === "first") lines.unshift("Content-Type: application/vscode-jsonrpc");
  if (contentType === "last") lines.push("Content-Type: application/vscode-jsonrpc");
  if (note !== null) lines.push(`X-Note: ${"n".repeat(note)}`);
  const header = bytes(`${lines.join("\r\n")}\r\n\r\n`);
  const frame: ContentLengthFrame = body.length > MAX_MESSAGE_BYTES
    ? { kind: "oversized", size: body.length, head: body.slice(0, OVERSIZED_HEAD_BYTES) }
    : { kind: "message", bytes: body };
  return { header, body, frame };
});

/**
 * A stream: whole messages, perhaps one more that the end of input cuts off (at a fraction of its length),
 * and the sizes of the pieces it arrives in, used in turn.
 */
const streamArbitrary = fc.record({
  messages: fc.array(messageArbitrary, { maxLength: 30 }),
  cutOff: fc.option(
    fc.tuple(messageArbitrary, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })),
  ),
  pieces: fc.array(fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 9, max: 5000 })), {
    minLength: 1,
  }),
});

describe("ContentLengthSplitter: random streams cut at random", () => {
  it("gives every message and skips every oversized one, whatever the cuts", () => {
    const settings = propertySettings("content_length_splitter", 200, (name) => process.env[name]);
    fc.assert(
      fc.property(streamArbitrary, ({ messages, cutOff, pieces }) => {
        const parts: Uint8Array[] = messages.flatMap(({ header, body }) => [header, body]);
        const expected: ContentLengthFrame[] = messages.map(({ frame }) => frame);
        if (cutOff !== null) {
          const [{ header, body, frame }, fraction] = cutOff;
          const cut = 1 + Math.floor(fraction * (header.length + body.length - 1));
          parts.push(concat([header, body]).subarray(0, cut));
          const got = cut - header.length;
          if (got < 0) expected.push({ kind: "truncated", bytes: cut });
          else if (frame.kind === "message") expected.push({ kind: "truncated", bytes: got });
          else if (got < OVERSIZED_HEAD_BYTES) expected.push({ ...frame, head: frame.head.subarray(0, got) });
          else expected.push(frame);
        }
        const stream = concat(parts);
        const chunks: Uint8Array[] = [];
        for (let at = 0, turn = 0; at < stream.length; turn++) {
          const end = Math.min(stream.length, at + pieces[turn % pieces.length]!);
          chunks.push(stream.slice(at, end));
          at = end;
        }
        assert.deepEqual(split(chunks, { maxMessageBytes: MAX_MESSAGE_BYTES }), expected);
      }),
      {
        seed: settings.seed,
        numRuns: settings.runs,
        ...(settings.path === undefined ? {} : { path: settings.path }),
      },
    );
  });
});

describe("ContentLengthSplitter: headers", () => {
  const good: Array<[string, string]> = [
    ["no space after the colon", "Content-Length:2\r\n\r\n{}"],
    ["tabs and spaces around the value", "Content-Length: \t2\t \r\n\r\n{}"],
    ["leading zeros", "Content-Length: 0002\r\n\r\n{}"],
    ["an identical repeat", "Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}"],
    ["an empty header value elsewhere", "X-Empty:\r\nContent-Length: 2\r\n\r\n{}"],
  ];
  for (const [what, input] of good) {
    it(`accepts ${what}`, () => {
      assert.deepEqual(shown(split([bytes(input)])), [{ message: "{}" }]);
    });
  }

  const bad: Array<[HeaderProblem, string, RegExp]> = [
    ["missing-length", "Content-Type: application/json\r\n\r\n{}", /no Content-Length/],
    ["invalid-length", "Content-Length:\r\n\r\n{}", /byte count, got ""/],
    ["invalid-length", "Content-Length: +2\r\n\r\n{}", /byte count/],
    ["invalid-length", "Content-Length: 0x2\r\n\r\n{}", /byte count/],
    ["invalid-length", "Content-Length: 2 2\r\n\r\n{}", /byte count/],
    ["invalid-length", "Content-Length: 9007199254740992\r\n\r\n{}", /byte count/],
    ["invalid-length", "Content-Length: 2\r\nContent-Length: 02\r\n\r\n{}", /conflicting/],
    ["malformed-header", "Content-Length: 2\r\r\n\r\n{}", /bare CR or LF/],
    ["malformed-header", " Content-Length: 2\r\n\r\n{}", /not a header line/],
    ["malformed-header", "Content-Length : 2\r\n\r\n{}", /not a header line/],
    ["malformed-header", "Content-Length: 2\r\nX: a\u0000b\r\n\r\n{}", /0x00/],
    ["malformed-header", "Content-Length: 2\r\nX: \u007f\r\n\r\n{}", /0x7f/],
  ];
  for (const [problem, input, detail] of bad) {
    it(`${problem}: ${JSON.stringify(input)} ends framing, and nothing after it is read`, () => {
      const splitter = new ContentLengthSplitter();
      const out: ContentLengthFrame[] = [];
      splitter.push(bytes(input), out);
      splitter.push(bytes("Content-Length: 2\r\n\r\n{}"), out);
      splitter.end(out);
      assert.equal(out.length, 1, "a lost boundary is the last frame");
      const frame = out[0]!;
      assert.equal(frame.kind === "bad-header" && frame.problem, problem);
      assert.match(frame.kind === "bad-header" ? frame.detail : "", detail);
    });
  }

  it("finds the end of a header block cut anywhere in its \\r\\n\\r\\n", () => {
    const stream = bytes("Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]");
    for (let cut = 0; cut <= stream.length; cut++) {
      const frames = split([stream.subarray(0, cut), stream.subarray(cut)]);
      assert.deepEqual(shown(frames), [{ message: "{}" }, { message: "[1]" }], `cut at ${cut}`);
    }
  });

  it("a header block of exactly maxHeaderBytes is read; one byte more ends framing", () => {
    const header = `X-Pad: ${"p".repeat(100)}\r\nContent-Length: 2\r\n\r\n`;
    const atLimit = { maxHeaderBytes: header.length };
    assert.deepEqual(shown(split([bytes(`${header}{}`)], atLimit)), [{ message: "{}" }]);
    const over = split([bytes(` ${header}{}`)], atLimit);
    assert.deepEqual(over.map((frame) => frame.kind === "bad-header" && frame.problem), ["header-too-long"]);
  });

  it("refuses a header that never ends as soon as it passes maxHeaderBytes, and reads no more", () => {
    const splitter = new ContentLengthSplitter();
    const out: ContentLengthFrame[] = [];
    const line = bytes(`X-Endless: ${"a".repeat(50)}\r\n`);
    let fed = 0;
    while (out.length === 0) {
      splitter.push(line, out);
      fed += line.length;
    }
    assert.ok(fed <= DEFAULT_MAX_HEADER_BYTES + line.length, `refused only after ${fed} bytes`);
    assert.deepEqual(out.map((frame) => frame.kind === "bad-header" && frame.problem), ["header-too-long"]);
    for (let i = 0; i < 1000; i++) splitter.push(line, out);
    splitter.end(out);
    assert.equal(out.length, 1);
  });
});

describe("ContentLengthSplitter: message sizes and the end of input", () => {
  it("a body of exactly maxMessageBytes is a message; one byte more is skipped, its head kept", () => {
    const body = "b".repeat(100);
    assert.deepEqual(shown(split([bytes(`Content-Length: 100\r\n\r\n${body}`)], { maxMessageBytes: 100 })), [
      { message: body },
    ]);
    assert.deepEqual(shown(split([bytes(`Content-Length: 101\r\n\r\n${body}b`)], { maxMessageBytes: 100 })), [
      { oversized: 101, head: `${body}b` },
    ]);
  });

  it("reports an oversized body as soon as its head is in, before the rest arrives", () => {
    const splitter = new ContentLengthSplitter({ maxMessageBytes: 10 });
    const out: ContentLengthFrame[] = [];
    splitter.push(bytes(`Content-Length: 1000000\r\n\r\n{"id":42,`), out);
    assert.equal(out.length, 0);
    splitter.push(new Uint8Array(OVERSIZED_HEAD_BYTES).fill(0x20), out);
    assert.equal(out.length, 1);
    const frame = out[0]!;
    assert.equal(frame.kind === "oversized" && frame.head.length, OVERSIZED_HEAD_BYTES);
    assert.equal(frame.kind === "oversized" && decoder.decode(frame.head.subarray(0, 9)), '{"id":42,');
    // The rest is counted off, then framing goes on.
    splitter.push(new Uint8Array(1_000_000 - 9 - OVERSIZED_HEAD_BYTES), out);
    splitter.push(bytes("Content-Length: 2\r\n\r\n{}"), out);
    splitter.end(out);
    assert.deepEqual(shown(out.slice(1)), [{ message: "{}" }]);
  });

  it("an empty body is a message the moment its header ends", () => {
    const splitter = new ContentLengthSplitter();
    const out: ContentLengthFrame[] = [];
    splitter.push(bytes("Content-Length: 0\r\n\r\n"), out);
    assert.deepEqual(shown(out), [{ message: "" }]);
  });

  it("the end of input: truncated inside a header or a body, nothing between messages", () => {
    assert.deepEqual(split([bytes("Content-Length: 2\r\n\r\n{}")]).map((frame) => frame.kind), ["message"]);
    assert.deepEqual(split([bytes("Content-Length: 2\r\n\r\n{}Cont")]).slice(1), [{
      kind: "truncated",
      bytes: 4,
    }]);
    assert.deepEqual(split([bytes("Content-Length: 5\r\n\r\n{}")]), [{ kind: "truncated", bytes: 2 }]);
    assert.deepEqual(split([bytes("Content-Length: 5\r\n\r\n")]), [{ kind: "truncated", bytes: 0 }]);
    assert.deepEqual(shown(split([bytes("Content-Length: 50\r\n\r\n{}")], { maxMessageBytes: 10 })), [
      { oversized: 50, head: "{}" },
    ]);
  });

  it("input after end() is ignored", () => {
    const splitter = new ContentLengthSplitter();
    const out: ContentLengthFrame[] = [];
    splitter.end(out);
    splitter.push(bytes("Content-Length: 2\r\n\r\n{}"), out);
    splitter.end(out);
    assert.deepEqual(out, []);
  });

  it("every frame owns its bytes: the caller may reuse its chunk buffer at once", () => {
    const chunk = bytes("Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[");
    const splitter = new ContentLengthSplitter();
    const out: ContentLengthFrame[] = [];
    splitter.push(chunk, out);
    chunk.fill(0x78);
    chunk[0] = 0x5d;
    splitter.push(chunk.subarray(0, 1), out);
    assert.deepEqual(shown(out), [{ message: "{}" }, { message: "[]" }]);
  });

  for (
    const [name, make] of [
      [
        "ContentLengthSplitter maxMessageBytes",
        (value: number) => new ContentLengthSplitter({ maxMessageBytes: value }),
      ],
      [
        "ContentLengthSplitter maxHeaderBytes",
        (value: number) => new ContentLengthSplitter({ maxHeaderBytes: value }),
      ],
      ["LineSplitter maxLineBytes", (value: number) => new LineSplitter({ maxLineBytes: value })],
    ] as const
  ) {
    it(`${name}: a limit that is not a whole number of bytes ≥ 1 is refused when the splitter is made`, () => {
      for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.throws(() => make(value), RangeError, `${value}`);
      }
      make(1);
    });
  }
});

describe("ContentLengthSplitter: linear work", () => {
  const SIZE = 16 * 1000 * 1000;
  let made: { body: Uint8Array; stream: Uint8Array } | undefined;
  /** A 16 MB message of varied bytes, then a small one. */
  const input = () => {
    if (made !== undefined) return made;
    const body = new Uint8Array(SIZE);
    for (let i = 0; i < SIZE; i++) body[i] = (i * 31 + (i >>> 12)) & 0xff;
    const stream = concat([
      bytes(`Content-Length: ${SIZE}\r\n\r\n`),
      body,
      bytes("Content-Length: 2\r\n\r\n{}"),
    ]);
    made = { body, stream };
    return made;
  };

  for (const piece of [1, 64 * 1024]) {
    it(`frames a 16 MB body fed in ${piece}-byte pieces, copying each byte once`, async () => {
      const { body, stream: whole } = input();
      const out: ContentLengthFrame[] = [];
      // Feeding copies nothing: 1-byte pieces go through one reused buffer, larger ones are views.
      const touched = await countTouchedBytes(() => {
        const splitter = new ContentLengthSplitter();
        if (piece === 1) {
          const one = new Uint8Array(1);
          for (let i = 0; i < whole.length; i++) {
            one[0] = whole[i]!;
            splitter.push(one, out);
          }
        } else {
          for (let at = 0; at < whole.length; at += piece) splitter.push(whole.subarray(at, at + piece), out);
        }
        splitter.end(out);
      }, 2 * whole.length);
      assert.deepEqual(out.map((frame) => frame.kind), ["message", "message"]);
      const first = out[0]!;
      assert.ok(first.kind === "message" && first.bytes.length === SIZE);
      assert.ok(
        first.kind === "message" && Buffer.compare(first.bytes, body) === 0,
        "the body arrived intact",
      );
      assert.deepEqual(shown(out.slice(1)), [{ message: "{}" }]);
      // Re-joining what is held on each piece would touch about pieces × size / 2: 128 TB for 1-byte pieces.
      assert.ok(touched <= SIZE + 64, `touched ${touched} bytes for a ${SIZE}-byte body`);
    });
  }
});
