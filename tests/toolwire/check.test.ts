// `toolwire check -- <cli …>`: passes on the `notes` example and on a conforming Python CLI, fails each
// deliberately broken fixture naming the criterion it broke, and reports as an envelope or as text.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { validateManifest } from "../../lib/command/contract/manifest_validation.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  finished,
  type Loose,
  NOTES,
  onlyEnvelope,
  programArgv,
  ROOT,
  run,
  start,
  tempDir,
} from "../helpers/run.ts";
import { failedIds, failures, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

const CHECK_FAILED = 80;

async function check(
  cli: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; envelope: Loose }> {
  const result = await run([...TOOLWIRE, "--format", "json", "check", "--", ...cli], {
    env,
    timeoutMs: 120_000,
  });
  return { code: result.code, envelope: onlyEnvelope(result.stdout) };
}

function statuses(envelope: Loose): Record<string, string> {
  return Object.fromEntries(envelope.data.criteria.map((result: Loose) => [result.id, result.status]));
}

/** A value's shape as the README writes it: `{a, b: {c}, d: [{e}, …]}`, from the value itself. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${shapeOf(value[0])}, …]`;
  if (value === null || typeof value !== "object") return "";
  const members = Object.entries(value).map(([key, member]) => {
    const shape = shapeOf(member);
    return shape === "" ? key : `${key}: ${shape}`;
  });
  return `{${members.join(", ")}}`;
}

function evidence(envelope: Loose, id: string): string {
  return envelope.data.criteria.find((result: Loose) => result.id === id).evidence;
}

describe("toolwire check passes on conforming CLIs", () => {
  it("notes: exit 0, every criterion passed or skipped, the JSON report's shape", async () => {
    const home = tempDir();
    try {
      const { code, envelope } = await check(NOTES, { NOTES_HOME: home.path });
      assert.equal(
        code,
        0,
        JSON.stringify(envelope.data?.criteria.filter((r: Loose) => r.status === "fail")),
      );
      assert.equal(envelope.ok, true);
      const { criteria, summary } = envelope.data;
      assert.equal(criteria.length, 23);
      assert.equal(new Set(criteria.map((result: Loose) => result.id)).size, 23);
      for (const result of criteria) {
        assert.deepEqual(Object.keys(result), ["id", "criterion", "status", "evidence"]);
        assert.ok(
          ["pass", "skip"].includes(result.status),
          `${result.id}: ${result.status} — ${result.evidence}`,
        );
        assert.ok(result.evidence.length > 0);
      }
      assert.deepEqual(summary, { passed: 22, failed: 0, skipped: 1 });
      // The README gives this shape to a reader who scripts `toolwire --format json check`.
      const readme = readFileSync(join(ROOT, "README.md"), "utf8");
      const shape = shapeOf(envelope.data);
      assert.equal(
        shape,
        "{cli, complete, summary: {passed, failed, skipped}, criteria: [{id, criterion, status, evidence}, …]}",
      );
      assert.ok(readme.includes(`\`${shape}\``), `the README names the report's shape ${shape}`);
      assert.equal(statuses(envelope)["ac05-prepare-failure"], "skip");
      for (
        const id of [
          "ac07-stdout-purity",
          "ac08-malformed-request",
          "ac09-stdin-eof",
          "ac10-sigterm",
          "ac11-idle-not-killed",
          "ac15-mcp-false-refused",
        ]
      ) {
        assert.equal(statuses(envelope)[id], "pass", id);
      }
      assert.match(
        evidence(envelope, "ac15-mcp-false-refused"),
        /init: a call is answered with protocol error -32602/,
      );
      // `notes lsp` is checked as an LSP client checks it, not skipped.
      assert.match(evidence(envelope, "ac07-stdout-purity"), /lsp: the first response answers initialize/);
      assert.match(
        evidence(envelope, "ac08-malformed-request"),
        /lsp: answered a body that is not JSON with error -32700, then answered a request/,
      );
      assert.match(
        evidence(envelope, "ac08-malformed-request"),
        /lsp: answered a header without a usable Content-Length with error -32700, then ended with exit 1 and the PROTOCOL_FRAMING_ERROR envelope last on stderr/,
      );
      assert.match(evidence(envelope, "ac09-stdin-eof"), /lsp: exit 0/);
      assert.match(evidence(envelope, "ac10-sigterm"), /lsp: exit 143, envelope last on stderr/);
      assert.match(evidence(envelope, "ac11-idle-not-killed"), /lsp: still serving after/);
      assert.doesNotMatch(JSON.stringify(envelope.data.criteria), /checker speaks/);
    } finally {
      home.cleanup();
    }
  });

  it("a Python CLI that keeps the contract passes too", async () => {
    const dir = tempDir();
    try {
      const { code, envelope } = await check(pyfix());
      assert.equal(code, 0, failures(envelope));
      assert.equal(envelope.data.summary.failed, 0);
      assert.match(evidence(envelope, "ac14-mcp-false-shown"), /approve: left out and marked mcp: false/);
    } finally {
      dir.cleanup();
    }
  });

  it("plain output is a readable report", async () => {
    const result = await run([...TOOLWIRE, "--format", "plain", "check", "--", ...pyfix()], {
      timeoutMs: 120_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^toolwire check — \S+ -S \S+pyfix\.py\n/);
    assert.match(result.stdout, /\nPASS {2}ac07-stdout-purity +Once serving begins/);
    assert.match(result.stdout, /\nskip {2}ac05-prepare-failure /);
    assert.match(result.stdout, /\n23 criteria: 22 passed, 0 failed, 1 skipped\n$/);
    // Words, not requirement ids: a criterion's id is shown once, beside what it asks.
    assert.doesNotMatch(result.stdout, /REQ-[A-Z]-\d/);
    assert.doesNotMatch(result.stdout, /\bac\d\d\b(?!-)/);
  });
});

describe("toolwire check fails each broken CLI, naming the criterion it broke", { concurrency: true }, () => {
  const cases: Array<[fixture: string, broken: string[], seen: RegExp]> = [
    ["broken_mcp_true", ["ac16-no-mcp-true", "manifest-schema"], /approve: mcp: true/],
    [
      "broken_banner",
      ["ac07-stdout-purity"],
      /the first stdout line is not the response: Welcome to pyfix MCP!/,
    ],
    // Read in linear time and never held whole: the line is counted past the checker's 4 MiB. (On a loaded
    // machine the 64 MiB may arrive after the first probe's wait: then a later one names it.)
    [
      "broken_long_line",
      ["ac07-stdout-purity"],
      /\[a line of 67108864 bytes, longer than the 4194304 the checker holds\]/,
    ],
    ["broken_bad_flag_exit", ["ac04-invalid-flag", "ac13-invalid-flag"], /exit 1, expected 2/],
    ["broken_two_envelopes", ["ac13-one-envelope"], /2 stdout lines/],
    [
      "broken_etag",
      ["manifest-etag"],
      /etag sha256:0{64} does not match the content, whose etag is sha256:[0-9a-f]{64}/,
    ],
  ];
  for (const [fixture, broken, seen] of cases) {
    it(`${fixture}: exit ${CHECK_FAILED}, ${broken.join(" and ")} failed`, async () => {
      const { code, envelope } = await check(pyfix(fixture));
      assert.equal(code, CHECK_FAILED, failures(envelope));
      assert.equal(envelope.ok, false);
      assert.equal(envelope.error.code, "CHECK_FAILED");
      assert.equal(envelope.meta.exit_code, CHECK_FAILED);
      const failed = failedIds(envelope);
      for (const id of broken) {
        assert.ok(failed.includes(id), `${id} should fail; failed: ${failed.join(", ")}`);
      }
      assert.match(envelope.error.message, new RegExp(`criteria failed: .*${broken[0]}`));
      assert.match(evidence(envelope, broken[0]!), seen);
      assert.equal(envelope.data.summary.failed, failed.length);
    });
  }
});

describe("toolwire check against a CLI whose every run but the manifest writes one endless stdout line", () => {
  it("the runs are reported, and the checker's peak memory stays under 256 MiB", async () => {
    const child = start([
      ...TOOLWIRE,
      "--format",
      "json",
      "check",
      "--probe-timeout",
      "2",
      "--",
      ...pyfix("broken_endless_line"),
    ]);
    let peak = 0;
    const sample = () => {
      if (process.platform !== "linux") return;
      try {
        const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (found !== null) peak = Math.max(peak, Number(found[1]) * 1024);
      } catch {
        // It exited between two samples.
      }
    };
    const sampler = setInterval(sample, 100);
    const result = await finished(child, 300_000);
    clearInterval(sampler);
    assert.equal(result.code, CHECK_FAILED, result.stderr);
    const envelope = onlyEnvelope(result.stdout);
    assert.match(evidence(envelope, "ac06-help"), /echo --help: did not exit with stdin left open/);
    assert.match(evidence(envelope, "ac07-stdout-purity"), /no stdout line in time/);
    if (process.platform === "linux") {
      assert.ok(peak > 0, "the checker's memory was sampled");
      assert.ok(peak < 256 * 1024 * 1024, `the checker's peak RSS was ${(peak / 2 ** 20).toFixed(0)} MiB`);
    }
  });
});

describe("toolwire check --time-limit", () => {
  it("a CLI whose probes outlast the limit: exit 14 with the partial report, what was not settled skipped for the limit", async () => {
    // The fixture's manifest answers at once and every other run waits two minutes: the limit, not the
    // machine's speed, decides what is settled. The probe timeout is longer than the limit, so that the
    // limit is what ends the probes.
    const started = Date.now();
    const result = await run([
      ...TOOLWIRE,
      "--format",
      "json",
      "check",
      "--time-limit",
      "10",
      "--probe-timeout",
      "300",
      "--",
      ...programArgv("tests/fixtures/slow_probes.ts"),
    ], { timeoutMs: 120_000 });
    const elapsed = Date.now() - started;
    assert.equal(result.code, 14, result.stderr);
    const envelope = onlyEnvelope(result.stdout);
    assert.equal(envelope.error.code, "INCOMPLETE");
    assert.match(envelope.error.message, /the time limit of 10 s ended the check first/);
    assert.equal(envelope.data.complete, false);
    assert.equal(envelope.data.summary.failed, 0);
    const byId = Object.fromEntries(envelope.data.criteria.map((result: Loose) => [result.id, result]));
    // The manifest was read and settled before the limit; the probes of each command were not.
    assert.equal(byId["manifest-envelope"].status, "pass");
    assert.equal(byId["manifest-schema"].status, "pass");
    for (const id of ["ac06-help", "ac13-invalid-flag", "ac14-mcp-false-shown"]) {
      assert.equal(byId[id].status, "skip", id);
      assert.match(byId[id].evidence, /^skipped: the time limit \(10 s, --time-limit\) ended the check/, id);
    }
    // The probes were killed at the limit, not waited for.
    assert.ok(elapsed < 60_000, `the limit ended the run (${elapsed} ms)`);
  });

  it("refuses a negative --time-limit (2)", async () => {
    const result = await run([...TOOLWIRE, "--format", "json", "check", "--time-limit", "-1", "--", "x"]);
    assert.equal(result.code, 2);
    assert.match(onlyEnvelope(result.stdout).error.message, /--time-limit expects seconds >= 0/);
  });
});

describe("toolwire check: when there is nothing to check", () => {
  it("a CLI that cannot be started: 5 NOT_FOUND", async () => {
    const result = await run([
      ...TOOLWIRE,
      "--format",
      "json",
      "check",
      "--",
      "definitely-not-a-program-7f3a",
    ]);
    assert.equal(result.code, 5);
    assert.equal(onlyEnvelope(result.stdout).error.code, "NOT_FOUND");
  });

  it("no CLI: 2 ARG_ERROR", async () => {
    const result = await run([...TOOLWIRE, "--format", "json", "check"]);
    assert.equal(result.code, 2);
    assert.match(
      onlyEnvelope(result.stdout).error.message,
      /missing argument <cli>: at least one value is required/,
    );
  });

  it("a program without a manifest fails manifest-envelope and skips the rest with the reason", async () => {
    const { code, envelope } = await check(["python3", "-c", "print('no manifest here')"]);
    assert.equal(code, CHECK_FAILED, failures(envelope));
    assert.deepEqual(failedIds(envelope), ["manifest-envelope"]);
    assert.match(evidence(envelope, "ac04-invalid-flag"), /printed no manifest/);
  });
});

describe("toolwire's own contract", () => {
  it("`toolwire manifest` validates with validateManifest and declares what the binary adds", async () => {
    const result = await run([...TOOLWIRE, "manifest"]);
    assert.equal(result.code, 0);
    const manifest = onlyEnvelope(result.stdout).data;
    assert.deepEqual(validateManifest(manifest), []);
    assert.deepEqual(Object.keys(manifest.commands), [
      "check",
      "completions",
      "manifest",
      "mcp.diff",
      "mcp.install",
      "mcp.listen",
      "mcp.serve",
      "mcp.snapshot",
    ]);
    const serve = manifest.commands["mcp.serve"];
    assert.equal(serve.danger_level, "destructive", "a bridged CLI can delete");
    assert.deepEqual(Object.keys(serve.exit_codes), ["0", "1", "2", "4", "5", "10", "129", "130", "143"]);
    assert.ok(serve.flags.exec && serve.flags.cwd && serve.flags["call-timeout"] && serve.flags["read-only"]);
    const check = manifest.commands.check;
    assert.deepEqual(check.positionals, [{
      name: "cli",
      type: "string",
      required: true,
      description: "The CLI to check: its program and leading arguments, after --",
      variadic: true,
    }]);
    assert.equal(check.exit_codes["80"].name, "CHECK_FAILED");
  });

  it("toolwire passes its own check", async () => {
    const { code, envelope } = await check(TOOLWIRE);
    assert.equal(code, 0, failures(envelope));
    assert.match(evidence(envelope, "ac14-mcp-false-shown"), /check: listed, no mcp field/);
  });
});
