// A Windows machine simulated for the tests: a host whose files are a map, and two readers of command
// lines written here, independently of lib/runtime, from how the programs behave — the C runtime's argv
// splitter (what node.exe and nearly every program does with its command line) and cmd.exe's reading of a
// line (`/s /c`, its %-expansion, carets, quotes, and the characters that would start another command).
import type { ProgramHost } from "../../lib/runtime/program_host.ts";

/** A host on "win32" whose file tree is `files` (paths compared ignoring case, as NTFS does). */
export function windowsHost(
  files: Record<string, string>,
  env: Record<string, string>,
  cwd = "C:\\work",
): ProgramHost {
  const tree = new Map(Object.entries(files).map(([path, text]) => [path.toLowerCase(), text]));
  // A directory is every proper prefix of a file's path, ending at a backslash.
  const names = new Map<string, Set<string>>();
  for (const path of Object.keys(files)) {
    const parts = path.split("\\");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("\\").toLowerCase();
      if (!names.has(dir)) names.set(dir, new Set());
      names.get(dir)!.add(parts[i]!);
    }
  }
  return {
    platform: "win32",
    env,
    cwd,
    isFile: (path) => tree.has(path.toLowerCase()),
    readText: (path) => tree.get(path.toLowerCase()),
    isDirectory: (path) => names.has(path.replace(/\\+$/, "").toLowerCase()),
    listDir: (path) => [...names.get(path.replace(/\\+$/, "").toLowerCase()) ?? []].sort(),
  };
}

/** What a C-runtime program gets as argv from its command line. */
export function crtArgv(line: string): string[] {
  const argv: string[] = [];
  let i = 0;
  const blank = (c: string | undefined) => c === " " || c === "\t";
  while (blank(line[i])) i++;
  if (i >= line.length) return argv;
  // argv[0]: quotes group, nothing escapes.
  let program = "";
  let inQuotes = false;
  for (; i < line.length && (inQuotes || !blank(line[i])); i++) {
    if (line[i] === '"') inQuotes = !inQuotes;
    else program += line[i];
  }
  argv.push(program);
  for (;;) {
    while (blank(line[i])) i++;
    if (i >= line.length) return argv;
    let word = "";
    inQuotes = false;
    while (i < line.length && (inQuotes || !blank(line[i]))) {
      let slashes = 0;
      while (line[i] === "\\") {
        slashes++;
        i++;
      }
      if (line[i] === '"') {
        word += "\\".repeat(slashes >> 1);
        if (slashes % 2 === 1) {
          word += '"';
          i++;
        } else if (inQuotes && line[i + 1] === '"') {
          word += '"';
          i += 2;
        } else {
          inQuotes = !inQuotes;
          i++;
        }
      } else if (slashes > 0) {
        word += "\\".repeat(slashes);
      } else {
        word += line[i];
        i++;
      }
    }
    argv.push(word);
  }
}

/** cmd.exe's first phase on a command line: `%NAME%` of a defined variable expanded; anything else kept. */
function expandPercent(text: string, env: Record<string, string>): string {
  return text.replace(/%([^%]+)%/g, (whole, name: string) => {
    const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
    return key === undefined ? whole : env[key]!;
  });
}

/**
 * cmd.exe's second phase: a caret outside quotes takes the next character as it is, a quote toggles
 * quoting (and stays), and an unquoted `&`, `|`, `<` or `>` would start another command or a redirection:
 * that is an injection, and throws.
 */
function readSpecials(text: string): string {
  let out = "";
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') inQuotes = false;
      out += c;
      continue;
    }
    if (c === "^") {
      i++;
      if (i < text.length) out += text[i];
      continue;
    }
    if (c === '"') inQuotes = true;
    if ("&|<>".includes(c)) throw new Error(`cmd.exe would read an unquoted ${c} in: ${text}`);
    out += c;
  }
  return out;
}

/**
 * What the program run by `cmd.exe /d /s /c <line>` gets as argv, `args` being cmd.exe's verbatim
 * arguments. With `batch`, the program is a batch file that runs `"node.exe" "script.js" %*`, so the
 * arguments are read by cmd.exe a second time; then the node script's own arguments are returned.
 */
export function cmdRun(args: readonly string[], env: Record<string, string>, batch: boolean): string[] {
  const [d, s, c, ...rest] = args;
  if (d !== "/d" || s !== "/s" || c !== "/c") throw new Error(`not /d /s /c: ${args.join(" ")}`);
  let line = rest.join(" ");
  // /s: the first and the last quote go, the rest is read as it is.
  const first = line.indexOf('"');
  const last = line.lastIndexOf('"');
  if (first === -1 || first === last) throw new Error(`/s finds no outer quotes in ${line}`);
  line = line.slice(0, first) + line.slice(first + 1, last) + line.slice(last + 1);
  const read = readSpecials(expandPercent(line, env));
  if (!batch) return crtArgv(read);
  // %* is what follows the batch file's own name, its leading blanks dropped.
  const program = read.startsWith('"') ? read.indexOf('"', 1) + 1 : read.search(/[ \t]|$/);
  const all = read.slice(program).replace(/^[ \t]+/, "");
  // The batch line: %* substituted (the substitution is not scanned again for %), then read again.
  const batchLine = readSpecials(`"node.exe" "script.js" ${all}`);
  return crtArgv(batchLine).slice(2);
}

/** Arguments an MCP caller could send that mean something to cmd.exe or to the argv rules. */
export const HOSTILE_ARGUMENTS: readonly string[] = [
  "a&b",
  "a|b",
  "a^b",
  "^",
  "%PATH%",
  "%",
  "100%",
  "%PATH",
  '"',
  'say "hi"',
  "!x!",
  "<in",
  "out>",
  ">>log",
  "C:\\dir\\",
  "trail\\\\",
  '\\"',
  '\\\\"',
  "",
  " ",
  "two words",
  "tab\there",
  "(x)",
  "a & calc.exe",
  '" & calc.exe & "',
  "^&",
  "x^",
  "é ✓",
  "--flag=a,b;c=d",
];
