/**
 * Which file a program name runs, and how to start it, in one place for spawning (child_process.ts) and for
 * the probes that watch a program's file (file_probes.ts).
 *
 * On POSIX the name is handed to the system as it is, which searches `PATH`. Windows starts only `.exe` and
 * `.com` files itself, and finds neither `npx` (an `npx.cmd`) nor any other npm bin, so there the name is
 * resolved here, as cmd.exe resolves it: against the working directory, then each directory of `Path`, each
 * with every extension of `PATHEXT`. Then:
 * - an `.exe` or `.com` starts directly;
 * - an npm `.cmd` shim starts as the node.exe it names and its script, so no cmd.exe reads the arguments;
 * - any other batch file (or a file cmd.exe opens by its type) runs through `cmd.exe /d /s /c`, on a command
 *   line in which nothing can be read as cmd.exe's own (windows_command_line.ts). Never a plain shell.
 * @module
 */
import { nodePath } from "./node_process.ts";
import { envValue, type ProgramHost } from "./program_host.ts";
import { readNodeShim } from "./cmd_shim.ts";
import { cmdCommandLine } from "./windows_command_line.ts";

/** How to start a program: the file, its arguments, and whether they are one verbatim command line. */
export interface ProgramLaunch {
  /** The executable the system starts. */
  file: string;
  /** Its arguments. */
  args: string[];
  /** On Windows: `args` are already one command line (cmd.exe's), to be passed without quoting. */
  verbatim: boolean;
}

/** Why a program cannot be started: `ENOENT` (not found) or `EINVAL` (no command line can carry it), and the detail. */
export interface ProgramRefusal {
  /** `ENOENT` or `EINVAL`, as the system would say it. */
  error: "ENOENT" | "EINVAL";
  /** What was looked for, or what cannot be carried. */
  detail: string;
}

/** The extensions Windows runs when `PATHEXT` is not set. */
const DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD";

/**
 * How to start `program` with `args` on `host`'s platform: as it is on POSIX; on Windows, the file it names
 * found and started by its kind (see the module's comment), or why it cannot be.
 *
 * @example
 * ```ts
 * import { currentHost } from "./program_host.ts";
 *
 * const launch = resolveProgram("npx", ["-y", "some-mcp-cli"], currentHost());
 * // on Windows: { file: "C:\\Program Files\\nodejs\\node.exe", args: [".\\node_modules\\npm\\bin\\npx-cli.js", …], verbatim: false }
 * ```
 */
export function resolveProgram(
  program: string,
  args: readonly string[],
  host: ProgramHost,
): ProgramLaunch | ProgramRefusal {
  if (host.platform !== "win32") return { file: program, args: [...args], verbatim: false };
  const file = findProgramFile(program, host);
  if (file === undefined) {
    return {
      error: "ENOENT",
      detail: `'${program}' is in neither the working directory nor Path, with any of the extensions ${
        pathExtensions(host).join(" ")
      }`,
    };
  }
  return windowsLaunch(file, args, host);
}

/**
 * The file a program name runs, or `undefined` when there is none. A name with a separator is taken
 * against the working directory; any other is looked up in the directories of `PATH` (on Windows: first the
 * working directory, and each candidate with every `PATHEXT` extension; the variable may be spelled `Path`).
 *
 * @example
 * ```ts
 * import { currentHost } from "./program_host.ts";
 *
 * findProgramFile("python3", currentHost()); // "/usr/bin/python3"
 * ```
 */
export function findProgramFile(name: string, host: ProgramHost): string | undefined {
  const windows = host.platform === "win32";
  const path = windows ? nodePath().win32 : nodePath().posix;
  const hasSeparator = windows ? /[\\/]/.test(name) || path.isAbsolute(name) : name.includes("/");
  if (!windows && hasSeparator) return path.isAbsolute(name) ? name : path.join(host.cwd, name);
  const dirs = hasSeparator ? [""] : [
    ...(windows ? [host.cwd] : []),
    ...(envValue(host.env, "PATH", host.platform) ?? "").split(path.delimiter).map(unquoted),
  ];
  for (const dir of dirs) {
    if (dir === "" && !hasSeparator) continue;
    const base = path.resolve(host.cwd, dir, name);
    for (const candidate of windows ? withExtensions(base, host) : [base]) {
      if (host.isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The files a command line runs, made absolute: the program as {@linkcode findProgramFile} finds it, and
 * every argument that names a file by a path with a separator (`tool.py` alone may be anything). On Windows
 * both `\` and `/` separate, and `C:\…` is absolute.
 *
 * @example
 * ```ts
 * import { currentHost } from "./program_host.ts";
 *
 * programFiles(["python3", "tools/cli.py", "--verbose"], currentHost({ cwd: "/srv" }));
 * // ["/usr/bin/python3", "/srv/tools/cli.py"]
 * ```
 */
export function programFiles(argv: readonly string[], host: ProgramHost): string[] {
  const [program, ...rest] = argv;
  const windows = host.platform === "win32";
  const path = windows ? nodePath().win32 : nodePath().posix;
  const found = program === undefined ? undefined : findProgramFile(program, host);
  const named = rest.filter((arg) => (windows ? /[\\/]/.test(arg) : arg.includes("/")));
  return [...(found === undefined ? [] : [found]), ...named.map((arg) => path.resolve(host.cwd, arg))];
}

/** A `Path` entry may be quoted, as one with a `;` in it must be. */
function unquoted(dir: string): string {
  return dir.length >= 2 && dir.startsWith('"') && dir.endsWith('"') ? dir.slice(1, -1) : dir;
}

/** The extensions of `PATHEXT`, lower-cased: `.com`, `.exe`, `.bat`, `.cmd`, … */
function pathExtensions(host: ProgramHost): string[] {
  const listed = envValue(host.env, "PATHEXT", host.platform) ?? DEFAULT_PATHEXT;
  return listed.split(";").filter((ext) => ext.startsWith(".")).map((ext) => ext.toLowerCase());
}

/** A name that already ends in a `PATHEXT` extension is tried as it is; any other with each extension. */
function withExtensions(base: string, host: ProgramHost): string[] {
  const extensions = pathExtensions(host);
  const own = nodePath().win32.extname(base).toLowerCase();
  return extensions.includes(own) ? [base] : extensions.map((ext) => base + ext);
}

/** How Windows starts a file it found, by its kind. */
function windowsLaunch(
  file: string,
  args: readonly string[],
  host: ProgramHost,
): ProgramLaunch | ProgramRefusal {
  const path = nodePath().win32;
  const ext = path.extname(file).toLowerCase();
  if (ext === ".exe" || ext === ".com") return { file, args: [...args], verbatim: false };
  const batch = ext === ".cmd" || ext === ".bat";
  const shim = batch ? readNodeShim(host.readText(file) ?? "") : undefined;
  if (shim !== undefined) {
    const dir = path.dirname(file);
    const own = path.join(dir, "node.exe");
    const node = host.isFile(own) ? own : findProgramFile("node", { ...host, env: nodeOnly(host) });
    if (node === undefined) {
      return {
        error: "ENOENT",
        detail: `the npm shim ${file} runs node, which is on neither Path nor beside it`,
      };
    }
    return { file: node, args: [...shim.nodeArgs, path.resolve(dir, shim.script), ...args], verbatim: false };
  }
  const cmd = cmdCommandLine(file, args, { batch });
  if ("error" in cmd) return { error: "EINVAL", detail: cmd.error };
  return { file: commandInterpreter(host), args: ["/d", "/s", "/c", cmd.line], verbatim: true };
}

/** The environment the shim's `node` is looked up with: programs only (`.exe`, `.com`), as the shim itself does. */
function nodeOnly(host: ProgramHost): Record<string, string> {
  const path = envValue(host.env, "PATH", host.platform) ?? "";
  return { PATH: path, PATHEXT: ".COM;.EXE" };
}

/** cmd.exe: `ComSpec`, else the one in the system directory. */
function commandInterpreter(host: ProgramHost): string {
  const comspec = envValue(host.env, "ComSpec", host.platform);
  if (comspec !== undefined && comspec !== "") return comspec;
  const root = envValue(host.env, "SystemRoot", host.platform) ?? "C:\\Windows";
  return nodePath().win32.join(root, "System32", "cmd.exe");
}
