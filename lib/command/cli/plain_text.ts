import type { ResponseEnvelope } from "../contract/envelope.ts";
import type { InputIssue } from "../input/input_values.ts";
import { NO_STYLE, type TextStyle } from "./terminal_style.ts";
import { isRecord } from "../../json.ts";

/** Nesting shown as blocks down to this depth; anything deeper is one line of JSON. */
const MAX_BLOCK_DEPTH = 8;
const INDENT = "  ";

/**
 * Renders a command's `data` for a person: an object as aligned `key: value` lines, with nested objects as
 * indented blocks; an array of flat objects as an aligned table; other arrays as `- ` items. Control
 * characters in the data are shown escaped (`\u001b`), so data cannot drive the terminal.
 *
 * @example
 * ```ts
 * renderPlainData([{ id: 1, title: "milk" }]); // "id  title\n1   milk"
 * renderPlainData({ note: { id: 1 } });          // "note:\n  id: 1"
 * ```
 */
export function renderPlainData(data: unknown, style: TextStyle = NO_STYLE): string {
  if (data === null || data === undefined) return "";
  return renderValue(data, style, 0).join("\n");
}

/** The lines of any value at block level; the value is JSON data (the caller checked it serialises). */
function renderValue(value: unknown, style: TextStyle, depth: number): string[] {
  if (typeof value !== "object" || value === null) return scalarLines(value);
  if (depth >= MAX_BLOCK_DEPTH) return [cleanText(JSON.stringify(value))];
  if (Array.isArray(value)) return renderList(value, style, depth);
  return renderObject(value as Record<string, unknown>, style, depth);
}

function renderObject(object: Record<string, unknown>, style: TextStyle, depth: number): string[] {
  const rows = Object.entries(object);
  if (rows.length === 0) return [];
  const width = widest(rows.map(([key]) => cleanText(key).length));
  const lines: string[] = [];
  for (const [key, value] of rows) {
    const label = `${cleanText(key)}:`;
    if (isBlock(value)) {
      const block = renderValue(value, style, depth + 1);
      lines.push(label);
      append(lines, block.map(indent));
      continue;
    }
    // A multi-line string continues under its first line, aligned with it.
    const [first = "", ...rest] = inlineLines(value);
    const head = `${label.padEnd(width + 1)} `;
    lines.push(`${head}${first}`.trimEnd());
    append(lines, rest.map((line) => `${" ".repeat(head.length)}${line}`.trimEnd()));
  }
  return lines;
}

function renderList(items: unknown[], style: TextStyle, depth: number): string[] {
  if (items.length === 0) return ["(none)"];
  if (items.every(isScalar)) return items.flatMap(scalarLines);
  if (items.every(isFlatObject)) return renderTable(items as Record<string, unknown>[], style);
  const lines: string[] = [];
  for (const item of items) {
    const block = typeof item === "object" && item !== null
      ? renderValue(item, style, depth + 1)
      : inlineLines(item);
    const [first = "", ...rest] = block;
    lines.push(`- ${first}`.trimEnd());
    append(lines, rest.map(indent));
  }
  return lines;
}

function renderTable(rows: Record<string, unknown>[], style: TextStyle): string[] {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const headings = columns.map(cleanText);
  const widths = headings.map((heading, i) => widest(cells.map((row) => row[i]!.length), heading.length));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join("  ").trimEnd();
  return [style.heading(line(headings)), ...cells.map(line)];
}

/** Whether a value gets a block of its own under its key: a non-empty object or an array that is not a list of scalars. */
function isBlock(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.length > 0 && !value.every(isScalar);
  return Object.keys(value).length > 0;
}

/** An object every value of which fits a table cell: a scalar or a list of scalars. */
function isFlatObject(value: unknown): boolean {
  if (!isRecord(value)) return false;
  return Object.values(value).every((member) =>
    isScalar(member) || (Array.isArray(member) && member.every(isScalar))
  );
}

function isScalar(value: unknown): boolean {
  return typeof value !== "object" || value === null;
}

/** A value shown after its key: scalars, lists of scalars joined with commas, empty containers as nothing. */
function inlineLines(value: unknown): string[] {
  if (Array.isArray(value)) return [value.map(cell).join(", ")];
  if (typeof value === "object" && value !== null) return [""];
  return scalarLines(value);
}

function scalarLines(value: unknown): string[] {
  if (value === null || value === undefined) return [""];
  return String(value).split(/\r?\n/).map(cleanText);
}

/** A table cell: one line. */
function cell(value: unknown): string {
  if (Array.isArray(value)) return value.map(cell).join(", ");
  if (value === null || value === undefined) return "";
  return cleanText(String(value).replaceAll(/\r?\n/g, " "));
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

/** Control characters (escape sequences, carriage returns, tabs) shown as `\u001b` & co. */
function cleanText(text: string): string {
  return text.replaceAll(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The largest of the lengths: a loop, since spreading a long list into `Math.max` overflows the stack. */
function widest(lengths: number[], least = 0): number {
  let most = least;
  for (const length of lengths) if (length > most) most = length;
  return most;
}

/** Appends one by one: `push(...more)` overflows the stack on a long list. */
function append(lines: string[], more: string[]): void {
  for (const line of more) lines.push(line);
}

function indent(line: string): string {
  return line === "" ? line : `${INDENT}${line}`;
}

/**
 * Renders a failed envelope as the lines a person reads on stderr: the error, each collected issue, what
 * would have changed, the suggestion.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 *
 * declare const envelope: ResponseEnvelope; // an ARG_ERROR envelope
 * renderPlainError("notes", envelope); // "notes: error: --limit expects an integer, got 'x'"
 * ```
 */
export function renderPlainError(
  tool: string,
  envelope: ResponseEnvelope,
  style: TextStyle = NO_STYLE,
): string {
  const error = envelope.error;
  if (error === null) return "";
  // Messages quote the input (a flag's value, a file's name): its control characters stay inert.
  const text = (value: unknown) => cleanText(String(value));
  const lines: string[] = [];
  const label = `${tool}: ${style.error("error:")}`;
  const issues = Array.isArray(error.issues) ? (error.issues as InputIssue[]) : [];
  if (issues.length > 1) {
    lines.push(`${label} ${issues.length} problems with the input:`);
    for (const issue of issues) {
      lines.push(`  - ${text(issue.message)}${issue.suggestion ? ` (${text(issue.suggestion)})` : ""}`);
    }
  } else {
    lines.push(`${label} ${text(error.message)}`);
    if (issues[0]?.suggestion && issues[0].suggestion !== error.suggestion) {
      lines.push(`  ${text(issues[0].suggestion)}`);
    }
  }
  if (typeof error.preview === "object" && error.preview !== null) {
    lines.push("  would change:");
    append(lines, renderPlainData(error.preview).split("\n").map((line) => `    ${line}`.trimEnd()));
  }
  // The envelope's suggestion for an unconfirmed destructive call speaks to a program (it names
  // error.preview and the MCP argument); a person has just read the preview above it.
  const next = error.code === "CONFIRMATION_REQUIRED" ? CONFIRM_NEXT : error.suggestion;
  if (next) lines.push(`  next: ${text(next)}`);
  return lines.join("\n");
}

const CONFIRM_NEXT = "if that is what you want, run the same command again with --confirm-destructive";
