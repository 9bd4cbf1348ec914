// Finding and starting programs on Windows, proven on any platform: a Windows host (platform, Path,
// PATHEXT, ComSpec, a file tree) injected through the one seam, and every command line built for cmd.exe or
// a C-runtime program read back by readers written in the test (tests/helpers/windows_sim.ts), not by the
// code under test.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { programFiles, resolveProgram } from "../../lib/runtime/program_resolution.ts";
import { readNodeShim } from "../../lib/runtime/cmd_shim.ts";
import { taskkillLaunch } from "../../lib/runtime/process_tree.ts";
import {
  CMD_LINE_LIMIT,
  cmdCommandLine,
  joinWindowsCommandLine,
  quoteWindowsArgument,
  splitWindowsCommandLine,
} from "../../lib/runtime/windows_command_line.ts";
import { cmdRun, crtArgv, HOSTILE_ARGUMENTS, windowsHost } from "../helpers/windows_sim.ts";

const ENV = {
  Path: "C:\\Program Files\\nodejs;C:\\Users\\ada\\AppData\\Roaming\\npm;C:\\Windows\\System32",
  PATHEXT: ".COM;.EXE;.BAT;.CMD;.VBS;.JS",
  ComSpec: "C:\\Windows\\System32\\cmd.exe",
  PATH_NOT: "decoy",
};

/** The shim npm's shim writer makes today for a bin whose script starts with `#!/usr/bin/env node`. */
function npmShim(script: string, nodeOptions = ""): string {
  return [
    "@ECHO off",
    "GOTO start",
    ":find_dp0",
    "SET dp0=%~dp0",
    "EXIT /b",
    ":start",
    "SETLOCAL",
    "CALL :find_dp0",
    "",
    'IF EXIST "%dp0%\\node.exe" (',
    '  SET "_prog=%dp0%\\node.exe"',
    ") ELSE (",
    '  SET "_prog=node"',
    "  SET PATHEXT=%PATHEXT:;.JS;=;%",
    ")",
    "",
    `endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%" ${nodeOptions} "%dp0%\\${script}" %*`,
    "",
  ].join("\r\n");
}

/** The older shape of the same shim, still found in many installs. */
function olderNpmShim(script: string): string {
  return [
    "@ECHO off",
    "SETLOCAL",
    "CALL :find_dp0",
    "",
    'IF EXIST "%dp0%\\node.exe" (',
    '  SET "_prog=%dp0%\\node.exe"',
    ") ELSE (",
    '  SET "_prog=node"',
    "  SET PATHEXT=%PATHEXT:;.JS;=;%",
    ")",
    "",
    `"%_prog%"  "%dp0%\\${script}" %*`,
    "ENDLOCAL",
    "EXIT /b %errorlevel%",
    ":find_dp0",
    "SET dp0=%~dp0",
    "EXIT /b",
  ].join("\r\n");
}

const NODE = "C:\\Program Files\\nodejs\\node.exe";
const NPM_BIN = "C:\\Users\\ada\\AppData\\Roaming\\npm";

describe("Windows program resolution", () => {
  it("finds a program on a variable spelled Path with each PATHEXT extension, in PATHEXT's order", () => {
    const host = windowsHost({
      [NODE]: "",
      [`${NPM_BIN}\\mcp-cli.cmd`]: "@echo off",
      [`${NPM_BIN}\\mcp-cli.exe`]: "",
    }, ENV);
    assert.deepEqual(resolveProgram("node", ["-v"], host), { file: NODE, args: ["-v"], verbatim: false });
    // .EXE comes before .CMD in PATHEXT.
    assert.equal((resolveProgram("mcp-cli", [], host) as { file: string }).file, `${NPM_BIN}\\mcp-cli.exe`);
    // A name with its extension is taken as it is.
    assert.equal(
      (resolveProgram("NODE.EXE", [], host) as { file: string }).file,
      "C:\\Program Files\\nodejs\\NODE.EXE",
    );
  });

  it("looks in the working directory first, and takes a name with a separator against it", () => {
    const host = windowsHost({
      "C:\\work\\node.exe": "",
      [NODE]: "",
      "C:\\work\\tools\\cli.exe": "",
      "D:\\bin\\cli.com": "",
    }, ENV);
    assert.equal((resolveProgram("node", [], host) as { file: string }).file, "C:\\work\\node.exe");
    assert.equal(
      (resolveProgram("tools\\cli", [], host) as { file: string }).file,
      "C:\\work\\tools\\cli.exe",
    );
    assert.equal(
      (resolveProgram("tools/cli.exe", [], host) as { file: string }).file,
      "C:\\work\\tools\\cli.exe",
    );
    assert.equal((resolveProgram("D:\\bin\\cli", [], host) as { file: string }).file, "D:\\bin\\cli.com");
  });

  it("a program that is nowhere is ENOENT, saying where it was looked for", () => {
    const refused = resolveProgram("npx", [], windowsHost({}, ENV));
    assert.ok("error" in refused);
    assert.equal(refused.error, "ENOENT");
    assert.match(refused.detail, /'npx' is in neither the working directory nor Path/);
    assert.match(refused.detail, /\.com \.exe \.bat \.cmd \.vbs \.js/);
  });

  it("on POSIX the name and arguments go to the system as they are", () => {
    const host = { ...windowsHost({}, ENV), platform: "linux" };
    assert.deepEqual(resolveProgram("npx", ["a&b"], host), { file: "npx", args: ["a&b"], verbatim: false });
  });
});

describe("npm .cmd shims", () => {
  it("a shim runs as the node on Path and its script, the arguments untouched (no cmd.exe)", () => {
    const host = windowsHost({
      [NODE]: "",
      [`${NPM_BIN}\\mcp-cli.cmd`]: npmShim("node_modules\\mcp-cli\\bin\\cli.js"),
    }, ENV);
    assert.deepEqual(resolveProgram("mcp-cli", ["a&b", "%PATH%"], host), {
      file: NODE,
      args: [`${NPM_BIN}\\node_modules\\mcp-cli\\bin\\cli.js`, "a&b", "%PATH%"],
      verbatim: false,
    });
  });

  it("prefers the node.exe beside the shim, keeps the #! line's node options, and reads the older shape", () => {
    const host = windowsHost(
      {
        [NODE]: "",
        "C:\\proj\\node_modules\\.bin\\node.exe": "",
        "C:\\proj\\node_modules\\.bin\\tsc.cmd": npmShim(
          "..\\typescript\\bin\\tsc",
          "--max-old-space-size=4096",
        ),
        "C:\\proj\\node_modules\\.bin\\json5.cmd": olderNpmShim("..\\json5\\lib\\cli.js"),
      },
      ENV,
      "C:\\proj",
    );
    assert.deepEqual(resolveProgram("node_modules\\.bin\\tsc", ["-p", "."], host), {
      file: "C:\\proj\\node_modules\\.bin\\node.exe",
      args: ["--max-old-space-size=4096", "C:\\proj\\node_modules\\typescript\\bin\\tsc", "-p", "."],
      verbatim: false,
    });
    assert.deepEqual(readNodeShim(olderNpmShim("..\\json5\\lib\\cli.js")), {
      nodeArgs: [],
      script: "..\\json5\\lib\\cli.js",
    });
  });

  it("a shim whose node is nowhere is ENOENT naming the shim", () => {
    const host = windowsHost({ [`${NPM_BIN}\\mcp-cli.cmd`]: npmShim("x\\cli.js") }, ENV);
    const refused = resolveProgram("mcp-cli", [], host);
    assert.ok("error" in refused);
    assert.match(refused.detail, /the npm shim .*mcp-cli\.cmd runs node/);
  });

  it("a batch file of another shape is no shim", () => {
    assert.equal(readNodeShim("@echo off\r\npython %~dp0\\tool.py %*\r\n"), undefined);
    // A #! line with variables: the shim sets them first, which node.exe alone would not.
    assert.equal(readNodeShim(`@SET NODE_ENV=production\r\n${npmShim("x.js")}`), undefined);
  });
});

describe("batch files through cmd.exe", () => {
  const host = windowsHost({ [`${NPM_BIN}\\legacy.cmd`]: "@echo off\r\nnode %~dp0\\legacy.js %*\r\n" }, ENV);

  it("runs as ComSpec /d /s /c with a verbatim command line", () => {
    const launch = resolveProgram("legacy", ["x"], host);
    assert.ok(!("error" in launch));
    assert.equal(launch.file, ENV.ComSpec);
    assert.equal(launch.verbatim, true);
    assert.deepEqual(launch.args.slice(0, 3), ["/d", "/s", "/c"]);
  });

  it("every hostile argument reaches the batch file's %* and its program exactly, read by cmd.exe twice", () => {
    const launch = resolveProgram("legacy", HOSTILE_ARGUMENTS, host);
    assert.ok(!("error" in launch));
    assert.deepEqual(cmdRun(launch.args, { PATH: "C:\\Windows", X: "expanded" }, true), HOSTILE_ARGUMENTS);
    for (const arg of HOSTILE_ARGUMENTS) {
      const one = resolveProgram("legacy", [arg], host) as { args: string[] };
      assert.deepEqual(
        cmdRun(one.args, { PATH: "C:\\Windows", X: "expanded" }, true),
        [arg],
        `argument ${arg}`,
      );
    }
  });

  it("a file cmd.exe opens by its type is read once, and reaches its program exactly", () => {
    const line = cmdCommandLine("C:\\tools\\report.vbs", HOSTILE_ARGUMENTS, { batch: false });
    assert.ok("line" in line);
    assert.deepEqual(cmdRun(["/d", "/s", "/c", line.line], { PATH: "C:\\Windows" }, false), [
      "C:\\tools\\report.vbs",
      ...HOSTILE_ARGUMENTS,
    ]);
  });

  it("refuses what no cmd.exe line can carry: a line break, a % in the file's path, a line too long", () => {
    for (const arg of ["two\nlines", "cr\rhere"]) {
      const refused = resolveProgram("legacy", [arg], host);
      assert.ok("error" in refused);
      assert.equal(refused.error, "EINVAL");
      assert.match(refused.detail, /line break/);
    }
    assert.match(
      (cmdCommandLine("C:\\100%\\x.cmd", [], { batch: true }) as { error: string }).error,
      /holds a %/,
    );
    const long = cmdCommandLine("C:\\x.cmd", ["&".repeat(CMD_LINE_LIMIT / 4)], { batch: true });
    assert.match((long as { error: string }).error, /over cmd\.exe's 8191/);
  });
});

describe("Windows argv quoting and splitting", () => {
  it("quoting round-trips every hostile argument through the C runtime's reader", () => {
    const line = joinWindowsCommandLine(["C:\\Program Files\\tool.exe", ...HOSTILE_ARGUMENTS]);
    assert.deepEqual(crtArgv(line), ["C:\\Program Files\\tool.exe", ...HOSTILE_ARGUMENTS]);
    assert.equal(quoteWindowsArgument("C:\\tools\\cli.exe"), "C:\\tools\\cli.exe");
    assert.equal(quoteWindowsArgument("C:\\My Files\\"), '"C:\\My Files\\\\"');
  });

  it("splits --exec by the Windows rules: backslashes stay, quotes group", () => {
    assert.deepEqual(splitWindowsCommandLine("C:\\tools\\cli.exe --root C:\\data\\"), {
      argv: ["C:\\tools\\cli.exe", "--root", "C:\\data\\"],
    });
    assert.deepEqual(splitWindowsCommandLine('"C:\\Program Files\\x\\cli.exe" "a b" c\\"d'), {
      argv: ["C:\\Program Files\\x\\cli.exe", "a b", 'c"d'],
    });
    assert.deepEqual(splitWindowsCommandLine('npx -y "" "say ""hi"""'), {
      argv: ["npx", "-y", "", 'say "hi"'],
    });
    assert.deepEqual(splitWindowsCommandLine('tool "unclosed'), {
      error: 'unbalanced " opened at character 6',
    });
    assert.deepEqual(splitWindowsCommandLine("  "), { argv: [] });
  });

  it("agrees with the test's reader on every line the quoting makes", () => {
    for (const arg of HOSTILE_ARGUMENTS) {
      const line = joinWindowsCommandLine(["tool.exe", arg]);
      assert.deepEqual(splitWindowsCommandLine(line), { argv: crtArgv(line) }, `line ${line}`);
    }
  });
});

describe("the files a bridged command line runs, on Windows", () => {
  it("finds the program on Path and takes arguments with either separator, C:\\ absolute", () => {
    const host = windowsHost({ [NODE]: "" }, ENV, "C:\\proj");
    assert.deepEqual(
      programFiles(["node", "C:\\tools\\cli.js", "sub\\x.js", "lib/y.js", "--flag", "plain"], host),
      [
        NODE,
        "C:\\tools\\cli.js",
        "C:\\proj\\sub\\x.js",
        "C:\\proj\\lib\\y.js",
      ],
    );
  });
});

describe("ending a process tree on Windows", () => {
  it("is taskkill /T /F /PID from the system directory, whatever taskkill Path offers first", () => {
    assert.deepEqual(taskkillLaunch(4242, { SYSTEMROOT: "D:\\Win", Path: "C:\\evil" }), {
      file: "D:\\Win\\System32\\taskkill.exe",
      args: ["/T", "/F", "/PID", "4242"],
      verbatim: false,
    });
    assert.equal(taskkillLaunch(7, {}).file, "C:\\Windows\\System32\\taskkill.exe");
  });
});
