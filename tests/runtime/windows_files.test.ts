// Files on Windows, proven on any platform: a rename or a lock over a file another program holds open is
// tried again for a bounded time, with errors injected as Windows raises them, and then reported as a
// file in use; the state directory and the paths a project's configuration holds, read by Windows rules.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BUSY_FILE_ATTEMPTS,
  BUSY_FILE_MAX_PAUSE_MS,
  FileInUseError,
  retryWhileBusy,
} from "../../lib/runtime/busy_files.ts";
import { linkLockFile, type LockFiles } from "../../lib/runtime/lock_link.ts";
import { portableRelativePath } from "../../lib/runtime/paths.ts";
import { userStateHome } from "../../lib/runtime/fs.ts";

/** An error as Node raises it for a failed file operation. */
function fsError(code: string): Error {
  return Object.assign(new Error(`${code}: operation failed`), { code });
}

/** An operation that fails with `codes` in turn, then succeeds; counts its calls. */
function failing(codes: string[]): { run: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    run: () => {
      const code = codes[calls++];
      return code === undefined ? Promise.resolve("done") : Promise.reject(fsError(code));
    },
    calls: () => calls,
  };
}

/** Pauses that are recorded instead of waited for. */
function recordedPauses(): {
  pause: (ms: number) => Promise<void>;
  total: () => number;
  count: () => number;
} {
  const pauses: number[] = [];
  return {
    pause: (ms) => (pauses.push(ms), Promise.resolve()),
    total: () => pauses.reduce((sum, ms) => sum + ms, 0),
    count: () => pauses.length,
  };
}

describe("a rename over a busy file on Windows", () => {
  it("EBUSY twice, then the rename succeeds: tried three times", async () => {
    const rename = failing(["EBUSY", "EBUSY"]);
    const pauses = recordedPauses();
    const result = await retryWhileBusy(rename.run, {
      path: "C:\\a\\notes.json",
      platform: "win32",
      ...pauses,
    });
    assert.equal(result, "done");
    assert.equal(rename.calls(), 3);
    assert.equal(pauses.count(), 2);
  });

  it("EPERM every time: a file-in-use error after the bound, not a permission error", async () => {
    const rename = failing(Array(100).fill("EPERM"));
    const pauses = recordedPauses();
    const error = await retryWhileBusy(rename.run, {
      path: "C:\\a\\notes.json",
      platform: "win32",
      ...pauses,
    })
      .then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof FileInUseError, String(error));
    assert.equal(error.code, "EBUSY");
    assert.equal(error.lastCode, "EPERM");
    assert.match(error.message, /C:\\a\\notes\.json is in use by another program/);
    assert.equal(rename.calls(), BUSY_FILE_ATTEMPTS);
    assert.equal(pauses.count(), BUSY_FILE_ATTEMPTS - 1);
    assert.ok(pauses.total() >= 1_000 && pauses.total() <= 2_000, `${pauses.total()} ms in all`);
    assert.ok(pauses.total() <= BUSY_FILE_ATTEMPTS * BUSY_FILE_MAX_PAUSE_MS);
  });

  it("EACCES twice then success; another error is thrown at once, as it is", async () => {
    const busy = failing(["EACCES", "EACCES"]);
    assert.equal(
      await retryWhileBusy(busy.run, { path: "x", platform: "win32", ...recordedPauses() }),
      "done",
    );
    const full = failing(["ENOSPC"]);
    await assert.rejects(retryWhileBusy(full.run, { path: "x", platform: "win32" }), { code: "ENOSPC" });
    assert.equal(full.calls(), 1);
  });

  it("on POSIX, EPERM and EBUSY are final at once", async () => {
    for (const code of ["EPERM", "EACCES", "EBUSY"]) {
      const rename = failing([code]);
      await assert.rejects(retryWhileBusy(rename.run, { path: "/a/notes.json", platform: "linux" }), {
        code,
      });
      assert.equal(rename.calls(), 1);
    }
  });
});

/** A simulated lock directory: links fail with `linkCode`, creates with `createCodes` in turn. */
function lockFiles(
  platform: string,
  linkCode: string,
  createCodes: string[],
): LockFiles & { created: string[] } {
  const create = failing(createCodes);
  const created: string[] = [];
  return {
    platform,
    created,
    link: () => Promise.reject(fsError(linkCode)),
    createExclusive: async (path) => {
      await create.run();
      created.push(path);
    },
    pause: recordedPauses().pause,
  };
}

describe("taking a lock on Windows", () => {
  it("a link refused with EPERM falls back to an exclusive create, which is retried while busy", async () => {
    const files = lockFiles("win32", "EPERM", ["EPERM", "EPERM"]);
    assert.equal(await linkLockFile("C:\\s\\k.lock.1.tmp", "C:\\s\\k.lock", "{}", files), true);
    assert.deepEqual(files.created, ["C:\\s\\k.lock"]);
  });

  it("a lock that exists is not taken; one that stays busy is a file in use", async () => {
    assert.equal(await linkLockFile("t", "k.lock", "{}", lockFiles("win32", "EPERM", ["EEXIST"])), false);
    await assert.rejects(
      linkLockFile("t", "k.lock", "{}", lockFiles("win32", "EPERM", Array(100).fill("EPERM"))),
      (error: unknown) => error instanceof FileInUseError && error.path === "k.lock",
    );
  });

  it("on POSIX, an EPERM of the exclusive create is final", async () => {
    await assert.rejects(linkLockFile("t", "k.lock", "{}", lockFiles("linux", "EPERM", ["EPERM"])), {
      code: "EPERM",
    });
  });
});

describe("the state directory on Windows", () => {
  const home = () => "C:\\Users\\ada";
  const env = (values: Record<string, string>) => (name: string) => values[name];

  it("is %LOCALAPPDATA%, else AppData\\Local of the home directory", () => {
    const local = "C:\\Users\\ada\\AppData\\Local";
    assert.equal(userStateHome({ platform: "win32", env: env({ LOCALAPPDATA: local }), home }), local);
    assert.equal(userStateHome({ platform: "win32", env: env({}), home }), local);
    assert.equal(userStateHome({ platform: "win32", env: env({ LOCALAPPDATA: "AppData" }), home }), local);
  });

  it("an XDG_STATE_HOME a person set wins everywhere; POSIX keeps ~/.local/state", () => {
    const xdg = env({ XDG_STATE_HOME: "D:\\state", LOCALAPPDATA: "C:\\L" });
    assert.equal(userStateHome({ platform: "win32", env: xdg, home }), "D:\\state");
    assert.equal(
      userStateHome({ platform: "linux", env: env({}), home: () => "/home/ada" }),
      "/home/ada/.local/state",
    );
    const relative = env({ XDG_STATE_HOME: "state" });
    assert.equal(
      userStateHome({ platform: "linux", env: relative, home: () => "/home/ada" }),
      "/home/ada/.local/state",
    );
  });
});

describe("paths in a project's configuration", () => {
  it("a path inside the project is written with forward slashes on Windows", () => {
    const project = "C:\\work\\app";
    assert.equal(portableRelativePath(project, "C:\\work\\app\\tools\\cli.js", "win32"), "tools/cli.js");
    assert.equal(portableRelativePath(project, "c:\\WORK\\app\\bin\\x.cmd", "win32"), "bin/x.cmd");
    assert.equal(portableRelativePath(project, project, "win32"), "");
  });

  it("a path outside the project, on another drive or relative, is not one", () => {
    const project = "C:\\work\\app";
    assert.equal(portableRelativePath(project, "C:\\work\\other\\cli.js", "win32"), undefined);
    assert.equal(portableRelativePath(project, "D:\\app\\cli.js", "win32"), undefined);
    assert.equal(portableRelativePath(project, "tools\\cli.js", "win32"), undefined);
    assert.equal(portableRelativePath("/srv/app", "/srv/app/..x/cli.js", "linux"), "..x/cli.js");
    assert.equal(portableRelativePath("/srv/app", "/srv/cli.js", "linux"), undefined);
  });
});
