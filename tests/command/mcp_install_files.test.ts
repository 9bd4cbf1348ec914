// What `mcp install` does with the file a path names before it changes a byte: a read-only file, a dangling
// symlink, a FIFO or any other non-regular file, another user's file, and the environment variables that
// locate a client's configuration. What depends on being root runs both as root and as `nobody` (skipped,
// with the reason printed, where the tests cannot switch users).
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { userInfo } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ExitCode } from "../../mod.ts";
import {
  AS_ROOT,
  filesBelow,
  giveToUnprivileged,
  install,
  readJson,
  sandbox,
  UNPRIVILEGED,
} from "../helpers/install.ts";
import { onlyEnvelope } from "../helpers/run.ts";

const POSIX = process.platform !== "win32";

if (UNPRIVILEGED.prefix === undefined) {
  console.log(`[mcp install files] as nobody: skipped (${UNPRIVILEGED.skip})`);
}

describe(
  "mcp install: a configuration its owner made read-only",
  { skip: POSIX ? false : "POSIX modes" },
  () => {
    const cases: Array<[string, boolean, string | false]> = [
      ["as root", false, AS_ROOT ? false : "not running as root"],
      ["as an unprivileged user", true, UNPRIVILEGED.prefix === undefined ? UNPRIVILEGED.skip : false],
    ];
    for (const [who, unprivileged, skip] of cases) {
      it(
        `0444: exit 7 PERMISSION_DENIED, the file as it was, no backup or lock (${who})`,
        { skip },
        async () => {
          const box = sandbox();
          try {
            const config = join(box.home, "mcp.json");
            const original = '{"mcpServers": {}}\n';
            writeFileSync(config, original);
            if (unprivileged) giveToUnprivileged(box);
            chmodSync(config, 0o444);
            for (const dryRun of [[], ["--dry-run"]]) {
              const result = await install(box, ["--client", "cursor", "--config", config, ...dryRun], {
                unprivileged,
              });
              assert.equal(result.code, ExitCode.PERMISSION_DENIED, result.stdout);
              assert.match(onlyEnvelope(result.stdout).error.message, /is read-only \(mode 0444\)/);
            }
            assert.equal(readFileSync(config, "utf8"), original);
            assert.equal(statSync(config).mode & 0o777, 0o444);
            assert.deepEqual(filesBelow(box.home), ["mcp.json"]);
          } finally {
            box.cleanup();
          }
        },
      );
    }
  },
);

describe("mcp install: a symbolic link whose target is missing", { skip: POSIX ? false : "symlinks" }, () => {
  it("is written through: the target is created beside the link's target, and the link stays a link", async () => {
    const box = sandbox();
    try {
      mkdirSync(join(box.home, "dotfiles"));
      const link = join(box.home, ".claude.json");
      symlinkSync(join("dotfiles", "claude.json"), link);
      const result = await install(box, ["--client", "claude-code"]);
      assert.equal(result.code, 0, result.stdout);
      assert.ok(lstatSync(link).isSymbolicLink(), "still a link");
      assert.equal(readlinkSync(link), join("dotfiles", "claude.json"));
      const target = join(box.home, "dotfiles", "claude.json");
      assert.equal(readJson(target).mcpServers.notes.type, "stdio");
      assert.deepEqual(filesBelow(box.home), [".claude.json", join("dotfiles", "claude.json")]);
    } finally {
      box.cleanup();
    }
  });

  it("whose target's directory is missing too: exit 4, nothing created, the link as it was", async () => {
    const box = sandbox();
    try {
      const link = join(box.home, ".claude.json");
      symlinkSync(join(box.home, "gone", "claude.json"), link);
      const result = await install(box, ["--client", "claude-code"]);
      assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
      assert.match(onlyEnvelope(result.stdout).error.message, /whose directory does not exist/);
      assert.ok(lstatSync(link).isSymbolicLink());
      assert.deepEqual(filesBelow(box.home), [".claude.json"]);
    } finally {
      box.cleanup();
    }
  });
});

describe("mcp install: a path that is not a regular file", { skip: POSIX ? false : "FIFOs" }, () => {
  it("--config <fifo>, with and without --dry-run: refused at once as not a regular file, no lock left, the process ends", async () => {
    const box = sandbox();
    try {
      const fifo = join(box.home, "mcp.json");
      execFileSync("mkfifo", [fifo]);
      for (const dryRun of [[], ["--dry-run"]]) {
        const started = Date.now();
        const result = await install(box, ["--client", "cursor", "--config", fifo, ...dryRun]);
        assert.equal(result.code, ExitCode.PRECONDITION, `${result.stdout}${result.stderr}`);
        assert.match(onlyEnvelope(result.stdout).error.message, /is not a regular file \(a FIFO\)/);
        assert.ok(Date.now() - started < 15_000, "ended without waiting for a writer");
      }
      assert.ok(lstatSync(fifo).isFIFO());
      assert.deepEqual(filesBelow(box.home), ["mcp.json"], "no lock, no backup, no temporary file");
    } finally {
      box.cleanup();
    }
  });

  it("a link to a FIFO, a directory, a device: each refused as not a regular file", async () => {
    const box = sandbox();
    try {
      execFileSync("mkfifo", [join(box.home, "pipe")]);
      symlinkSync(join(box.home, "pipe"), join(box.home, "link.json"));
      mkdirSync(join(box.home, "dir.json"));
      const paths = [[join(box.home, "link.json"), "a FIFO"], [join(box.home, "dir.json"), "a directory"], [
        "/dev/null",
        "a device",
      ]];
      for (const [path, kind] of paths) {
        const result = await install(box, ["--client", "cursor", "--config", path!]);
        assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
        assert.match(
          onlyEnvelope(result.stdout).error.message,
          new RegExp(`not a regular file \\(${kind}\\)`),
        );
      }
      assert.deepEqual(filesBelow(box.home), ["link.json", "pipe"]);
      assert.ok(lstatSync("/dev/null").isCharacterDevice());
    } finally {
      box.cleanup();
    }
  });
});

describe("mcp install: another user's file", { skip: POSIX ? false : "POSIX owners" }, () => {
  it(
    "as root: the replaced file keeps its owner, group and mode",
    { skip: AS_ROOT ? false : "not root" },
    async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "mcp.json");
        writeFileSync(config, '{"mcpServers": {}}\n');
        chownSync(config, 65534, 65534);
        chmodSync(config, 0o600);
        const result = await install(box, ["--client", "cursor", "--config", config]);
        assert.equal(result.code, 0, result.stdout);
        const stat = statSync(config);
        assert.deepEqual([stat.uid, stat.gid, stat.mode & 0o777], [65534, 65534, 0o600]);
        assert.ok(readJson(config).mcpServers.notes);
      } finally {
        box.cleanup();
      }
    },
  );

  it(
    "as an unprivileged user, a file it may write but does not own: exit 7, untouched (a replacement would take it over)",
    { skip: UNPRIVILEGED.prefix === undefined ? UNPRIVILEGED.skip : false },
    async () => {
      const box = sandbox();
      try {
        const config = join(box.home, "mcp.json");
        const original = '{"mcpServers": {}}\n';
        writeFileSync(config, original);
        giveToUnprivileged(box);
        chownSync(config, 0, 0);
        chmodSync(config, 0o666);
        const result = await install(box, ["--client", "cursor", "--config", config], { unprivileged: true });
        assert.equal(result.code, ExitCode.PERMISSION_DENIED, result.stdout);
        assert.match(onlyEnvelope(result.stdout).error.message, /belongs to uid 0/);
        assert.equal(readFileSync(config, "utf8"), original);
        assert.equal(statSync(config).uid, 0);
        assert.deepEqual(filesBelow(box.home), ["mcp.json"]);
      } finally {
        box.cleanup();
      }
    },
  );
});

describe("mcp install: the variables that locate a configuration", {
  skip: process.platform === "linux" ? false : "the Linux locations",
}, () => {
  for (const value of ["relative/config", "~/.config"]) {
    it(`XDG_CONFIG_HOME=${value} is ignored as the XDG spec says: ~/.config is used, and a warning says so`, async () => {
      const box = sandbox();
      try {
        const result = await install(box, ["--client", "claude-desktop"], {
          env: { XDG_CONFIG_HOME: value },
        });
        assert.equal(result.code, 0, result.stdout);
        const envelope = onlyEnvelope(result.stdout);
        assert.equal(envelope.data.config, join(box.home, ".config", "Claude", "claude_desktop_config.json"));
        assert.deepEqual(envelope.warnings.map((warning: { code: string }) => warning.code), [
          "IGNORED_ENVIRONMENT",
        ]);
        assert.match(envelope.warnings[0].message, /XDG_CONFIG_HOME is not an absolute path/);
        assert.deepEqual(filesBelow(box.home), [join(".config", "Claude", "claude_desktop_config.json")]);
      } finally {
        box.cleanup();
      }
    });
  }

  it("a relative CLAUDE_CONFIG_DIR is ignored too: ~/.claude.json", async () => {
    const box = sandbox();
    try {
      const result = await install(box, ["--client", "claude-code"], {
        env: { CLAUDE_CONFIG_DIR: "claude" },
      });
      assert.equal(result.code, 0, result.stdout);
      assert.equal(onlyEnvelope(result.stdout).data.config, join(box.home, ".claude.json"));
      assert.deepEqual(filesBelow(box.home), [".claude.json"]);
    } finally {
      box.cleanup();
    }
  });

  // The real home is never written: these run with --dry-run, which reads at most.
  const homes: Array<[string, boolean, string | false]> = [
    [AS_ROOT ? "as root" : "as this user", false, false],
    ["as nobody", true, UNPRIVILEGED.prefix === undefined ? UNPRIVILEGED.skip : false],
  ];
  for (const [who, unprivileged, skip] of homes) {
    it(
      `an empty or relative HOME is ignored: the user database's home, never the current directory (${who})`,
      {
        skip,
      },
      async () => {
        const box = sandbox();
        try {
          if (unprivileged) giveToUnprivileged(box);
          const home = unprivileged ? "/nonexistent" : userInfo().homedir;
          for (const value of ["", "relative/home"]) {
            const result = await install(box, ["--client", "cursor", "--dry-run"], {
              env: { HOME: value },
              unprivileged,
            });
            assert.equal(result.code, 0, result.stdout);
            const envelope = onlyEnvelope(result.stdout);
            assert.equal(envelope.data.config, join(home, ".cursor", "mcp.json"));
            assert.match(envelope.warnings.at(-1).message, /HOME is not an absolute path/);
          }
          assert.deepEqual(filesBelow(box.home), []);
        } finally {
          box.cleanup();
        }
      },
    );
  }

  it("without a usable HOME or a user database entry: exit 4 naming HOME, nothing written", {
    skip: AS_ROOT && UNPRIVILEGED.prefix?.[0] === "setpriv"
      ? false
      : "needs root and setpriv for a uid without an entry",
  }, async () => {
    const box = sandbox();
    try {
      chownSync(box.home, 54321, 54321);
      const result = await install(box, ["--client", "cursor"], {
        env: { HOME: "" },
        unprivileged: true,
        uid: 54321,
      });
      assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
      assert.match(onlyEnvelope(result.stdout).error.message, /cannot tell the home directory: HOME is ""/);
      assert.deepEqual(filesBelow(box.home), []);
      assert.equal(existsSync(join(box.home, ".cursor")), false);
    } finally {
      box.cleanup();
    }
  });
});
