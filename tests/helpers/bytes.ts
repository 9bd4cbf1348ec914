// Byte helpers for the framing tests: joining chunks, and counting the bytes code copies or searches.

/** The parts, joined into one array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

/**
 * Counts every byte copied (`set`, `slice`) or searched (`indexOf`) on any Uint8Array while `work` runs. A
 * framer that re-joins or re-scans what it holds on each chunk shows up here as quadratic growth. Past
 * `budget` bytes it throws at once, so such a framer fails the test instead of running it for hours.
 */
export async function countTouchedBytes(
  work: () => unknown,
  budget = Number.POSITIVE_INFINITY,
): Promise<number> {
  const proto = Uint8Array.prototype as unknown as Record<string, unknown>;
  const { set, slice, indexOf } = Uint8Array.prototype;
  let touched = 0;
  const touch = (count: number) => {
    touched += count;
    if (touched > budget) throw new Error(`touched more than ${budget} bytes: the work is not linear`);
  };
  proto.set = function (this: Uint8Array, source: ArrayLike<number>, offset?: number) {
    touch(source.length);
    return set.call(this, source, offset);
  };
  proto.slice = function (this: Uint8Array, start?: number, end?: number) {
    const copy = slice.call(this, start, end);
    touch(copy.length);
    return copy;
  };
  proto.indexOf = function (this: Uint8Array, value: number, from = 0) {
    const found = indexOf.call(this, value, from);
    touch((found === -1 ? this.length : found + 1) - from);
    return found;
  };
  try {
    await work();
  } finally {
    delete proto.set;
    delete proto.slice;
    delete proto.indexOf;
  }
  return touched;
}
