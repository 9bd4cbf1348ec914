/**
 * Benchmark floor on Deno: echo_bare.ts (same answers, same `--envelope`) over Deno's own stdio —
 * `Deno.stdin.read` into one reused buffer and `Deno.stdout.write`, as toolwire's runtime layer uses on
 * Deno — instead of Node's compatibility streams.
 *
 *   deno run -A scripts/bench/echo_bare_deno.ts [--envelope]
 */
import type { DenoApi } from "../../lib/runtime/deno_api.ts";

const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;
const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "echo-bare", version: "1.0.0" } };
const ENVELOPE = deno.args.includes("--envelope");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function answer(line: Uint8Array, out: string[]): void {
  const message = JSON.parse(decoder.decode(line));
  if (message.id === undefined) return;
  const params = message.params ?? {};
  const text = params.arguments?.text;
  const result: Record<string, unknown> = ENVELOPE
    ? envelopeResult(text)
    : { content: [{ type: "text", text }], structuredContent: { text } };
  if (params._meta !== undefined) {
    result.resultType = "complete";
    result._meta = SERVER_META;
  }
  out.push(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
}

function envelopeResult(text: unknown): Record<string, unknown> {
  const envelope = {
    ok: true,
    data: { text },
    error: null,
    warnings: [],
    meta: { timeout_ms: 60000, exit_code: 0, duration_ms: 0 },
  };
  return {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    structuredContent: envelope,
    isError: false,
  };
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await deno.stdout.write(bytes.subarray(written));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

const buffer = new Uint8Array(64 * 1024);
let partial: Uint8Array[] = [];
for (;;) {
  const size = await deno.stdin.read(buffer);
  if (size === null) break;
  const chunk = buffer.subarray(0, size);
  const out: string[] = [];
  let start = 0;
  let newline = chunk.indexOf(10);
  while (newline !== -1) {
    let line: Uint8Array = chunk.subarray(start, newline);
    if (partial.length > 0) {
      partial.push(line);
      line = concat(partial);
      partial = [];
    }
    if (line.length > 0) answer(line, out);
    start = newline + 1;
    newline = chunk.indexOf(10, start);
  }
  // The buffer is reused by the next read: keep a copy of an unfinished line.
  if (start < chunk.length) partial.push(chunk.slice(start));
  if (out.length > 0) await writeAll(encoder.encode(out.length === 1 ? out[0]! : out.join("")));
}
