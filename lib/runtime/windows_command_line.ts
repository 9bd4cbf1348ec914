/**
 * Windows command lines. A Windows program receives one string, not an argv, and splits it itself; nearly
 * every program (node.exe, python.exe, anything built with the C runtime) splits it by the rules of
 * `CommandLineToArgvW`. cmd.exe reads the same string by rules of its own first (`%VAR%`, `^`, `&`, `|`,
 * `<`, `>`), so a line meant for a batch file must survive both readers. This module holds both sets of
 * rules, and nothing else: it touches no runtime API, so it can be proven on any platform.
 *
 * The argv rules, as the C runtime reads a command line:
 * - the first word, the program, ends at the first space or tab outside quotes; quotes in it only group;
 * - later words are separated by unquoted spaces and tabs, and `"` starts or ends a quoted part;
 * - backslashes are literal unless they come before a `"`: then 2n of them mean n backslashes and the quote
 *   quotes, 2n+1 mean n backslashes and a literal `"`;
 * - inside a quoted part, `""` is one literal `"` and the part goes on.
 * @module
 */

/** A command line split into argv, or why it cannot be. */
export type SplitWindowsLine = { argv: string[] } | { error: string };

/**
 * The longest command line cmd.exe accepts, in characters: a longer one is cut, and would run something
 * else than was asked.
 */
export const CMD_LINE_LIMIT = 8191;

/**
 * Splits a command line by the C runtime's rules (`CommandLineToArgvW`), the way a Windows program reads its
 * own: `C:\tools\cli.exe` keeps its backslashes. An unbalanced quote is refused, naming the position,
 * rather than run to the end of the line as Windows would.
 *
 * @example
 * ```ts
 * splitWindowsCommandLine(String.raw`C:\tools\cli.exe --root "C:\My Files\\"`);
 * // { argv: ["C:\\tools\\cli.exe", "--root", "C:\\My Files\\"] }
 * ```
 */
export function splitWindowsCommandLine(line: string): SplitWindowsLine {
  const argv: string[] = [];
  let index = skipBlanks(line, 0);
  if (index >= line.length) return { argv };
  // The program: quotes group, backslashes are always literal (a path ends in one often enough).
  let program = "";
  let open = -1;
  for (; index < line.length; index++) {
    const char = line[index]!;
    if (char === '"') open = open === -1 ? index : -1;
    else if (open === -1 && isBlank(char)) break;
    else program += char;
  }
  if (open !== -1) return { error: `unbalanced " opened at character ${open + 1}` };
  argv.push(program);
  for (index = skipBlanks(line, index); index < line.length; index = skipBlanks(line, index)) {
    const word = readWord(line, index);
    if ("error" in word) return word;
    argv.push(word.text);
    index = word.end;
  }
  return { argv };
}

function readWord(line: string, start: number): { text: string; end: number } | { error: string } {
  let text = "";
  let open = -1;
  let index = start;
  while (index < line.length) {
    const char = line[index]!;
    if (char === "\\") {
      let run = 0;
      while (line[index + run] === "\\") run++;
      index += run;
      if (line[index] !== '"') {
        text += "\\".repeat(run);
        continue;
      }
      text += "\\".repeat(Math.floor(run / 2));
      if (run % 2 === 1) {
        text += '"';
        index++;
        continue;
      }
    }
    if (line[index] === '"') {
      if (open !== -1 && line[index + 1] === '"') {
        text += '"';
        index += 2;
      } else {
        open = open === -1 ? index : -1;
        index++;
      }
      continue;
    }
    if (open === -1 && isBlank(line[index]!)) break;
    text += line[index];
    index++;
  }
  if (open !== -1) return { error: `unbalanced " opened at character ${open + 1}` };
  return { text, end: index };
}

function isBlank(char: string): boolean {
  return char === " " || char === "\t";
}

function skipBlanks(line: string, index: number): number {
  while (index < line.length && isBlank(line[index]!)) index++;
  return index;
}

/** What needs no quotes on a Windows command line: no blank, no quote, not empty. */
const PLAIN_ARGUMENT = /^[^\s"]+$/;

/**
 * One argument as the C runtime reads it back exactly: as it is when it has no blank or quote, else quoted,
 * with the backslashes before a quote or the closing quote doubled and each `"` escaped.
 *
 * @example
 * ```ts
 * quoteWindowsArgument("C:\\My Files\\"); // '"C:\\My Files\\\\"'
 * quoteWindowsArgument(""); // '""'
 * ```
 */
export function quoteWindowsArgument(arg: string): string {
  return PLAIN_ARGUMENT.test(arg) ? arg : quoted(arg);
}

function quoted(arg: string): string {
  const body = arg.replace(/(\\*)("|$)/g, (_, slashes: string, end: string) => {
    const doubled = slashes + slashes;
    return end === '"' ? `${doubled}\\"` : doubled;
  });
  return `"${body}"`;
}

/**
 * Joins argv into one command line that {@linkcode splitWindowsCommandLine} (and every C-runtime program)
 * splits back into the same words.
 *
 * @example
 * ```ts
 * joinWindowsCommandLine(["node.exe", "my tool.js", 'say "hi"']); // String.raw`node.exe "my tool.js" "say \"hi\""`
 * ```
 */
export function joinWindowsCommandLine(argv: readonly string[]): string {
  return argv.map(quoteWindowsArgument).join(" ");
}

/**
 * What {@linkcode cmdCommandLine} builds: the text to run as `cmd.exe /d /s /c <line>`, or why no line can
 * carry these arguments.
 */
export type CmdLine = { line: string } | { error: string };

/**
 * The command line that makes `cmd.exe /d /s /c` run `file` with exactly `args`, nothing in them
 * interpreted. The file is quoted; each argument is quoted for the C runtime, then every character but
 * letters, digits and `\_-.:/` gets a caret (`%`, `!`, `^`, `&`, `|`, `<`, `>`, `(`, `)`, `"`, …): with every
 * quote escaped, cmd.exe never enters a quoted part, so it takes every caret off and reads nothing else. A
 * batch file (`.cmd`, `.bat`) reads its `%*` once more, so there its arguments get a second round of
 * carets. Refused: a line break (it ends a cmd.exe command whatever escapes it), a `%` in the file's path
 * (cmd.exe would expand it inside the quotes), and a line longer than {@linkcode CMD_LINE_LIMIT}.
 *
 * @example
 * ```ts
 * cmdCommandLine(String.raw`C:\bin\tool.cmd`, ["a&b"], { batch: true });
 * // { line: String.raw`""C:\bin\tool.cmd" ^^^"a^^^&b^^^""` }
 * ```
 */
export function cmdCommandLine(file: string, args: readonly string[], options: { batch: boolean }): CmdLine {
  if ([file, ...args].some((word) => /[\r\n]/.test(word))) {
    return { error: "an argument holds a line break, which no cmd.exe command line can carry" };
  }
  if (file.includes("%")) return { error: `cmd.exe cannot run a file whose path holds a %: ${file}` };
  const words = args.map((arg) => {
    let text = quoted(arg);
    for (let round = 0; round < (options.batch ? 2 : 1); round++) text = text.replace(CMD_SPECIAL, "^$&");
    return text;
  });
  // `/s` takes the first and the last quote off what follows `/c` and reads the rest as it is.
  const line = `""${file}"${words.map((word) => ` ${word}`).join("")}"`;
  if (line.length > CMD_LINE_LIMIT) {
    return { error: `the command line would be ${line.length} characters, over cmd.exe's ${CMD_LINE_LIMIT}` };
  }
  return { line };
}

/** What cmd.exe could read as its own: everything but letters, digits and a few path characters. */
const CMD_SPECIAL = /[^A-Za-z0-9_\-.:\\/]/g;
