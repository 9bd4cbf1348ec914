import type { ResponseEnvelope } from "./envelope.ts";
import { isRecord } from "../../json.ts";

const ENVELOPE_KEYS = ["ok", "data", "error", "warnings", "meta"] as const;

/**
 * Checks a value against the ResponseEnvelope contract (REQ-F-004) — exactly the keys `ok`, `data`, `error`,
 * `warnings`, `meta`; `error` null exactly when `ok`, else `{code, message, retryable}`; warnings objects;
 * integer `meta.exit_code` and `meta.duration_ms`; `ok` ⇔ `exit_code` 0 — and lists every problem. These
 * are also the rules of the MCP `outputSchema` toolwire gives every tool, so an envelope that passes can be
 * returned as `structuredContent` as it is.
 *
 * @example
 * ```ts
 * validateEnvelope({ ok: true, data: null, error: null, warnings: [], meta: { exit_code: 0, duration_ms: 1 } }); // []
 * ```
 */
export function validateEnvelope(value: unknown): string[] {
  if (!isRecord(value)) return ["an envelope is a JSON object"];
  const problems: string[] = [];
  for (const key of ENVELOPE_KEYS) if (!Object.hasOwn(value, key)) problems.push(`missing key '${key}'`);
  for (const key of Object.keys(value)) {
    if (!(ENVELOPE_KEYS as readonly string[]).includes(key)) problems.push(`unexpected key '${key}'`);
  }
  if (typeof value.ok !== "boolean") problems.push("ok must be a boolean");
  if (value.ok === true && value.error !== null) problems.push("error must be null when ok is true");
  if (value.ok === false) problems.push(...errorProblems(value.error));
  if (!Array.isArray(value.warnings) || !value.warnings.every(isRecord)) {
    problems.push("warnings must be an array of objects");
  }
  if (!isRecord(value.meta)) {
    problems.push("meta must be an object with exit_code and duration_ms");
    return problems;
  }
  const { exit_code: exitCode, duration_ms: duration } = value.meta;
  if (!Number.isSafeInteger(exitCode) || (exitCode as number) < 0) {
    problems.push("meta.exit_code must be an integer >= 0");
  }
  if (!Number.isSafeInteger(duration) || (duration as number) < 0) {
    problems.push("meta.duration_ms must be an integer >= 0");
  }
  if (typeof value.ok === "boolean" && Number.isSafeInteger(exitCode) && value.ok !== (exitCode === 0)) {
    problems.push(
      `ok is ${value.ok} but meta.exit_code is ${exitCode}: ok must be true exactly when the exit code is 0`,
    );
  }
  return problems;
}

function errorProblems(error: unknown): string[] {
  if (!isRecord(error)) return ["error must be an object {code, message, retryable} when ok is false"];
  const problems: string[] = [];
  if (typeof error.code !== "string" || error.code === "") {
    problems.push("error.code must be a non-empty string");
  }
  if (typeof error.message !== "string") problems.push("error.message must be a string");
  if (typeof error.retryable !== "boolean") problems.push("error.retryable must be a boolean");
  return problems;
}

/**
 * Reads one line of output as an envelope: JSON, then {@linkcode validateEnvelope}. A line that is not one
 * comes back with every reason why.
 *
 * @example
 * ```ts
 * declare const lastLine: string; // the last line a command printed
 * const read = readEnvelope(lastLine);
 * if ("envelope" in read) console.log(read.envelope.meta.exit_code);
 * else console.error(read.problems.join("; "));
 * ```
 */
export function readEnvelope(line: string): { envelope: ResponseEnvelope } | { problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problems: ["the line is not JSON"] };
  }
  const problems = validateEnvelope(value);
  return problems.length === 0 ? { envelope: value as ResponseEnvelope } : { problems };
}
