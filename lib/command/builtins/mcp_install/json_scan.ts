/**
 * A scanner for JSON and JSONC (JSON with `//` and `/* *\/` comments and trailing commas, as VS Code reads
 * it) that keeps where every token is, so a file can be edited in place: `mcp install` changes the bytes of
 * one server entry and leaves every other byte — numbers, escapes, key order, comments, layout — as it was.
 * Values are not decoded here; the editor reads the few it needs from their text.
 *
 * The whole text is checked, with an explicit stack rather than recursion, so a file nested deeper than any
 * stack is still scanned, and a file the client could not read is never changed.
 * @module
 */

/** A token's kind: a punctuation character, or a string, number or literal (`true`, `false`, `null`). */
export type JsonTokenKind = "{" | "}" | "[" | "]" | ":" | "," | "string" | "number" | "literal";

/** One token: its kind and where it is in the text (`end` exclusive). */
export interface JsonToken {
  kind: JsonTokenKind;
  start: number;
  end: number;
}

/** A scanned document: its tokens, and for each `{` or `[` the index of the token that closes it. */
export interface ScannedJson {
  text: string;
  tokens: readonly JsonToken[];
  /** Token index of a `{` or `[` → the index of its `}` or `]`. */
  closing: ReadonlyMap<number, number>;
}

/** What the scanner accepts besides JSON. */
export interface JsonDialect {
  /** `//` and `/* *\/` comments, and a comma after the last member or element. */
  jsonc: boolean;
}

/**
 * A text that is not JSON (or JSONC) in the dialect asked for: what was wrong, and where.
 *
 * @example
 * ```ts
 * try {
 *   scanJson('{"a": 1,}', { jsonc: false });
 * } catch (error) {
 *   if (error instanceof JsonSyntaxError) console.error(`line ${error.line}: ${error.message}`);
 * }
 * ```
 */
export class JsonSyntaxError extends Error {
  /** What is wrong, without the place: `a comment`, `unexpected '}'`. */
  readonly what: string;
  /** The offset in the text. */
  readonly offset: number;
  /** 1-based line and column. */
  readonly line: number;
  readonly column: number;

  constructor(text: string, offset: number, what: string) {
    const { line, column } = lineAndColumn(text, offset);
    super(`${what} at line ${line}, column ${column}`);
    this.name = "JsonSyntaxError";
    this.what = what;
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX = /^[0-9A-Fa-f]{4}$/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

/** Where the grammar is: what the next token may be. */
type Expect =
  | "value" // a value: at the top, after `:`, after `,` in an array
  | "value-or-close" // after `[`
  | "key" // after `,` in an object
  | "key-or-close" // after `{`
  | "colon" // after a key
  | "comma-or-close" // after a member's value or an element
  | "end"; // after the top-level value

/**
 * Scans `text` from `start` (past a byte-order mark) as one JSON value, in the dialect given; throws
 * {@linkcode JsonSyntaxError} at the first thing that does not belong, so a text it returns is one the
 * client reads as well.
 *
 * @example
 * ```ts
 * const scanned = scanJson('{"a": [1, 2]}', { jsonc: false });
 * scanned.tokens.length; // 9
 * scanned.closing.get(0); // 8
 * ```
 */
export function scanJson(text: string, dialect: JsonDialect, start = 0): ScannedJson {
  const tokens: JsonToken[] = [];
  const closing = new Map<number, number>();
  // The open containers, innermost last: their kind and the index of their opening token.
  const open: Array<{ kind: "{" | "["; index: number }> = [];
  let expect: Expect = "value";
  let at = start;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(text, at, what);
  };
  const afterValue = (): Expect => open.length === 0 ? "end" : "comma-or-close";

  while (true) {
    at = skipTrivia(text, at, dialect);
    if (at >= text.length) break;
    const char = text[at]!;
    const tokenStart = at;
    let kind: JsonTokenKind;
    if (char === "{" || char === "[") {
      if (expect !== "value" && expect !== "value-or-close") fail(`unexpected '${char}'`);
      kind = char;
      at++;
      open.push({ kind: char, index: tokens.length });
      expect = char === "{" ? "key-or-close" : "value-or-close";
    } else if (char === "}" || char === "]") {
      const inner = open.at(-1);
      const closes = inner !== undefined && (inner.kind === "{" ? "}" : "]") === char;
      const trailing = expect === (char === "}" ? "key" : "value") && dialect.jsonc;
      const allowed = expect === "comma-or-close" || trailing ||
        (char === "}" ? expect === "key-or-close" : expect === "value-or-close");
      if (!closes || !allowed) {
        fail(
          closes && tokens.at(-1)?.kind === "," ? `a comma before '${char}'` : `unexpected '${char}'`,
        );
      }
      kind = char;
      at++;
      closing.set(open.pop()!.index, tokens.length);
      expect = afterValue();
    } else if (char === ":") {
      if (expect !== "colon") fail("unexpected ':'");
      kind = ":";
      at++;
      expect = "value";
    } else if (char === ",") {
      if (expect !== "comma-or-close") fail("unexpected ','");
      kind = ",";
      at++;
      expect = open.at(-1)!.kind === "{" ? "key" : "value";
    } else if (char === '"') {
      const isKey = expect === "key" || expect === "key-or-close";
      if (!isKey && expect !== "value" && expect !== "value-or-close") fail("unexpected string");
      kind = "string";
      at = skipString(text, at);
      if (isKey) expect = "colon";
      else expect = afterValue();
    } else {
      if (expect !== "value" && expect !== "value-or-close") {
        fail(expect === "end" ? "text after the JSON value" : `unexpected '${char}'`);
      }
      const end = matchAt(NUMBER, text, at) ?? matchAt(LITERAL, text, at);
      if (end === undefined) fail(`unexpected '${char}' (not a JSON value)`);
      kind = text[at] === "-" || (text[at]! >= "0" && text[at]! <= "9") ? "number" : "literal";
      at = end!;
      expect = afterValue();
    }
    tokens.push({ kind, start: tokenStart, end: at });
  }
  if (tokens.length === 0) fail("no JSON value");
  if (expect !== "end") fail("the text ends inside the JSON value");
  return { text, tokens, closing };
}

function matchAt(pattern: RegExp, text: string, at: number): number | undefined {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : undefined;
}

/** The offset after whitespace and (in JSONC) comments; a comment in plain JSON is an error. */
function skipTrivia(text: string, at: number, dialect: JsonDialect): number {
  while (at < text.length) {
    const char = text[at]!;
    if (WHITESPACE.has(char)) {
      at++;
      continue;
    }
    if (char !== "/") return at;
    const next = text[at + 1];
    if (next !== "/" && next !== "*") throw new JsonSyntaxError(text, at, "unexpected '/'");
    if (!dialect.jsonc) throw new JsonSyntaxError(text, at, "a comment");
    at = commentEnd(text, at);
  }
  return at;
}

// Where the comment that starts at `at` ends: a line comment before its line break, a block comment after
// its closing `*` `/`.
function commentEnd(text: string, at: number): number {
  if (text[at + 1] === "/") {
    let end = at + 2;
    while (end < text.length && text[end] !== "\n" && text[end] !== "\r") end++;
    return end;
  }
  const close = text.indexOf("*/", at + 2);
  if (close === -1) throw new JsonSyntaxError(text, at, "a comment that is never closed");
  return close + 2;
}

function skipString(text: string, at: number): number {
  let end = at + 1;
  while (true) {
    if (end >= text.length) throw new JsonSyntaxError(text, at, "a string that is never closed");
    const char = text[end]!;
    if (char === '"') return end + 1;
    if (char < " ") throw new JsonSyntaxError(text, end, "a control character in a string (escape it)");
    if (char === "\\") {
      const escape = text[end + 1] ?? "";
      if (escape === "u") {
        if (!HEX.test(text.slice(end + 2, end + 6))) {
          throw new JsonSyntaxError(text, end, "a \\u escape without four hex digits");
        }
        end += 6;
        continue;
      }
      if (!ESCAPES.has(escape)) throw new JsonSyntaxError(text, end, `an invalid escape '\\${escape}'`);
      end += 2;
      continue;
    }
    end++;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const char = text[i];
    if (char === "\n" || (char === "\r" && text[i + 1] !== "\n")) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The JSON text of the value from token `first` to token `last` (inclusive), comments and trailing commas
 * left out, for `JSON.parse`.
 *
 * @example
 * ```ts
 * const scanned = scanJson('[1, /* two *\/ 2,]', { jsonc: true });
 * strictJson(scanned, 0, scanned.tokens.length - 1); // "[1,2]"
 * ```
 */
export function strictJson(scanned: ScannedJson, first: number, last: number): string {
  let out = "";
  for (let index = first; index <= last; index++) {
    const token = scanned.tokens[index]!;
    const next = scanned.tokens[index + 1];
    if (token.kind === "," && (next?.kind === "}" || next?.kind === "]")) continue;
    out += scanned.text.slice(token.start, token.end);
  }
  return out;
}

/** A stretch of whitespace or one comment, between two tokens. */
export interface Trivia {
  kind: "space" | "comment";
  start: number;
  end: number;
}

/**
 * The whitespace runs and comments between two offsets of a scanned text (which holds nothing else there).
 *
 * @example
 * ```ts
 * triviaBetween("1 // one\n", 1, 9); // space 1–2, comment 2–8, space 8–9
 * ```
 */
export function triviaBetween(text: string, from: number, to: number): Trivia[] {
  const pieces: Trivia[] = [];
  let at = from;
  while (at < to) {
    if (text[at] === "/") {
      const end = commentEnd(text, at);
      pieces.push({ kind: "comment", start: at, end });
      at = end;
      continue;
    }
    let end = at;
    while (end < to && text[end] !== "/") end++;
    pieces.push({ kind: "space", start: at, end });
    at = end;
  }
  return pieces;
}

/**
 * Whether a text holds nothing but whitespace and (in JSONC) comments from `start` on; throws
 * {@linkcode JsonSyntaxError} for a comment plain JSON does not allow, or one that is never closed.
 *
 * @example
 * ```ts
 * onlyTrivia("// nothing yet\n", { jsonc: true }); // true
 * ```
 */
export function onlyTrivia(text: string, dialect: JsonDialect, start = 0): boolean {
  return skipTrivia(text, start, dialect) >= text.length;
}
