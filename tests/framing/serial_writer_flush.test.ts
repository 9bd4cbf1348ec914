// SerialWriter.flush() while a write is still in flight: it settles once that write is done. (It used to
// wait for a next batch that never came — a server whose last reply was still being written when stdin
// ended then never exited.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { streamSink } from "../../lib/runtime/byte_channel.ts";
import { SerialWriter } from "../../lib/framing/serial_writer.ts";

/** A sink whose writes finish only when the test says so. */
function slowSink(): { sink: WritableStream<Uint8Array>; written: Uint8Array[]; finish: () => void } {
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

const settledWithin = (promise: Promise<void>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe("SerialWriter.flush", () => {
  it("settles once the write in flight is done, with nothing queued after it", async () => {
    const { sink, written, finish } = slowSink();
    const out = new SerialWriter(streamSink(sink));
    const wrote = out.write(new TextEncoder().encode("one\n"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const flushed = out.flush();
    assert.equal(await settledWithin(flushed, 50), false, "the write is still in flight");
    finish();
    assert.equal(await settledWithin(flushed, 1000), true);
    await wrote;
    assert.equal(written.length, 1);
  });

  it("waits for messages queued behind the write in flight", async () => {
    const { sink, written, finish } = slowSink();
    const out = new SerialWriter(streamSink(sink));
    void out.write(new TextEncoder().encode("one\n"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    void out.write(new TextEncoder().encode("two\n"));
    const flushed = out.flush();
    finish();
    assert.equal(await settledWithin(flushed, 50), false, "two is not written yet");
    await new Promise((resolve) => setTimeout(resolve, 10));
    finish();
    assert.equal(await settledWithin(flushed, 1000), true);
    assert.equal(written.length, 2);
  });

  it("settles at once when nothing was written", async () => {
    assert.equal(await settledWithin(new SerialWriter(streamSink(slowSink().sink)).flush(), 50), true);
  });
});
