/**
 * Benchmark floor: no MCP at all. A minimal stdin line loop — split on `\n`, JSON.parse, JSON.stringify —
 * that answers every request line (a line with an `id`) with a well-formed tools/call result echoing
 * `params.arguments.text`, shaped like the SDK servers' (content + structuredContent; modern requests also
 * get `resultType` and `_meta.serverInfo`). Lines without an id (notifications) get no answer.
 *
 * With `--envelope` it answers the way toolwire does — the ResponseEnvelope as `structuredContent` and as
 * JSON text in `content` — so the same floor can be compared at the same reply size.
 *
 * Like the library, it takes `process` from the global: importing `node:process` costs every Node start about
 * a millisecond (docs/performance.md), and a floor must not carry what toolwire avoids.
 */
import { Buffer } from "node:buffer";

const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "echo-bare", version: "1.0.0" } };
const process = globalThis.process;
let partial: Buffer[] = [];

const ENVELOPE = process.argv.includes("--envelope");

function answer(line: Buffer, out: string[]): void {
  const message = JSON.parse(line.toString("utf8"));
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

process.stdin.on("data", (chunk: Buffer) => {
  const out: string[] = [];
  let start = 0;
  let newline = chunk.indexOf(10);
  while (newline !== -1) {
    let line = chunk.subarray(start, newline);
    if (partial.length > 0) {
      partial.push(line);
      line = Buffer.concat(partial);
      partial = [];
    }
    if (line.length > 0) answer(line, out);
    start = newline + 1;
    newline = chunk.indexOf(10, start);
  }
  if (start < chunk.length) partial.push(chunk.subarray(start));
  if (out.length > 0) process.stdout.write(out.length === 1 ? out[0]! : out.join(""));
});
