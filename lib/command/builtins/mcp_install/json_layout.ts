/**
 * How a JSON file is laid out — its line ends, its indentation unit, the spacing after colons and commas —
 * and new values written the same way, so that an entry `mcp install` adds looks as if the file's author
 * had written it: indented like its neighbours in a pretty file, on one line in a compact one, without a
 * single space in a minified one.
 * @module
 */
import type { ScannedJson } from "./json_scan.ts";

/** The layout a new value is written in. */
export interface JsonLayout {
  /** The line end: `\n` or `\r\n`. */
  eol: string;
  /** One level of indentation: two spaces, four, a tab, … */
  unit: string;
  /** What goes between a key and its value: `": "`, `":"`, … */
  colon: string;
  /** What follows a comma on one line: `" "` or nothing. */
  comma: string;
  /** One line for the whole value, or one line per member and element. */
  inline: boolean;
}

/**
 * The line end a text uses: that of its first line break (`\n` when it has none).
 *
 * @example
 * ```ts
 * lineEnd('{\r\n  "a": 1\r\n}'); // "\r\n"
 * ```
 */
export function lineEnd(text: string): string {
  const at = text.indexOf("\n");
  return at > 0 && text[at - 1] === "\r" ? "\r\n" : "\n";
}

/**
 * The indentation of the line `offset` is on: its leading spaces and tabs, and whether `offset` is the first
 * thing on that line after them.
 *
 * @example
 * ```ts
 * lineIndent('{\n    "a": 1\n}', 6); // { indent: "    ", first: true }
 * ```
 */
export function lineIndent(text: string, offset: number): { indent: string; first: boolean } {
  let lineStart = offset;
  while (lineStart > 0 && text[lineStart - 1] !== "\n" && text[lineStart - 1] !== "\r") lineStart--;
  let end = lineStart;
  while (end < offset && (text[end] === " " || text[end] === "\t")) end++;
  return { indent: text.slice(lineStart, end), first: end === offset };
}

/**
 * The indentation unit of a scanned document: how much deeper than the top-level object's line its first
 * member on a line of its own is indented; two spaces when no member is.
 *
 * @example
 * ```ts
 * import { scanJson } from "./json_scan.ts";
 *
 * indentUnit(scanJson('{\n\t"a": 1\n}', { jsonc: false })); // "\t"
 * ```
 */
export function indentUnit(scanned: ScannedJson): string {
  const { text, tokens } = scanned;
  if (tokens[0]?.kind !== "{") return "  ";
  const base = lineIndent(text, tokens[0].start).indent;
  const close = scanned.closing.get(0)!;
  // The top-level keys are the strings that follow the `{` or a comma at depth one.
  for (let index = 1; index < close; index++) {
    const token = tokens[index]!;
    if (token.kind !== "string") continue;
    const line = lineIndent(text, token.start);
    if (line.first && line.indent.length > base.length && line.indent.startsWith(base)) {
      return line.indent.slice(base.length);
    }
    if (line.first) break;
  }
  return "  ";
}

/**
 * A JSON value as text in `layout`, its lines (when it has several) indented from `indent`, the indentation
 * of the line it starts on. Keys keep the order they have in the object.
 *
 * @example
 * ```ts
 * const layout = { eol: "\n", unit: "  ", colon: ": ", comma: " ", inline: false };
 * renderJson({ command: "notes", args: [] }, "", layout); // '{\n  "command": "notes",\n  "args": []\n}'
 * ```
 */
export function renderJson(value: unknown, indent: string, layout: JsonLayout): string {
  if (Array.isArray(value)) {
    return container(
      "[",
      "]",
      value.map((item) => renderJson(item, indent + layout.unit, layout)),
      indent,
      layout,
    );
  }
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([key, item]) =>
      `${JSON.stringify(key)}${layout.colon}${renderJson(item, indent + layout.unit, layout)}`
    );
    return container("{", "}", members, indent, layout);
  }
  return JSON.stringify(value);
}

function container(open: string, close: string, items: string[], indent: string, layout: JsonLayout): string {
  if (items.length === 0) return open + close;
  if (layout.inline) return open + items.join(`,${layout.comma}`) + close;
  const inner = indent + layout.unit;
  return `${open}${layout.eol}${inner}${items.join(`,${layout.eol}${inner}`)}${layout.eol}${indent}${close}`;
}
