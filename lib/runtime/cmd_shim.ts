/**
 * The `.cmd` shims npm writes for a package's bins on Windows (`npx.cmd` is one way, `tsc.cmd` another): a
 * batch file that runs `node.exe` — its own directory's, else the one on `PATH` — with a script beside it.
 * Read here so that such a bin runs as node.exe and its script, with no cmd.exe between the caller's
 * arguments and the program. Only the shape npm's shim writer produces is read; any other batch file is no
 * shim, and runs through cmd.exe.
 * @module
 */

/** What a node shim runs: node's options from the script's `#!` line, and the script's path. */
export interface NodeShim {
  /** The options between node and the script (`--harmony` from `#!/usr/bin/env node --harmony`). */
  nodeArgs: string[];
  /** The script, as a path relative to the shim's directory, with `\` separators. */
  script: string;
}

/**
 * The line that runs the program: the program (`"%_prog%"`, set to node.exe above), options, the script
 * under the shim's directory (`%dp0%`, or `%~dp0` in older shims), and the caller's arguments.
 */
const RUN_LINE = /^(?:.*&\s*)?"%_prog%"((?:\s+[A-Za-z0-9_=.:-]+)*)\s+"%~?dp0%?\\([^"%]+)"\s+%\*\s*$/m;

/** The shim chooses node: its own directory's node.exe, else `node` from `PATH`. */
const NODE_CHOICE = /SET "_prog=%~?dp0%?\\node\.exe"[\s\S]*SET "_prog=node"/i;

/**
 * The node script an npm `.cmd` shim runs, or `undefined` when the text is not such a shim — a shim for
 * another interpreter, one that sets variables first, or any other batch file.
 *
 * @example
 * ```ts
 * const shim = [
 *   "@ECHO off", "GOTO start", ":find_dp0", "SET dp0=%~dp0", "EXIT /b", ":start", "SETLOCAL", "CALL :find_dp0",
 *   'IF EXIST "%dp0%\\node.exe" (', '  SET "_prog=%dp0%\\node.exe"', ") ELSE (", '  SET "_prog=node"', ")",
 *   'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\..\\tool\\cli.js" %*',
 * ].join("\r\n");
 * readNodeShim(shim); // { nodeArgs: [], script: "..\\tool\\cli.js" }
 * ```
 */
export function readNodeShim(text: string): NodeShim | undefined {
  if (!NODE_CHOICE.test(text)) return undefined;
  // A shim whose `#!` line set variables sets them with `@SET` lines: node would not get them.
  if (/^@SET /im.test(text)) return undefined;
  const run = RUN_LINE.exec(text);
  if (run === null) return undefined;
  const nodeArgs = run[1]!.trim() === "" ? [] : run[1]!.trim().split(/\s+/);
  return { nodeArgs, script: run[2]! };
}
