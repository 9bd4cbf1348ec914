/**
 * Small helpers for JSON values that every layer uses: telling an object from other JSON, copying, and one
 * canonical text and digest for a value. It imports nothing, so the runtime, framing, protocol and command
 * layers can all use it without depending on each other.
 * @module
 */

/**
 * Whether a value is a JSON object: not `null`, not an array. Values from outside (stdin, a file, another
 * program's output) are `unknown` until this says which members they may have.
 *
 * @example
 * ```ts
 * isRecord({ a: 1 }); // true
 * isRecord([1]); // false
 * isRecord(null); // false
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A text as JSON, or `undefined` (which no JSON text denotes) when it is not JSON: for input that may be
 * anything, where "not JSON" is an answer rather than an error.
 *
 * @example
 * ```ts
 * parseJson("{}"); // {}
 * parseJson("hello"); // undefined
 * ```
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The integers a JSON number carries exactly, for error messages: a parser built on doubles (every
 * JavaScript one) loses digits beyond ±(2^53 − 1), so a larger id or integer argument could not be used as
 * it was sent, and is refused.
 *
 * @example
 * ```ts
 * `id must be a string or an integer ${SAFE_INTEGER_RANGE}`;
 * ```
 */
export const SAFE_INTEGER_RANGE = "from -(2^53 - 1) to 2^53 - 1";

/**
 * A deep copy of JSON data — what a manifest holds, and what it prints. Not `structuredClone`, whose first
 * call costs every `mcp serve` start (docs/performance.md#code-shapes).
 *
 * @example
 * ```ts
 * const defaults = copyJson(["a", "b"]);
 * ```
 */
export function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * How deep {@linkcode canonicalJson} walks. It recurses, and is only ever given manifests and arguments that
 * already passed validation (flat values), so the limit is never reached by a real call; it turns a value
 * that would overflow the stack into a plain error instead.
 */
export const CANONICAL_JSON_MAX_DEPTH = 128;

/**
 * JSON with object keys sorted at every depth: one text for one value, whatever the insertion order. Throws
 * a RangeError for a value nested deeper than {@linkcode CANONICAL_JSON_MAX_DEPTH} levels.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, 0);
}

function canonical(value: unknown, depth: number): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (depth >= CANONICAL_JSON_MAX_DEPTH) {
    throw new RangeError(
      `canonical JSON: the value is nested deeper than ${CANONICAL_JSON_MAX_DEPTH} levels`,
    );
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depth + 1)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(record[k], depth + 1)}`).join(",")}}`;
}

/**
 * `sha256:` followed by the hex digest of a text's bytes: its UTF-8, with a lone surrogate (a JavaScript
 * string can hold one; no UTF-8 can) as the three bytes of its code point, the way WTF-8 writes it — bytes
 * no well-formed text encodes to. `TextEncoder` would turn `"\ud800"`, `"\udc00"` and `"\ufffd"` alike
 * into U+FFFD, one digest for three texts; here each text has its own, and a well-formed one keeps its
 * UTF-8 digest.
 *
 * @example
 * ```ts
 * await sha256Tag("abc"); // "sha256:ba7816bf…"
 * ```
 */
export async function sha256Tag(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", unambiguousBytes(text));
  return `sha256:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** A surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Whether a text holds a lone surrogate: a value that has no UTF-8 form, so it cannot reach a file name,
 * a command line or another program's stdin as it is.
 *
 * @example
 * ```ts
 * hasLoneSurrogate("\ud800"); // true
 * hasLoneSurrogate("\ud83d\ude00"); // false: a pair, 😀
 * ```
 */
export function hasLoneSurrogate(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return LONE_SURROGATE.test(text);
}

function unambiguousBytes(text: string): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  if (!hasLoneSurrogate(text)) return encoder.encode(text);
  const parts: Uint8Array[] = [];
  let start = 0;
  LONE_SURROGATE.lastIndex = 0;
  for (let match = LONE_SURROGATE.exec(text); match !== null; match = LONE_SURROGATE.exec(text)) {
    const unit = text.charCodeAt(match.index);
    parts.push(encoder.encode(text.slice(start, match.index)));
    parts.push(new Uint8Array([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]));
    start = match.index + 1;
  }
  parts.push(encoder.encode(text.slice(start)));
  const bytes = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
