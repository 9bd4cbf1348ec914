// `mergeServer` on generated configurations (a property; the seed is printed, TOOLWIRE_PROPERTY_SEED replays
// a run): numbers at the limits of a double, every escape, unicode, integer-like keys, nested values, odd
// whitespace, CRLF, a byte-order mark, compact, pretty and minified layouts, other servers and top-level
// keys, the target server present (the same entry or another) or not, and — for a JSONC client — comments
// and trailing commas anywhere. After the merge, every character outside the edited entry (and the
// separators around it) is the same, every comment is still there once, and the text parses to the
// original value with only that entry changed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import fc from "fast-check";
import { mergeServer } from "../../lib/command/builtins/mcp_install/config_merge.ts";
import { propertySettings } from "../reliability/mcp_scenario.ts";
import type { Loose } from "../helpers/run.ts";

/** A generated JSON value: a scalar's text as written, or a container. */
type Node =
  | { t: "scalar"; text: string }
  | { t: "array"; items: Node[] }
  | { t: "object"; members: Member[] };

interface Member {
  key: string; // the key's JSON text, quotes included
  value: Node;
}

/** A generated configuration: top-level members, and maybe the servers object at some position. */
interface Doc {
  others: Member[];
  servers: { at: number; others: Member[]; target: { at: number; value: Node } | undefined } | undefined;
}

interface Style {
  layout: "pretty" | "compact" | "minified";
  unit: string;
  eol: string;
  bom: boolean;
  finalNewline: boolean;
  /** Random extra whitespace between tokens. */
  odd: boolean;
  /** Comments and trailing commas (only for a JSONC client). */
  jsonc: boolean;
  /** Decorations are drawn from this seed. */
  seed: number;
  /** A file with no value at all: blank, or only comments. */
  blank: boolean;
}

const ENTRY = {
  type: "stdio",
  command: "/usr/bin/node",
  args: ["/opt/notes é/main.js", "mcp", "serve"],
  env: { NOTES_HOME: "/srv/notes" },
};
const NAME = "notes";
// The character comments are marked with: no generated string holds it, so each comment is found exactly.
const MARK = "\u2042";

const NUMBERS = [
  "0",
  "-0",
  "-0.0",
  "12345678901234567890",
  "-12345678901234567890",
  "9007199254740993",
  "1e400",
  "-1e400",
  "1E+2",
  "1e-400",
  "2.5e-324",
  "1.7976931348623157e308",
  "123.456e-7",
  "0.1",
];
const ESCAPES = [
  '\\"',
  "\\\\",
  "\\/",
  "\\b",
  "\\f",
  "\\n",
  "\\r",
  "\\t",
  "\\u0000",
  "\\u001f",
  "\\u00e9",
  "\\ud800",
  "\\udfff",
  "\\ud83d\\ude00",
  "\\u2028",
  "\\uFEFF",
];
const RAW = ["é", "😀", "中", "\u2028", "\u2029", "\u00a0", "e\u0301", "\uFEFF", "\u007f"];

function stringText(jsonc: boolean): fc.Arbitrary<string> {
  // Characters that look like syntax, to catch a scanner that looks inside strings; no comma in JSONC, so
  // that the oracle below can drop trailing commas with a pattern.
  const plain = fc.constantFrom(..."ab Z09{}[]:/*-+.#'", ...(jsonc ? [] : [","]));
  const piece = fc.oneof(
    plain,
    fc.constantFrom(...ESCAPES),
    fc.constantFrom(...RAW),
    fc.constantFrom("//", "/*", "*/"),
  );
  return fc.array(piece, { maxLength: 6 }).map((pieces) => `"${pieces.join("")}"`);
}

function keyText(jsonc: boolean, avoid: string[]): fc.Arbitrary<string> {
  const special = fc.constantFrom('"42"', '"2024"', '"0"', '"__proto__"', '"constructor"', '""');
  return fc.oneof(special, stringText(jsonc)).filter((key) => !avoid.includes(JSON.parse(key)));
}

function valueArb(jsonc: boolean): fc.Arbitrary<Node> {
  const { node } = fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 3, depthIdentifier: "value" },
      fc.oneof(
        fc.constantFrom(...NUMBERS),
        fc.integer().map(String),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
        fc.constantFrom("true", "false", "null"),
        stringText(jsonc),
      ).map((text): Node => ({ t: "scalar", text })),
      fc.array(tie("node"), { maxLength: 3 }).map((items): Node => ({ t: "array", items })),
      fc.array(fc.record({ key: keyText(jsonc, []), value: tie("node") }), { maxLength: 3 })
        .map((members): Node => ({ t: "object", members })),
    ),
  }));
  return node;
}

/** The model of a plain value. */
function nodeOf(value: unknown): Node {
  if (Array.isArray(value)) return { t: "array", items: value.map(nodeOf) };
  if (value !== null && typeof value === "object") {
    return {
      t: "object",
      members: Object.entries(value).map(([key, item]) => ({
        key: JSON.stringify(key),
        value: nodeOf(item),
      })),
    };
  }
  return { t: "scalar", text: JSON.stringify(value) };
}

function docArb(jsonc: boolean, serversKey: string): fc.Arbitrary<Doc> {
  const member = (avoid: string[]) => fc.record({ key: keyText(jsonc, avoid), value: valueArb(jsonc) });
  const target = fc.oneof(
    fc.constant(nodeOf(ENTRY)), // the same entry: nothing to change
    fc.constant(nodeOf({ command: "old", args: [] })),
    valueArb(jsonc),
  );
  const servers = fc.record({
    at: fc.nat(),
    others: fc.array(member([NAME]), { maxLength: 3 }),
    target: fc.option(fc.record({ at: fc.nat(), value: target }), { nil: undefined }),
  });
  return fc.record({
    others: fc.array(member([serversKey]), { maxLength: 4 }),
    servers: fc.option(servers, { nil: undefined }),
  });
}

function styleArb(jsonc: boolean): fc.Arbitrary<Style> {
  return fc.record({
    layout: fc.constantFrom("pretty", "compact", "minified"),
    unit: fc.constantFrom("  ", "    ", "\t", " "),
    eol: fc.constantFrom("\n", "\r\n"),
    bom: fc.boolean(),
    finalNewline: fc.boolean(),
    odd: fc.boolean(),
    jsonc: fc.constant(jsonc),
    seed: fc.integer(),
    blank: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
  });
}

/** Where the edit may happen: offsets the renderer records in the text it writes. */
interface Marks {
  rootOpen: number;
  rootClose: number;
  rootLastEnd?: number;
  serversOpen?: number;
  serversClose?: number;
  serversLastEnd?: number;
  targetStart?: number;
  targetEnd?: number;
}

/** Writes a document in a style, recording the comments it adds and the offsets the property needs. */
class Renderer {
  text = "";
  readonly comments: string[] = [];
  readonly marks: Partial<Marks> = {};
  #state: number;

  constructor(readonly style: Style) {
    this.#state = style.seed | 0;
  }

  // mulberry32: decorations from the style's seed, so a failing case replays from fast-check's seed.
  #random(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.#state ^ (this.#state >>> 15), 1 | this.#state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)]!;
  }

  /** Whitespace between two tokens: the layout's, perhaps made odd, perhaps with a comment. */
  gap(canonical: string): void {
    const { eol } = this.style;
    let text = canonical;
    if (this.style.odd && this.#random() < 0.3) {
      text = this.#pick([" ", "\t", "", eol, `${eol}\t `, `  ${eol}${eol}`]);
    }
    if (this.style.jsonc && this.#random() < 0.2) {
      const id = `${MARK}${this.comments.length}${MARK}`;
      const comment = this.#random() < 0.5 ? `/*${id} */` : `//${id}`;
      this.comments.push(comment);
      const spaced = comment.startsWith("//") ? `${comment}${eol}` : comment;
      text = this.#random() < 0.5 ? `${spaced}${text}` : `${text}${spaced}`;
    }
    this.text += text;
  }

  #indent(depth: number): string {
    return this.style.unit.repeat(depth);
  }

  #open(depth: number): string {
    if (this.style.layout === "pretty") return `${this.style.eol}${this.#indent(depth + 1)}`;
    return this.style.layout === "compact" ? " " : "";
  }

  #between(depth: number): string {
    if (this.style.layout === "pretty") return `${this.style.eol}${this.#indent(depth + 1)}`;
    return this.style.layout === "compact" ? " " : "";
  }

  #close(depth: number): string {
    if (this.style.layout === "pretty") return `${this.style.eol}${this.#indent(depth)}`;
    return this.style.layout === "compact" ? " " : "";
  }

  value(node: Node, depth: number): void {
    if (node.t === "scalar") {
      this.text += node.text;
      return;
    }
    if (node.t === "array") {
      this.#container(
        "[",
        "]",
        node.items.length,
        depth,
        (index) => this.value(node.items[index]!, depth + 1),
      );
      return;
    }
    this.object(node.members, depth);
  }

  /** An object; `role` records its offsets (and the target member's) in the marks. */
  object(members: readonly Member[], depth: number, role?: "root" | "servers", target?: number): void {
    const open = this.text.length;
    let lastEnd: number | undefined;
    this.#container("{", "}", members.length, depth, (index) => {
      const member = members[index]!;
      this.text += member.key;
      this.gap("");
      this.text += ":";
      this.gap(this.style.layout === "minified" ? "" : " ");
      if (index === target) this.marks.targetStart = this.text.length;
      if (role === "root" && member.value === SERVERS_SLOT) this.#servers(depth + 1);
      else this.value(member.value, depth + 1);
      if (index === target) this.marks.targetEnd = this.text.length;
      lastEnd = this.text.length;
    });
    const close = this.text.length - 1;
    if (role === "root") {
      Object.assign(this.marks, { rootOpen: open, rootClose: close, rootLastEnd: lastEnd });
    }
    if (role === "servers") {
      Object.assign(this.marks, { serversOpen: open, serversClose: close, serversLastEnd: lastEnd });
    }
  }

  #serversMembers: Member[] = [];
  #serversTarget: number | undefined;

  /** The document's servers object, written where the root's placeholder member is. */
  setServers(members: Member[], target: number | undefined): void {
    this.#serversMembers = members;
    this.#serversTarget = target;
  }

  #servers(depth: number): void {
    this.object(this.#serversMembers, depth, "servers", this.#serversTarget);
  }

  #container(open: string, close: string, count: number, depth: number, item: (index: number) => void): void {
    this.text += open;
    if (count === 0) {
      this.gap("");
      this.text += close;
      return;
    }
    this.gap(this.#open(depth));
    for (let index = 0; index < count; index++) {
      if (index > 0) {
        this.text += ",";
        this.gap(this.#between(depth));
      }
      item(index);
      if (index < count - 1) this.gap("");
    }
    if (this.style.jsonc && this.#random() < 0.3) {
      this.gap("");
      this.text += ",";
    }
    this.gap(this.#close(depth));
    this.text += close;
  }
}

// The root member that stands for the servers object (its key is the servers key).
const SERVERS_SLOT: Node = { t: "scalar", text: "null" };

/** The document as text in a style, with its marks and comments. */
function render(
  doc: Doc,
  style: Style,
  serversKey: string,
): { text: string; marks: Partial<Marks>; comments: string[] } {
  const renderer = new Renderer(style);
  if (style.bom) renderer.text += "\uFEFF";
  if (style.blank) {
    renderer.gap(style.eol);
    return { text: renderer.text, marks: {}, comments: renderer.comments };
  }
  renderer.gap("");
  const root = [...doc.others];
  let target: number | undefined;
  if (doc.servers !== undefined) {
    const members = [...doc.servers.others];
    if (doc.servers.target !== undefined) {
      target = doc.servers.target.at % (members.length + 1);
      members.splice(target, 0, { key: JSON.stringify(NAME), value: doc.servers.target.value });
    }
    renderer.setServers(members, target);
    root.splice(doc.servers.at % (root.length + 1), 0, {
      key: JSON.stringify(serversKey),
      value: SERVERS_SLOT,
    });
  }
  renderer.object(root, 0, "root");
  renderer.gap(style.finalNewline ? style.eol : "");
  return { text: renderer.text, marks: renderer.marks, comments: renderer.comments };
}

/**
 * The value a text stands for, read without the scanner under test: plain JSON as it is; JSONC with its
 * (known, marked) comments removed, and then its trailing commas, which no generated JSONC string can hold.
 */
function parseResult(text: string, comments: readonly string[], jsonc: boolean): unknown {
  let json = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (!jsonc) return JSON.parse(json);
  for (const comment of comments) json = json.replace(comment, "");
  return JSON.parse(json.replace(/,(\s*[\]}])/g, "$1"));
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe("mergeServer on generated configurations", () => {
  for (const jsonc of [false, true]) {
    const dialect = jsonc ? "JSONC" : "JSON";
    it(`${dialect}: only the entry's bytes change, the comments stay, the value is the original with the entry set`, () => {
      const settings = propertySettings(`config merge, ${dialect}`, 1000, (name) => process.env[name]);
      const input = fc.constantFrom("mcpServers", "servers").chain((key) =>
        fc.record({ key: fc.constant(key), doc: docArb(jsonc, key), style: styleArb(jsonc) })
      );
      fc.assert(
        fc.property(input, ({ key, doc, style }) => {
          const file = render(style.blank ? { others: [], servers: undefined } : doc, style, key);
          try {
            check(style.blank ? { others: [], servers: undefined } : doc, style, key, file);
          } catch (error) {
            // fast-check shows the generated model; the file's text is what a person needs to read.
            throw new Error(`${(error as Error).message}\nfile: ${JSON.stringify(file.text)}`, {
              cause: error,
            });
          }
        }),
        {
          seed: settings.seed,
          numRuns: settings.runs,
          ...(settings.path === undefined ? {} : { path: settings.path }),
        },
      );
    });
  }
});

function check(doc: Doc, style: Style, key: string, file: ReturnType<typeof render>): void {
  const { text, marks, comments } = file;
  const merge = mergeServer(text, {
    path: "config.json",
    client: style.jsonc ? "VS Code" : "Cursor",
    jsonc: style.jsonc,
    serversKey: key,
    name: NAME,
    entry: ENTRY,
    force: true,
  });

  // The value: the original's (read from a plain rendering of the same model), with only the entry set.
  const plain = { ...style, layout: "minified", odd: false, jsonc: false, bom: false } as const;
  const expected = (style.blank ? {} : JSON.parse(render(doc, plain, key).text)) as Record<string, Loose>;
  const before: unknown = expected[key]?.[NAME];
  if (!Object.hasOwn(expected, key)) expected[key] = {};
  expected[key][NAME] = ENTRY;
  assert.deepEqual(parseResult(merge.text, comments, style.jsonc), expected);

  // What changed.
  const present = doc.servers?.target !== undefined;
  const same = present && JSON.stringify(before) === JSON.stringify(ENTRY);
  assert.equal(merge.change, !present ? "create" : same ? "none" : "replace");
  if (present) assert.deepEqual(merge.before, before);
  if (same) assert.equal(merge.text, text, "the same entry: not a byte changed");

  // The comments: one inside a replaced entry goes with it (the backup keeps it); every other one stays.
  const replaced = present && !same ? text.slice(marks.targetStart, marks.targetEnd) : "";
  for (const comment of comments) {
    assert.equal(
      occurrences(merge.text, comment),
      replaced.includes(comment) ? 0 : 1,
      `${comment} kept once`,
    );
  }
  if (style.blank) return;

  // Where: every character before and after the edited stretch is the same.
  const [from, to] = present
    ? [marks.targetStart!, marks.targetEnd!]
    : doc.servers !== undefined
    ? [marks.serversLastEnd ?? marks.serversOpen! + 1, marks.serversClose!]
    : [marks.rootLastEnd ?? marks.rootOpen! + 1, marks.rootClose!];
  assert.ok(merge.text.startsWith(text.slice(0, from)), "every character before the edit is the same");
  assert.ok(merge.text.endsWith(text.slice(to)), "every character after the edit is the same");
  assert.ok(merge.text.length >= from + text.length - to, "the edit removes nothing outside its stretch");
}
