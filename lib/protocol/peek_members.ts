const decoder = new TextDecoder();

/**
 * Reads the top-level string and number members named in `keys` from the first bytes of a JSON object that
 * may be cut off anywhere — the `head` of a message too large to read whole. Only members that appear
 * complete before the cut are returned; a nested member of the same name is never mistaken for a top-level
 * one. Used to answer an oversized request by its id (LSP) or seq (DAP) without ever holding its body.
 *
 * @example
 * ```ts
 * const head = new TextEncoder().encode('{"jsonrpc":"2.0","id":7,"method":"x","params":{"text":"aaaa');
 * peekTopLevelMembers(head, ["id", "method"]); // { id: 7, method: "x" }
 * ```
 */
export function peekTopLevelMembers(
  head: Uint8Array,
  keys: readonly string[],
): Record<string, string | number> {
  const text = decoder.decode(head);
  const found: Record<string, string | number> = {};
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return found;
  i = skipSpace(text, i + 1);
  while (i < text.length && text[i] === '"') {
    const key = readString(text, i);
    if (key === undefined) break;
    i = skipSpace(text, key.end);
    if (text[i] !== ":") break;
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end === undefined) break;
    if (keys.includes(key.value)) {
      const value = scalar(text.slice(i, end));
      if (value !== undefined) found[key.value] = value;
    }
    i = skipSpace(text, end);
    if (text[i] !== ",") break;
    i = skipSpace(text, i + 1);
  }
  return found;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) {
    i++;
  }
  return i;
}

/** A string literal starting at `i`, or `undefined` when it is cut off or invalid. */
function readString(text: string, i: number): { value: string; end: number } | undefined {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') {
      try {
        return { value: JSON.parse(text.slice(i, j + 1)) as string, end: j + 1 };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Where the value starting at `i` ends, or `undefined` when the head is cut off inside it. */
function valueEnd(text: string, i: number): number | undefined {
  if (text[i] === '"') return readString(text, i)?.end;
  if (text[i] === "{" || text[i] === "[") {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') {
        const string = readString(text, j);
        if (string === undefined) return undefined;
        j = string.end - 1;
      } else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return undefined;
  }
  // A number or a literal: complete only once something follows it, else `12` might be the start of `123`.
  let j = i;
  while (j < text.length && !",}] \t\r\n".includes(text[j]!)) j++;
  return j < text.length && j > i ? j : undefined;
}

function scalar(literal: string): string | number | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === "string" || typeof value === "number" ? value : undefined;
  } catch {
    return undefined;
  }
}
