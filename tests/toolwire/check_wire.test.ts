// `toolwire check` as a client of every protocol it names: LSP and DAP servers are driven over Content-Length
// framing like mcp-stdio ones over lines, and a server that breaks one rule fails the criterion it broke;
// ac05 runs when the user says how to make preparation fail (--prepare-failure, --prepare-failure-env).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Loose, onlyEnvelope, programArgv, run } from "../helpers/run.ts";
import { failedIds, failures, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

const CHECK_FAILED = 80;
const DAPFIX = programArgv("tests/fixtures/dap_fixture.ts");
const LAB = programArgv("tests/fixtures/lab.ts");
/** A Python CLI with an `lsp` and a `debug-adapter` command; WIRE_QUIRK breaks one rule. */
const PYWIRE = pyfix("wire");
/**
 * Seconds per probe against the Python CLI: its passing probes end long before, and a parallel suite on a
 * loaded machine has seen a start take more than 3.
 */
const PROBE_TIMEOUT = "10";
const PYWIRE_TRIGGERS = [
  "--prepare-failure",
  "lsp --config missing.toml",
  "--prepare-failure",
  "debug-adapter --config missing.toml",
];

async function check(
  cli: readonly string[],
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; envelope: Loose; stderr: string }> {
  const result = await run([...TOOLWIRE, "--format", "json", "check", ...flags, "--", ...cli], {
    env,
    timeoutMs: 120_000,
  });
  return { code: result.code, envelope: onlyEnvelope(result.stdout), stderr: result.stderr };
}

function result(envelope: Loose, id: string): { status: string; evidence: string } {
  return envelope.data.criteria.find((criterion: Loose) => criterion.id === id);
}

describe("toolwire check speaks LSP and DAP", { concurrency: true }, () => {
  it("the DAP fixture passes every criterion, ac05 included", async () => {
    const { code, envelope } = await check(DAPFIX, ["--prepare-failure", "debug-adapter --fail-prepare"]);
    assert.equal(code, 0, failures(envelope));
    assert.deepEqual(envelope.data.summary, { passed: 23, failed: 0, skipped: 0 });
    const seen: Array<[id: string, evidence: RegExp]> = [
      [
        "ac05-prepare-failure",
        /debug-adapter --fail-prepare: exit 5 \(declared\), stdout empty, the NOT_FOUND envelope last on stderr; in plain mode the same exit and "dapfix: error: the program to debug does not exist" on stderr/,
      ],
      ["ac07-stdout-purity", /debug-adapter: the first response answers initialize/],
      [
        "ac08-malformed-request",
        /debug-adapter: answered a body that is not JSON with an output event, then answered a request/,
      ],
      [
        "ac08-malformed-request",
        /debug-adapter: answered a header without a usable Content-Length with an output event, then ended with exit 1 and the PROTOCOL_FRAMING_ERROR envelope/,
      ],
      ["ac09-stdin-eof", /debug-adapter: exit 0/],
      ["ac10-sigterm", /debug-adapter: exit 143, envelope last on stderr/],
      ["ac11-idle-not-killed", /debug-adapter: still serving after/],
    ];
    for (const [id, evidence] of seen) assert.match(result(envelope, id).evidence, evidence, id);
  });

  it("a Python CLI with LSP and DAP commands passes: the same probes, another implementation", async () => {
    const { code, envelope } = await check(PYWIRE, PYWIRE_TRIGGERS);
    assert.equal(code, 0, failures(envelope));
    for (
      const id of [
        "ac05-prepare-failure",
        "ac07-stdout-purity",
        "ac08-malformed-request",
        "ac09-stdin-eof",
        "ac10-sigterm",
        "ac11-idle-not-killed",
      ]
    ) {
      const { status, evidence } = result(envelope, id);
      assert.equal(status, "pass", `${id}: ${evidence}`);
      assert.match(evidence, /lsp/, id);
      assert.match(evidence, /debug-adapter/, id);
    }
  });

  it("a protocol the checker does not speak is skipped with the reason, never passed unseen", async () => {
    const { code, envelope } = await check(LAB, ["--prepare-failure", "echo-lines --fail-prepare"]);
    assert.equal(code, 0, failures(envelope));
    for (const id of ["ac07-stdout-purity", "ac08-malformed-request"]) {
      assert.match(
        result(envelope, id).evidence,
        /echo-lines: speaks line-echo; the checker speaks mcp-stdio, lsp and dap/,
        id,
      );
    }
    assert.match(
      result(envelope, "ac11-idle-not-killed").evidence,
      /echo-lines: still running after 2\.5 s idle with --timeout 1, but whether it still serves is not checked: it speaks line-echo/,
    );
    // ac05 on the lab's line-echo server, whose preparation fails when asked to.
    const ac05 = result(envelope, "ac05-prepare-failure");
    assert.equal(ac05.status, "pass", ac05.evidence);
    assert.match(
      ac05.evidence,
      /echo-lines --fail-prepare: exit 5 \(declared\), stdout empty, the NOT_FOUND envelope last on stderr; in plain mode the same exit and "lab: error: configuration lab\.toml does not exist" on stderr/,
    );
  });
});

describe("toolwire check fails a server that breaks one rule of its protocol, naming the criterion", {
  concurrency: true,
}, () => {
  const cases: Array<[quirk: string, broken: string, seen: RegExp]> = [
    [
      "lsp-banner",
      "ac07-stdout-purity",
      /lsp: no response to initialize; stdout is not Content-Length framed: a header line holds a bare CR or LF \(stdout began "Server ready\\n/,
    ],
    [
      "lsp-fragile",
      "ac08-malformed-request",
      /lsp: no error response \(id null or -32700\) to a frame whose body is not JSON/,
    ],
    ["lsp-eof-exit-1", "ac09-stdin-eof", /lsp: exit 1, an envelope on stderr/],
    [
      "dap-mute",
      "ac08-malformed-request",
      /debug-adapter: no output event or failed response to a frame whose body is not JSON/,
    ],
    [
      "dap-ignore-sigterm",
      "ac10-sigterm",
      /debug-adapter: still running after SIGTERM, no envelope last on stderr/,
    ],
    ["dap-sigterm-exit-0", "ac10-sigterm", /debug-adapter: exit 0, no envelope last on stderr/],
    [
      "prepare-stdout",
      "ac05-prepare-failure",
      /lsp --config missing\.toml: --format json: 57 bytes on stdout: "pywire: error: configuration missing\.toml does not exist\\n"/,
    ],
  ];
  for (const [quirk, broken, seen] of cases) {
    it(`${quirk}: exit ${CHECK_FAILED}, only ${broken} failed`, async () => {
      const { code, envelope } = await check(PYWIRE, ["--probe-timeout", PROBE_TIMEOUT, ...PYWIRE_TRIGGERS], {
        WIRE_QUIRK: quirk,
      });
      assert.deepEqual(failedIds(envelope), [broken], failures(envelope));
      assert.equal(code, CHECK_FAILED);
      assert.equal(envelope.error.code, "CHECK_FAILED");
      assert.equal(envelope.error.message, `1 of 23 criteria failed: ${broken}`);
      assert.match(result(envelope, broken).evidence, seen);
    });
  }
});

describe("toolwire check reads a server's stderr to its end", () => {
  it("an envelope that reaches stderr after the exit is seen: ac10 passes", async () => {
    // On SIGTERM pywire exits at once, and a child it started writes the envelope 300 ms later.
    const { code, envelope } = await check(PYWIRE, ["--probe-timeout", PROBE_TIMEOUT], {
      WIRE_QUIRK: "late-envelope",
    });
    assert.equal(code, 0, failures(envelope));
    assert.equal(result(envelope, "ac10-sigterm").status, "pass", result(envelope, "ac10-sigterm").evidence);
  });
});

describe("toolwire check --prepare-failure", { concurrency: true }, () => {
  it("without it ac05 is skipped, naming the option", async () => {
    const { code, envelope } = await check(PYWIRE, ["--probe-timeout", PROBE_TIMEOUT]);
    assert.equal(code, 0, failures(envelope));
    const ac05 = result(envelope, "ac05-prepare-failure");
    assert.equal(ac05.status, "skip");
    assert.match(
      ac05.evidence,
      /--prepare-failure "<command> <arguments>" \(and --prepare-failure-env NAME=VALUE\)/,
    );
  });

  it("a trigger that does not make preparation fail fails ac05", async () => {
    const { code, envelope } = await check(PYWIRE, [
      "--probe-timeout",
      PROBE_TIMEOUT,
      "--prepare-failure",
      "lsp",
      "--prepare-failure",
      "lsp --config=package.json",
    ]);
    assert.equal(code, CHECK_FAILED, failures(envelope));
    assert.deepEqual(failedIds(envelope), ["ac05-prepare-failure"], failures(envelope));
    assert.match(
      result(envelope, "ac05-prepare-failure").evidence,
      /^lsp: exit 0: preparation did not fail .*; lsp --config=package\.json: exit 0/,
    );
  });

  it("--prepare-failure-env sets variables for the trigger's runs", async () => {
    // WIRE_QUIRK reaches the trigger's runs only: ac05 fails, and nothing else does.
    const { code, envelope } = await check(PYWIRE, [
      "--probe-timeout",
      PROBE_TIMEOUT,
      "--prepare-failure",
      "lsp --config missing.toml",
      "--prepare-failure-env",
      "WIRE_QUIRK=prepare-stdout",
    ]);
    assert.equal(code, CHECK_FAILED, "the variable reached the CLI: its prepare failure wrote to stdout");
    assert.deepEqual(failedIds(envelope), ["ac05-prepare-failure"], failures(envelope));
  });

  it("a trigger naming no protocol command, or variables without a trigger, are ARG_ERROR (2)", async () => {
    const unknown = await run([
      ...TOOLWIRE,
      "--format",
      "json",
      "check",
      "--prepare-failure",
      "serve --x",
      "--",
      ...PYWIRE,
    ], { timeoutMs: 60_000 });
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.equal(
      onlyEnvelope(unknown.stdout).error.message,
      "--prepare-failure 'serve --x' does not begin with a protocol command of the CLI; its protocol commands: debug-adapter, lsp",
    );
    const cases: Array<[flags: string[], message: string]> = [
      [
        ["--prepare-failure-env", "A=1"],
        "--prepare-failure-env needs --prepare-failure: name the protocol command it is for",
      ],
      [
        ["--prepare-failure", "lsp", "--prepare-failure-env", "1A=1"],
        "--prepare-failure-env expects NAME=VALUE, got '1A=1'",
      ],
      [
        ["--prepare-failure", "lsp", "--prepare-failure-env", "A"],
        "--prepare-failure-env expects NAME=VALUE, got 'A'",
      ],
      [
        ["--prepare-failure", "lsp", "--prepare-failure-env", "A=1", "--prepare-failure-env", "A=2"],
        "--prepare-failure-env sets A twice",
      ],
      [["--prepare-failure", "lsp 'unclosed"], "--prepare-failure: unbalanced ' opened at character 5"],
      [["--prepare-failure", " "], "--prepare-failure: it is empty"],
    ];
    for (const [flags, message] of cases) {
      const refused = await run([...TOOLWIRE, "--format", "json", "check", ...flags, "--", ...PYWIRE]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(onlyEnvelope(refused.stdout).error.message, message);
    }
  });
});
