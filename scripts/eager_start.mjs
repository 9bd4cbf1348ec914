// The start of a tool, compiled when its chunk is. V8 compiles a function the first time it is called, not
// when it loads the file, and Node's compile cache keeps only what was compiled with the file: so each of
// the ~130 top-level functions a start calls would be parsed twice (skimmed with the file, then in full on
// its first call) and compiled at every start, cache or not. A function in parentheses is compiled with the
// file instead, and the cache keeps it. Which functions a start calls is measured, not listed by hand: the
// example tool (examples/notes) is started the ways a client starts it (both MCP eras, a command line)
// under V8's coverage, and each top-level function that ran moves to the top of the chunk as
// `var name = (function name(…) {…});`. At the top, each is defined before any other code of the chunk
// runs, as a hoisted declaration was. The chunk's source map moves with its lines. What it saves:
// docs/performance.md, "The compile cache".
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "build", version: "1.0.0" },
};
const lines = (...messages) =>
  messages.map((message) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`).join("");
const call = { name: "list", arguments: {} };
/** The starts measured: what a client sends first in each era, and a command line. */
const STARTS = [
  {
    args: ["mcp", "serve"],
    input: lines(
      { id: 1, method: "server/discover", params: { _meta: MODERN_META } },
      { id: 2, method: "tools/list", params: { _meta: MODERN_META } },
      { id: 3, method: "tools/call", params: { ...call, _meta: MODERN_META } },
    ),
  },
  {
    args: ["mcp", "serve"],
    input: lines(
      {
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "build", version: "1.0.0" },
        },
      },
      { method: "notifications/initialized" },
      { id: 2, method: "tools/list" },
      { id: 3, method: "tools/call", params: call },
    ),
  },
  { args: ["list"], input: "" },
];

/**
 * Runs each start of `tool` (a script importing the bundled library): where each function of `chunk` that
 * ran starts and ends, and the shape of the answers (without `coverage`, the answers only).
 */
function runStarts(tool, chunk, coverage) {
  const scratch = mkdtempSync(join(tmpdir(), "toolwire-start-"));
  const ran = new Map();
  const outputs = [];
  try {
    for (const [i, start] of STARTS.entries()) {
      const env = { ...process.env, NOTES_HOME: join(scratch, "notes") };
      if (coverage) env.NODE_V8_COVERAGE = join(scratch, `coverage-${i}`);
      const result = spawnSync(process.execPath, [tool, ...start.args], { input: start.input, env });
      if (result.status !== 0) {
        throw new Error(`${tool} ${start.args.join(" ")} exited ${result.status}: ${result.stderr}`);
      }
      outputs.push(
        result.stdout.toString().split("\n").filter(Boolean).map((line) => Object.keys(JSON.parse(line))),
      );
      if (!coverage) continue;
      const url = pathToFileURL(chunk).href;
      for (const file of readdirSync(env.NODE_V8_COVERAGE)) {
        const report = JSON.parse(readFileSync(join(env.NODE_V8_COVERAGE, file), "utf8"));
        for (const script of report.result.filter((script) => script.url === url)) {
          for (const { ranges: [range] } of script.functions) {
            if (range.count > 0) ran.set(range.startOffset, range.endOffset);
          }
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { ran, outputs: JSON.stringify(outputs) };
}

/**
 * Moves the top-level functions of `chunk` that the starts of `tool` run to the top of the chunk, each in
 * parentheses, and rewrites the chunk's source map (`<chunk>.map`) to match. Returns how many moved.
 */
export function eagerStart(chunk, tool) {
  const before = runStarts(tool, chunk, true);
  const text = readFileSync(chunk, "utf8");
  const map = JSON.parse(readFileSync(`${chunk}.map`, "utf8"));
  const textLines = text.split("\n");
  const lineOf = lineIndex(text);
  const mappings = decodeMappings(map.mappings);
  const moved = new Set();
  const hoisted = [];
  let count = 0;
  for (const match of text.matchAll(/^(?:async )?function\*? ?([\w$]+)\(/gm)) {
    const end = before.ran.get(match.index);
    // A declaration that ends its line, as esbuild writes them.
    if (end === undefined || !(end === text.length || text[end] === "\n")) continue;
    const first = lineOf(match.index);
    const last = lineOf(end - 1);
    count++;
    const prefix = `var ${match[1]} = (`;
    for (let line = first; line <= last; line++) {
      moved.add(line);
      const shift = line === first ? prefix.length : 0;
      hoisted.push({
        text: `${line === first ? prefix : ""}${textLines[line]}${line === last ? ");" : ""}`,
        segments: (mappings[line] ?? []).map(([column, ...rest]) => [column + shift, ...rest]),
      });
    }
  }
  const kept = textLines.map((line, i) => ({ text: line, segments: mappings[i] ?? [] })).filter((_, i) =>
    !moved.has(i)
  );
  const result = [...hoisted, ...kept];
  writeFileSync(chunk, result.map((line) => line.text).join("\n"));
  writeFileSync(
    `${chunk}.map`,
    JSON.stringify({ ...map, mappings: encodeMappings(result.map((line) => line.segments)) }),
  );
  const after = runStarts(tool, chunk, false);
  if (after.outputs !== before.outputs) {
    throw new Error(`${tool} answers differently once its start is compiled eagerly`);
  }
  return count;
}

/** A function from an offset of `text` to the index of its line. */
function lineIndex(text) {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A source map's `mappings`, decoded: per generated line, segments of absolute values. */
function decodeMappings(mappings) {
  const state = [0, 0, 0, 0, 0];
  return mappings.split(";").map((line) => {
    state[0] = 0;
    if (line === "") return [];
    return line.split(",").map((segment) => {
      const values = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
          continue;
        }
        values.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
      return values.map((delta, i) => (state[i] += delta));
    });
  });
}

/** The inverse of {@linkcode decodeMappings}. */
function encodeMappings(lines) {
  const state = [0, 0, 0, 0, 0];
  return lines.map((segments) => {
    state[0] = 0;
    return segments.map((segment) =>
      segment.map((value, i) => {
        const delta = value - state[i];
        state[i] = value;
        let vlq = delta < 0 ? (-delta << 1) | 1 : delta << 1;
        let out = "";
        do {
          const digit = vlq & 31;
          vlq >>>= 5;
          out += BASE64[vlq > 0 ? digit | 32 : digit];
        } while (vlq > 0);
        return out;
      }).join("")
    ).join(",");
  }).join(";");
}
