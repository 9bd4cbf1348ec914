/**
 * The edits of a client configuration's text: an object's members as the scanner found them, the layout a
 * new member copies from its neighbours, and the edits that insert a member or replace a value, applied in
 * one pass — every other byte kept.
 * @module
 */
import { indentUnit, type JsonLayout, lineEnd, lineIndent, renderJson } from "./json_layout.ts";
import { type ScannedJson, triviaBetween } from "./json_scan.ts";

/** One change to the text: the characters from `start` to `end` become `text`. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** One member of a scanned object: its key, and the token indices of its key, value and comma. */
export interface Member {
  key: string;
  keyToken: number;
  valueFirst: number;
  valueLast: number;
  comma: number | undefined;
}

/** The members of the object whose `{` is token `open`. */
export function membersOf(scanned: ScannedJson, open: number): Member[] {
  const { tokens, text } = scanned;
  const close = scanned.closing.get(open)!;
  const members: Member[] = [];
  let index = open + 1;
  while (index < close) {
    const keyToken = index;
    const token = tokens[keyToken]!;
    const valueFirst = keyToken + 2;
    const valueLast = scanned.closing.get(valueFirst) ?? valueFirst;
    index = valueLast + 1;
    let comma: number | undefined;
    if (tokens[index]!.kind === ",") comma = index++;
    const key = JSON.parse(text.slice(token.start, token.end)) as string;
    members.push({ key, keyToken, valueFirst, valueLast, comma });
  }
  return members;
}

export function layoutIn(scanned: ScannedJson, open: number, members: readonly Member[]): JsonLayout {
  const { text, tokens } = scanned;
  const close = scanned.closing.get(open)!;
  const inline = members.length > 0
    ? !/[\r\n]/.test(text.slice(tokens[open]!.start, tokens[close]!.end))
    : !/[\r\n]/.test(text);
  const minified = tokens.every((token, index) => index === 0 || tokens[index - 1]!.end === token.start);
  const top = open === 0 ? members : membersOf(scanned, 0);
  return {
    eol: lineEnd(text),
    unit: indentUnit(scanned),
    colon: colonOf(scanned, members[0] ?? top[0]) ?? (minified ? ":" : ": "),
    comma: commaOf(scanned, members) ?? commaOf(scanned, top) ?? (minified ? "" : " "),
    inline,
  };
}

// The spacing around the colon of a member, when it is spaces and tabs only.
function colonOf(scanned: ScannedJson, member: Member | undefined): string | undefined {
  if (member === undefined) return undefined;
  const { text, tokens } = scanned;
  const spacing = text.slice(tokens[member.keyToken]!.end, tokens[member.valueFirst]!.start);
  return /^[ \t]*:[ \t]*$/.test(spacing) ? spacing : undefined;
}

// What follows a comma before the next member on the same line.
function commaOf(scanned: ScannedJson, members: readonly Member[]): string | undefined {
  const { text, tokens } = scanned;
  for (const member of members) {
    if (member.comma === undefined) continue;
    const after = text.slice(tokens[member.comma]!.end, tokens[member.comma + 1]!.start);
    if (/^[ \t]*$/.test(after)) return after;
  }
  return undefined;
}

/** The edits that add `key: value` as the last member of the object opened at token `open`. */
export function insertMember(
  scanned: ScannedJson,
  open: number,
  members: readonly Member[],
  key: string,
  value: unknown,
): Edit[] {
  const { text, tokens } = scanned;
  const layout = layoutIn(scanned, open, members);
  const closeStart = tokens[scanned.closing.get(open)!]!.start;
  const containerIndent = lineIndent(text, tokens[open]!.start).indent;
  const member = (indent: string) =>
    `${JSON.stringify(key)}${layout.colon}${renderJson(value, indent, layout)}`;
  const last = members.at(-1);

  if (last === undefined) {
    const gapStart = tokens[open]!.end;
    const comments = triviaBetween(text, gapStart, closeStart).filter((piece) => piece.kind === "comment");
    const lastComment = comments.at(-1);
    if (layout.inline) {
      if (lastComment === undefined) return [{ start: gapStart, end: closeStart, text: member("") }];
      return [{ start: lastComment.end, end: lastComment.end, text: member("") }];
    }
    if (lastComment === undefined) {
      const indent = containerIndent + layout.unit;
      return [{
        start: gapStart,
        end: closeStart,
        text: `${layout.eol}${indent}${member(indent)}${layout.eol}${containerIndent}`,
      }];
    }
    // After the comments (a commented-out server, a note): indented like the last of them.
    const commentLine = lineIndent(text, lastComment.start);
    const indent = commentLine.first ? commentLine.indent : containerIndent + layout.unit;
    const tail = text.slice(lastComment.end, closeStart);
    if (/[\r\n]/.test(tail)) {
      return [{
        start: lastComment.end,
        end: lastComment.end,
        text: `${layout.eol}${indent}${member(indent)}`,
      }];
    }
    return [{
      start: lastComment.end,
      end: closeStart,
      text: `${layout.eol}${indent}${member(indent)}${layout.eol}${containerIndent}`,
    }];
  }

  const valueEnd = tokens[last.valueLast]!.end;
  const trailingComma = last.comma !== undefined;
  const anchor = trailingComma ? tokens[last.comma!]!.end : valueEnd;
  const comma: Edit[] = trailingComma ? [] : [{ start: valueEnd, end: valueEnd, text: "," }];
  if (layout.inline) {
    const added = `${trailingComma ? layout.comma : `,${layout.comma}`}${member("")}${
      trailingComma ? "," : ""
    }`;
    return [{ start: anchor, end: anchor, text: added }];
  }
  const keyLine = lineIndent(text, tokens[last.keyToken]!.start);
  const indent = keyLine.first ? keyLine.indent : containerIndent + layout.unit;
  const added = `${layout.eol}${indent}${member(indent)}${trailingComma ? "," : ""}`;
  // The new member goes on a line of its own after everything that follows the last one — a comment on its
  // line, commented-out members — before the line that closes the object.
  const comments = triviaBetween(text, anchor, closeStart).filter((piece) => piece.kind === "comment");
  const from = comments.at(-1)?.end ?? anchor;
  const lineBreak = text.slice(from, closeStart).search(/[\r\n]/);
  const at = lineBreak === -1 ? from : from + lineBreak;
  return [...comma, { start: at, end: at, text: added }];
}

/** The edit that replaces a member's value with `value`, laid out like its object. */
export function replaceValue(scanned: ScannedJson, open: number, member: Member, value: unknown): Edit {
  const { text, tokens } = scanned;
  const layout = layoutIn(scanned, open, membersOf(scanned, open));
  const start = tokens[member.valueFirst]!.start;
  const indent = lineIndent(text, start).indent;
  return { start, end: tokens[member.valueLast]!.end, text: renderJson(value, indent, layout) };
}

// From the last edit to the first, so that each one's offsets still hold; of two at one place, the one
// listed first ends up first.
export function applyEdits(source: string, edits: readonly Edit[]): string {
  let text = source;
  const order = edits.map((edit, index) => ({ edit, index }));
  order.sort((a, b) => b.edit.start - a.edit.start || b.index - a.index);
  for (const { edit } of order) {
    text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  }
  return text;
}
