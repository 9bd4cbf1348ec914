// `mcp install` and `mcp listen` on Windows, proven on any platform: a Windows file tree and environment
// injected through the one seam (tests/helpers/windows_sim.ts), paths joined by Windows rules.
import { win32 } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ConfigPlace, MCP_CLIENTS } from "../../lib/command/builtins/mcp_install/mcp_clients.ts";
import { parseListenAddress } from "../../lib/command/builtins/mcp_listen/listen_address.ts";
import { CommandError } from "../../lib/command/contract/command_error.ts";
import { ExitCode } from "../../lib/exit_code.ts";
import { unixPathExample } from "../../lib/runtime/socket_example.ts";
import { windowsHost } from "../helpers/windows_sim.ts";

const HOME = "C:\\Users\\ada";
const ENV: Record<string, string> = {
  APPDATA: `${HOME}\\AppData\\Roaming`,
  LOCALAPPDATA: `${HOME}\\AppData\\Local`,
};
const CLASSIC = `${HOME}\\AppData\\Roaming\\Claude`;
const PACKAGE = `${HOME}\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc`;
const STORE = `${PACKAGE}\\LocalCache\\Roaming\\Claude`;

/** Where `mcp install` looks on a Windows machine with `files`, and the notes it writes to stderr. */
function windowsPlace(files: Record<string, string>): { place: ConfigPlace; notes: string[] } {
  const host = windowsHost(files, ENV);
  const notes: string[] = [];
  return {
    notes,
    place: {
      platform: "win32",
      home: () => HOME,
      cwd: () => "C:\\work\\app",
      dirEnv: (name) => ENV[name],
      join: win32.join,
      files: host,
      note: (message) => notes.push(message),
    },
  };
}

const claudeDesktop = (place: ConfigPlace) => MCP_CLIENTS["claude-desktop"].configPath("user", place);

describe("mcp install finds Claude Desktop on Windows", () => {
  it("the classic installer's %APPDATA%\\Claude when no Store package is there", () => {
    const { place, notes } = windowsPlace({ [`${CLASSIC}\\claude_desktop_config.json`]: "{}" });
    assert.equal(claudeDesktop(place), `${CLASSIC}\\claude_desktop_config.json`);
    assert.deepEqual(notes, []);
  });

  it("the Store (MSIX) build's package directory when it is installed", () => {
    const { place, notes } = windowsPlace({ [`${PACKAGE}\\AC\\Temp\\x`]: "" });
    assert.equal(claudeDesktop(place), `${STORE}\\claude_desktop_config.json`);
    assert.deepEqual(notes, []);
  });

  it("the Store build's when both are there, and says so naming both", () => {
    const { place, notes } = windowsPlace({
      [`${CLASSIC}\\claude_desktop_config.json`]: "{}",
      [`${STORE}\\claude_desktop_config.json`]: "{}",
      [`${HOME}\\AppData\\Local\\Packages\\Microsoft.WindowsTerminal_8wekyb3d8bbwe\\x`]: "",
    });
    assert.equal(claudeDesktop(place), `${STORE}\\claude_desktop_config.json`);
    assert.equal(notes.length, 1);
    assert.ok(notes[0]!.includes(STORE) && notes[0]!.includes(CLASSIC), notes[0]);
  });

  it("a project's paths are written with forward slashes, for teammates on macOS and Linux", () => {
    assert.equal(MCP_CLIENTS["claude-code"].projectPath("tools/cli.js"), "./tools/cli.js");
    assert.equal(MCP_CLIENTS.vscode.projectPath("tools/cli.js"), "${workspaceFolder}/tools/cli.js");
  });
});

/** The ARG_ERROR message `parseListenAddress` throws for `text`. */
function refusal(text: string, platform: string, runtime: "node" | "deno"): string {
  try {
    parseListenAddress(text, false, { platform, runtime });
  } catch (error) {
    assert.ok(error instanceof CommandError, String(error));
    assert.equal(error.exitCode, ExitCode.ARG_ERROR);
    return error.message;
  }
  assert.fail(`${text} was accepted on ${platform} (${runtime})`);
}

describe("mcp listen's unix: addresses on Windows", () => {
  const node = { platform: "win32", runtime: "node" } as const;

  it("Node takes a named pipe, \\\\.\\pipe\\<name> or \\\\?\\pipe\\<name>", () => {
    assert.deepEqual(parseListenAddress("unix:\\\\.\\pipe\\notes", false, node), {
      kind: "unix",
      path: "\\\\.\\pipe\\notes",
    });
    assert.deepEqual(parseListenAddress("unix:\\\\?\\PIPE\\a\\b", false, node), {
      kind: "unix",
      path: "\\\\?\\PIPE\\a\\b",
    });
  });

  it("a file path, the POSIX help's own example among them, is refused naming the pipe form", () => {
    for (const path of ["/tmp/notes.sock", "C:\\tmp\\notes.sock", "\\\\.\\pipe\\", "\\\\server\\pipe\\x"]) {
      assert.match(
        refusal(`unix:${path}`, "win32", "node"),
        /on Windows, unix: takes a named pipe, \\\\\.\\pipe\\<name>/,
      );
    }
  });

  it("Deno on Windows refuses every unix: address, naming TCP and HTTP", () => {
    assert.match(
      refusal("unix:\\\\.\\pipe\\notes", "win32", "deno"),
      /^Deno on Windows cannot listen on a unix: address.*tcp:/,
    );
  });

  it("POSIX keeps file paths, on both runtimes", () => {
    for (const runtime of ["node", "deno"] as const) {
      assert.deepEqual(parseListenAddress("unix:/tmp/notes.sock", false, { platform: "linux", runtime }), {
        kind: "unix",
        path: "/tmp/notes.sock",
      });
    }
  });

  it("the help's example is a pipe on Windows and a file in /tmp elsewhere; each is accepted there", () => {
    assert.equal(unixPathExample("notes", "win32"), "\\\\.\\pipe\\notes");
    assert.equal(unixPathExample("notes", "darwin"), "/tmp/notes.sock");
    parseListenAddress(`unix:${unixPathExample("notes", "win32")}`, false, node);
    assert.match(refusal("unix:", "win32", "node"), /e\.g\. unix:\\\\\.\\pipe\\tool$/);
  });
});
