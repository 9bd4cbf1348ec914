// SerialWriter, in-process: whole messages in order, bursts joined into fewer writes, a failed sink, and
// flush(). Every protocol session awaits flush() before it ends, so it must settle once what was queued is
// written — also when it is called while a write is in flight with nothing queued behind it (it used to wait
// for a next batch that never came, and a server whose last reply was still being written when stdin ended
// never exited).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { streamSink } from "../../lib/runtime/stream_channel.ts";
import { SerialWriter } from "../../lib/framing/serial_writer.ts";
import { delay } from "../helpers/protocol_io.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A sink whose writes finish only when the test says so. */
function heldSink(): { sink: WritableStream<Uint8Array>; written: Uint8Array[]; finish: () => void } {
  const written: Uint8Array[] = [];
  const pending: Array<() => void> = [];
  const sink = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve) => {
        pending.push(() => {
          written.push(chunk);
          resolve();
        });
      }),
  });
  return { sink, written, finish: () => pending.shift()?.() };
}

/** A sink that takes `ms` per write and records the bytes it finished writing. */
function slowSink(ms: number): { sink: WritableStream<Uint8Array>; written: number[] } {
  const written: number[] = [];
  const sink = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      await delay(ms);
      written.push(...chunk);
    },
  });
  return { sink, written };
}

const settledWithin = (promise: Promise<void>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);

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

  it("a sink that throws while a batch queued behind a write is handed over fails the writer; no write hangs", async () => {
    const calls: string[] = [];
    let release!: () => void;
    const sink = {
      write(data: string | Uint8Array): Promise<void> {
        const text = typeof data === "string" ? data : decoder.decode(data);
        calls.push(text);
        if (calls.length === 1) return new Promise<void>((resolve) => (release = resolve));
        throw new Error(`cannot write ${JSON.stringify(text)}`);
      },
    };
    const out = new SerialWriter(sink);
    const first = out.write("a\n");
    const queued = [out.write("b\n"), out.write("c\n")];
    release();
    await Promise.all([first, ...queued]);
    assert.deepEqual(calls, ["a\n", "b\nc\n"]);
    assert.match(String(await out.failed), /cannot write "b\\nc\\n"/);
    assert.equal(out.broken, true);
    await out.write("d\n");
    await out.flush();
    assert.equal(calls.length, 2, "nothing is handed to a failed sink");
  });
});

describe("SerialWriter.flush", () => {
  it("settles once the write in flight is done, with nothing queued after it", async () => {
    const { sink, written, finish } = heldSink();
    const out = new SerialWriter(streamSink(sink));
    const wrote = out.write(encoder.encode("one\n"));
    await delay(10);
    const flushed = out.flush();
    assert.equal(await settledWithin(flushed, 50), false, "the write is still in flight");
    finish();
    assert.equal(await settledWithin(flushed, 1000), true);
    await wrote;
    assert.equal(written.length, 1);
  });

  it("waits for messages queued behind the write in flight", async () => {
    const { sink, written, finish } = heldSink();
    const out = new SerialWriter(streamSink(sink));
    void out.write(encoder.encode("one\n"));
    await delay(10);
    void out.write(encoder.encode("two\n"));
    const flushed = out.flush();
    finish();
    assert.equal(await settledWithin(flushed, 50), false, "two is not written yet");
    await delay(10);
    finish();
    assert.equal(await settledWithin(flushed, 1000), true);
    assert.equal(written.length, 2);
  });

  it("settles at once when nothing was written", async () => {
    assert.equal(await settledWithin(new SerialWriter(streamSink(heldSink().sink)).flush(), 50), true);
  });

  it("settles after a slow write in flight when nothing is queued behind it", async () => {
    const { sink, written } = slowSink(30);
    const out = new SerialWriter(streamSink(sink));
    void out.write(new Uint8Array([1]));
    const outcome = await Promise.race([out.flush().then(() => "flushed"), delay(2_000).then(() => "hung")]);
    assert.equal(outcome, "flushed");
    assert.deepEqual(written, [1]);
  });

  it("settles only after every queued message is written", async () => {
    const { sink, written } = slowSink(20);
    const out = new SerialWriter(streamSink(sink));
    void out.write(new Uint8Array([1]));
    void out.write(new Uint8Array([2]));
    void out.write(new Uint8Array([3]));
    await out.flush();
    assert.deepEqual(written, [1, 2, 3]);
  });

  it("settles once every write has already finished", async () => {
    const { sink, written } = slowSink(20);
    const out = new SerialWriter(streamSink(sink));
    await out.write(new Uint8Array([1]));
    const outcome = await Promise.race([out.flush().then(() => "flushed"), delay(2_000).then(() => "hung")]);
    assert.equal(outcome, "flushed");
    assert.deepEqual(written, [1]);
  });
});
