// What a bridged CLI gets on Windows that it needs there: the environment basics a Windows program looks
// for under --env-allow, and a hint for a program that cannot be started that says how Windows finds one.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execEnvironment } from "../../lib/bridge/exec_environment.ts";
import { programHint } from "../../lib/bridge/exec_manifest.ts";

const WINDOWS_BASICS = {
  APPDATA: "C:\\Users\\ada\\AppData\\Roaming",
  LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local",
  ProgramData: "C:\\ProgramData",
  ProgramFiles: "C:\\Program Files",
  SystemDrive: "C:",
  HOMEDRIVE: "C:",
  HOMEPATH: "\\Users\\ada",
  USERNAME: "ada",
};

describe("a bridged CLI on Windows", () => {
  it("keeps the Windows basics under --env-allow, and still nothing that was not allowed", () => {
    const env = execEnvironment(["API_URL"], { ...WINDOWS_BASICS, Path: "C:\\Windows", SECRET: "x" });
    assert.deepEqual(env, { ...WINDOWS_BASICS, ...(env?.Path === undefined ? {} : { Path: "C:\\Windows" }) });
  });

  it("a program that cannot be started gets a hint that says how Windows looks for it", () => {
    assert.match(
      programHint("--exec", "win32"),
      /working directory, then on Path, with each extension of PATHEXT/,
    );
    assert.match(programHint("--server", "win32"), /^--server must start with a program/);
    assert.doesNotMatch(programHint("--exec", "linux"), /PATHEXT/);
  });
});
