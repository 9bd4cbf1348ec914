/**
 * Command lines as one string (`toolwire mcp serve --exec "python3 tool.py --profile dev"`), split into argv
 * the way a POSIX shell splits words — and nothing more. No shell ever runs: there are no variables, globs,
 * pipes, redirections or command substitutions, so `;`, `|`, `$(…)` and backticks are ordinary characters of
 * a word. Quoting follows the shell's rules so that a line copied from a terminal means the same here:
 *
 * - unquoted whitespace separates words; adjacent pieces join (`a"b c"'d'` is one word, `ab cd`);
 * - `'…'` keeps every character as it is, backslashes included;
 * - `"…"` keeps every character except `\"`, `\\`, `` \` ``, `\$` and a backslash-newline, which it unescapes;
 * - outside quotes a backslash keeps the next character as it is; a backslash-newline joins two lines.
 *
 * On Windows a command line is split as Windows programs split their own (`CommandLineToArgvW`;
 * runtime/windows_command_line.ts), so that `C:\tools\cli.exe` keeps its backslashes and a line copied from
 * a Windows terminal or an MCP client's configuration means the same here.
 * @module
 */
import { platformName } from "../runtime/process.ts";
import { joinWindowsCommandLine, splitWindowsCommandLine } from "../runtime/windows_command_line.ts";

/** The result of {@linkcode splitCommandLine}: the words, or why the line cannot be split. */
export type SplitCommandLine = { argv: string[] } | { error: string };

const SEPARATOR = /[ \t\n\r]/;
const DOUBLE_QUOTED_ESCAPES = new Set(['"', "\\", "`", "$", "\n"]);

/**
 * Splits a command line into argv without a shell, by the rules of `platform` (POSIX words, or Windows').
 * An unbalanced quote or a trailing lone backslash is refused with a message naming the position, never
 * guessed at.
 *
 * @example
 * ```ts
 * splitCommandLine(`python3 "my tool.py" --name='a b'`); // { argv: ["python3", "my tool.py", "--name=a b"] }
 * splitCommandLine(`tool "unclosed`); // { error: "unbalanced \" opened at character 6" }
 * splitCommandLine(String.raw`C:\tools\cli.exe --x`, "win32"); // { argv: [String.raw`C:\tools\cli.exe`, "--x"] }
 * ```
 */
export function splitCommandLine(line: string, platform: string = platformName()): SplitCommandLine {
  if (platform === "win32") return splitWindowsCommandLine(line);
  const argv: string[] = [];
  let word = "";
  // A word exists once any part of it was read, so `''` yields an empty argument.
  let inWord = false;
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (SEPARATOR.test(char)) {
      if (inWord) argv.push(word);
      word = "";
      inWord = false;
      index++;
      continue;
    }
    if (char === "\\" && line[index + 1] === "\n") {
      // A backslash-newline continues the line and adds nothing, not even an empty word.
      index += 2;
      continue;
    }
    inWord = true;
    if (char === "'") {
      const close = line.indexOf("'", index + 1);
      if (close === -1) return { error: `unbalanced ' opened at character ${index + 1}` };
      word += line.slice(index + 1, close);
      index = close + 1;
      continue;
    }
    if (char === '"') {
      const read = readDoubleQuoted(line, index);
      if ("error" in read) return read;
      word += read.text;
      index = read.end;
      continue;
    }
    if (char === "\\") {
      const next = line[index + 1];
      if (next === undefined) return { error: `a lone backslash ends the line at character ${index + 1}` };
      word += next;
      index += 2;
      continue;
    }
    word += char;
    index++;
  }
  if (inWord) argv.push(word);
  return { argv };
}

function readDoubleQuoted(line: string, open: number): { text: string; end: number } | { error: string } {
  let text = "";
  let index = open + 1;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '"') return { text, end: index + 1 };
    if (char === "\\" && index + 1 < line.length && DOUBLE_QUOTED_ESCAPES.has(line[index + 1]!)) {
      if (line[index + 1] !== "\n") text += line[index + 1];
      index += 2;
      continue;
    }
    text += char;
    index++;
  }
  return { error: `unbalanced " opened at character ${open + 1}` };
}

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Joins argv into one command line that {@linkcode splitCommandLine} on the same platform (and a POSIX
 * shell, or a Windows program) splits back into the same words: plain words stay as they are; anything
 * else is single-quoted, or on Windows double-quoted by the Windows rules.
 *
 * @example
 * ```ts
 * quoteCommandLine(["python3", "my tool.py", "it's"]); // `python3 'my tool.py' 'it'\''s'`
 * quoteCommandLine(["node", "my tool.js"], "win32"); // `node "my tool.js"`
 * ```
 */
export function quoteCommandLine(argv: readonly string[], platform: string = platformName()): string {
  if (platform === "win32") return joinWindowsCommandLine(argv);
  return argv.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(" ");
}
