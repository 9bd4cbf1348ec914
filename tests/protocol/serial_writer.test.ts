// SerialWriter.flush, which every protocol session awaits before it ends: it must settle once what was queued
// is written, also when it is called while a write is in flight with nothing queued behind it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { streamSink } from "../../lib/runtime/byte_channel.ts";
import { SerialWriter } from "../../lib/framing/serial_writer.ts";
import { delay } from "../helpers/protocol_io.ts";

/** A sink that takes `ms` per write and records what it finished writing. */
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

describe("SerialWriter.flush", () => {
  it("settles after the write in flight when nothing is queued behind it", async () => {
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

  it("settles at once when nothing was written", async () => {
    const { sink } = slowSink(20);
    assert.equal(await new SerialWriter(streamSink(sink)).flush(), undefined);
  });
});
