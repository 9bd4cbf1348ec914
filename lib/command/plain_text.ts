import type { ResponseEnvelope } from "./envelope.ts";
import type { InputIssue } from "./input_values.ts";

/**
 * Renders a command's `data` for a person: an array of objects as an aligned table, an object as
 * `key: value` lines, nested values as compact JSON.
 *
 * @example
 * ```ts
 * renderPlainData([{ id: 1, title: "milk" }]); // "id  title\n1   milk"
 * ```
 */
export function renderPlainData(data: unknown): string {
  if (data === null || data === undefined) return "";
  if (Array.isArray(data)) return renderList(data);
  if (typeof data === "object") {
    const rows = Object.entries(data as Record<string, unknown>);
    const width = Math.max(0, ...rows.map(([key]) => key.length));
    return rows.map(([key, value]) => `${`${key}:`.padEnd(width + 1)} ${renderCell(value)}`).join("\n");
  }
  return renderCell(data);
}

function renderList(items: unknown[]): string {
  if (items.length === 0) return "(none)";
  if (!items.every((item) => typeof item === "object" && item !== null && !Array.isArray(item))) {
    return items.map(renderCell).join("\n");
  }
  const rows = items as Record<string, unknown>[];
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => renderCell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns), ...cells.map(line)].join("\n");
}

function renderCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value.replaceAll("\n", " ");
  if (Array.isArray(value) && value.every((item) => typeof item !== "object")) return value.join(", ");
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * Renders a failed envelope as the lines a person reads on stderr: the error, each collected issue, the
 * suggestion.
 *
 * @example
 * ```ts
 * renderPlainError("notes", envelope); // "notes: error: --limit expects an integer, got 'x'"
 * ```
 */
export function renderPlainError(tool: string, envelope: ResponseEnvelope): string {
  const error = envelope.error;
  if (error === null) return "";
  const lines: string[] = [];
  const issues = Array.isArray(error.issues) ? (error.issues as InputIssue[]) : [];
  if (issues.length > 1) {
    lines.push(`${tool}: error: ${issues.length} problems with the input:`);
    for (const issue of issues) lines.push(`  - ${issue.message}${issue.suggestion ? ` (${issue.suggestion})` : ""}`);
  } else {
    lines.push(`${tool}: error: ${error.message}`);
    if (issues[0]?.suggestion && issues[0].suggestion !== error.suggestion) lines.push(`  ${issues[0].suggestion}`);
  }
  if (typeof error.preview === "object" && error.preview !== null) {
    lines.push("  would change:", ...renderPlainData(error.preview).split("\n").map((line) => `    ${line}`));
  }
  if (error.suggestion) lines.push(`  next: ${error.suggestion}`);
  return lines.join("\n");
}
