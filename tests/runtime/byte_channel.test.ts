// readChunks over a stream channel: the one read loop of the MCP server, whatever the channel. The process
// channel runs under every spawned `mcp serve` (mcp_wire pauses it at the in-flight bound; the reliability
// tests end its input in a burst).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { readChunks } from "../../lib/runtime/byte_channel.ts";
import { sourceReadable, streamChannel } from "../../lib/runtime/stream_channel.ts";
import { nodeStreamReader } from "../../lib/runtime/stdin_reader.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A stream of the given chunks that records how many the consumer has pulled. */
function chunkStream(
  chunks: string[],
): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let next = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(encoder.encode(chunks[next++]!));
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => next, cancelled: () => cancelled };
}

/** A read-only channel over `stream`. */
function channel(stream: ReadableStream<Uint8Array>) {
  return streamChannel(stream, new WritableStream());
}

describe("readChunks", () => {
  it("reports the end only after the last chunk's handling has settled", async () => {
    const { stream } = chunkStream(["a"]);
    let release!: () => void;
    let handled = false;
    let ended = false;
    const done = readChunks(channel(stream), () =>
      new Promise<void>((resolve) => {
        release = () => {
          handled = true;
          resolve();
        };
      })).then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(ended, false, "the end was reported while the chunk was still being handled");
    release();
    await done;
    assert.equal(handled, true);
  });

  it("hands over every chunk in order and resolves at the end", async () => {
    const { stream } = chunkStream(["a", "b", "c"]);
    const seen: string[] = [];
    await readChunks(channel(stream), (chunk) => void seen.push(decoder.decode(chunk)));
    assert.deepEqual(seen, ["a", "b", "c"]);
  });

  it("reads nothing more while the promise returned for a chunk is pending", async () => {
    const { stream, pulled } = chunkStream(["a", "b"]);
    let release!: () => void;
    const seen: string[] = [];
    const done = readChunks(channel(stream), (chunk) => {
      seen.push(decoder.decode(chunk));
      return seen.length === 1 ? new Promise<void>((resolve) => (release = resolve)) : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, ["a"]);
    assert.equal(pulled(), 1, "the second chunk was not pulled");
    release();
    await done;
    assert.deepEqual(seen, ["a", "b"]);
  });

  it("stops and cancels the stream when the signal fires", async () => {
    const stream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }, {
      highWaterMark: 0,
    });
    const stop = new AbortController();
    const done = readChunks(channel(stream), () => assert.fail("no chunk was sent"), stop.signal);
    stop.abort();
    await done;
    assert.equal(stream.locked, true, "nobody else reads it afterwards");
  });

  it("cancels at once when the signal has already fired", async () => {
    const { stream, pulled, cancelled } = chunkStream(["a"]);
    await readChunks(channel(stream), () => assert.fail("nothing is read"), AbortSignal.abort());
    assert.equal(pulled(), 0);
    assert.equal(cancelled(), true);
  });

  it("rejects when the stream fails or the chunk handler throws", async () => {
    const failing = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.error(new Error("read failed")),
    });
    await assert.rejects(readChunks(channel(failing), () => undefined), /read failed/);
    const { stream } = chunkStream(["a"]);
    await assert.rejects(
      readChunks(channel(stream), () => {
        throw new Error("handler failed");
      }),
      /handler failed/,
    );
  });
});

describe("sourceReadable", () => {
  it("copies each chunk, so a source that reuses its buffer loses nothing", async () => {
    const buffer = new Uint8Array(1);
    let next = 0;
    const source = {
      read: () => Promise.resolve(next < 3 ? (buffer[0] = 0x61 + next++, buffer) : null),
    };
    const chunks: Uint8Array[] = [];
    for await (const chunk of sourceReadable(source)) chunks.push(chunk);
    assert.deepEqual(chunks.map((chunk) => decoder.decode(chunk)), ["a", "b", "c"]);
  });
});

/** An AbortController whose signal counts the listeners added to it. */
function countingAbort(): { controller: AbortController; listenersAdded: () => number } {
  const controller = new AbortController();
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  let added = 0;
  Object.defineProperty(signal, "addEventListener", {
    value: (...args: Parameters<AbortSignal["addEventListener"]>) => {
      added++;
      add(...args);
    },
  });
  return { controller, listenersAdded: () => added };
}

// A session reads with one signal for its whole life; adding and removing an EventTarget listener per read
// was the largest single cost of a small one-at-a-time call. The signal is listened to once.
describe("reading with a signal", () => {
  it("streamChannel: listens to the session's signal once, however many reads", async () => {
    const chunks = Array.from({ length: 50 }, (_, i) => `chunk ${i}`);
    const { stream } = chunkStream(chunks);
    const { controller, listenersAdded } = countingAbort();
    const seen: string[] = [];
    await readChunks(channel(stream), (chunk) => void seen.push(decoder.decode(chunk)), controller.signal);
    assert.deepEqual(seen, chunks);
    assert.equal(listenersAdded(), 1);
  });

  it("streamChannel: an abort ends the read in progress, and reading is over", async () => {
    const stream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }, {
      highWaterMark: 0,
    });
    const source = channel(stream);
    const { controller } = countingAbort();
    const read = source.read(controller.signal);
    controller.abort();
    assert.equal(await read, null);
    assert.equal(await source.read(controller.signal), null);
  });

  it("nodeStreamReader: listens once, hands over every chunk, and an abort ends the pending read for good", async () => {
    const input = new PassThrough();
    const read = nodeStreamReader(input);
    const { controller, listenersAdded } = countingAbort();
    for (let i = 0; i < 50; i++) {
      const next = read(controller.signal);
      input.write(`chunk ${i}`);
      assert.equal(decoder.decode((await next)!), `chunk ${i}`);
    }
    assert.equal(listenersAdded(), 1);
    const pending = read(controller.signal);
    controller.abort();
    assert.equal(await pending, null);
    input.write("late");
    assert.equal(await read(), null, "reading stays over after the abort");
    input.destroy();
  });

  it("nodeStreamReader: a signal of an earlier read does not end a read made with another", async () => {
    const input = new PassThrough();
    const read = nodeStreamReader(input);
    const first = new AbortController();
    const next = read(first.signal);
    input.write("a");
    assert.equal(decoder.decode((await next)!), "a");
    const second = new AbortController();
    const pending = read(second.signal);
    first.abort();
    input.write("b");
    assert.equal(decoder.decode((await pending)!), "b");
    input.destroy();
  });

  it("nodeStreamReader: a stream paused before the first read is read, and chunks nobody waited for are kept in order", async () => {
    const input = new PassThrough();
    input.pause();
    const read = nodeStreamReader(input);
    const first = read();
    input.write("a");
    assert.equal(decoder.decode((await first)!), "a");
    // Nobody reads now: the next chunk is queued (and the stream paused); the one after it waits in the
    // stream until a read resumes it.
    input.write("b");
    await new Promise((resolve) => setTimeout(resolve, 20));
    input.write("c");
    assert.equal(decoder.decode((await read())!), "b");
    assert.equal(decoder.decode((await read())!), "c");
    const last = read();
    input.end("d");
    assert.equal(decoder.decode((await last)!), "d");
    assert.equal(await read(), null);
  });

  it("nodeStreamReader: a signal that fired while no read was pending ends the next read made with it", async () => {
    const input = new PassThrough();
    const read = nodeStreamReader(input);
    const controller = new AbortController();
    const next = read(controller.signal);
    input.write("a");
    assert.equal(decoder.decode((await next)!), "a");
    controller.abort();
    assert.equal(await read(controller.signal), null);
    const other = new AbortController();
    const pending = read(other.signal);
    input.write("b");
    assert.equal(decoder.decode((await pending)!), "b", "a read with another signal still reads");
    assert.equal(await read(controller.signal), null, "and the fired one still ends its reads");
    input.destroy();
  });
});
