// A third-party MCP client against `notes mcp serve` and `toolwire mcp serve --exec "<notes>"` over stdio,
// and against `notes mcp listen http://…` and `toolwire mcp listen --exec "<notes>" http://…` through its
// streamable HTTP client: the Python `mcp` SDK (2.x), in its `auto` negotiation (a `server/discover` probe,
// which must settle on the 2026-07-28 era) and its `legacy` mode (the `initialize` handshake). The client script
// (tests/fixtures/python_client.py) runs one fixed session and reports what it saw; the assertions are here.
//
// Python comes from .venv-interop/ (made by scripts/python_interop_setup.mjs, which `npm test` runs), else
// from python3 on PATH. No python3 at all: the test is skipped, saying so. A python3 that cannot import
// `mcp`: the test fails with the command that installs it, so a CI machine never skips it silently.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { quoteCommandLine } from "../../lib/bridge/command_line.ts";
import { HTTP_SERVERS, startHttpListener } from "../helpers/http_listener.ts";
import {
  finished,
  lastLine,
  type Loose,
  NOTES,
  onlyEnvelope,
  programArgv,
  ROOT,
  run,
  start,
  tempDir,
} from "../helpers/run.ts";

const CLIENT = join(ROOT, "tests", "fixtures", "python_client.py");
const VENV_PYTHON = join(ROOT, ".venv-interop", "bin", "python");
const SETUP = "node scripts/python_interop_setup.mjs";
/** The client bounds its session (120 s) itself; this is the backstop if it hangs anyway. */
const CLIENT_KILL_MS = 180_000;

type Python =
  | { kind: "ready"; python: string }
  | { kind: "skip"; reason: string }
  | { kind: "broken"; reason: string };

const PROBE = "import importlib.metadata as m, mcp.client.stdio; print(m.version('mcp'))";

/** The interpreter to use, or why there is none. */
function findPython(): Python {
  const python = existsSync(VENV_PYTHON) ? VENV_PYTHON : "python3";
  const probe = spawnSync(python, ["-c", PROBE], { encoding: "utf8", timeout: 60_000 });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT" && python === "python3") {
    return { kind: "skip", reason: "python3 is not on PATH: the Python MCP SDK interop test needs it" };
  }
  const where = python === VENV_PYTHON ? ".venv-interop" : "python3 on PATH";
  if (probe.status !== 0) {
    return {
      kind: "broken",
      reason:
        `${where} cannot import the Python MCP SDK (mcp): run \`${SETUP}\` (a venv in .venv-interop/ with mcp==2.3.*)` +
        `\n${probe.error?.message ?? probe.stderr.trim().split("\n").slice(-1)[0]}`,
    };
  }
  const version = probe.stdout.trim();
  if (!version.startsWith("2.")) {
    return {
      kind: "broken",
      reason: `${where} has mcp ${version}, this test drives the 2.x client: run \`${SETUP}\``,
    };
  }
  return { kind: "ready", python };
}

const PYTHON = findPython();
if (PYTHON.kind === "skip") console.warn(`python_client.test.ts: skipped, ${PYTHON.reason}`);

const MODES = ["auto", "legacy"] as const;
type Mode = (typeof MODES)[number];

/** A server: a stdio command line, or (`http`) a listener's command line built from its flags and address. */
type Server =
  | { name: string; argv: string[] }
  | { name: string; http: (flags: readonly string[]) => string[] };

const SERVERS: Server[] = [
  { name: "notes mcp serve", argv: [...NOTES, "mcp", "serve"] },
  {
    name: "toolwire mcp serve --exec notes",
    argv: [...programArgv("cmd/toolwire.ts"), "mcp", "serve", "--exec", quoteCommandLine(NOTES)],
  },
  ...HTTP_SERVERS.map((server) => ({ name: `${server.name} http://…`, http: server.argv })),
];

/** Runs the client script against `server` with a fresh NOTES_HOME; returns its report and the notes left. */
async function session(
  python: string,
  mode: Mode,
  server: Server,
): Promise<{ report: Loose; notes: Loose[] }> {
  const home = tempDir("toolwire-python-");
  const listener = "http" in server ? await startHttpListener(server.http, { home: home.path }) : undefined;
  try {
    const env = { NOTES_HOME: home.path };
    const target = "http" in server ? [listener!.url] : server.argv;
    const result = await finished(start([python, CLIENT, mode, ...target], { env }), CLIENT_KILL_MS);
    const failed = `the client exited ${result.code}:\n${result.stderr.slice(-4000)}`;
    const line = lastLine(result.stdout);
    let report: Loose;
    try {
      report = JSON.parse(line);
    } catch {
      assert.fail(`no report on stdout (${JSON.stringify(line.slice(0, 200))}); ${failed}`);
    }
    assert.equal(report.fatal, undefined, failed);
    assert.equal(result.code, 0, failed);
    // The servers' stderr comes through here too, and so would the SDK's complaint about a line on the
    // server's stdout that is not JSON-RPC: a clean session says nothing.
    assert.equal(result.stderr, "");
    const listed = await run([...NOTES, "list"], { env });
    assert.equal(listed.code, 0, listed.stderr);
    return { report, notes: onlyEnvelope(listed.stdout).data };
  } finally {
    if (listener !== undefined) {
      const stopped = await listener.stop();
      assert.equal(stopped.code, 143, stopped.stderr);
    }
    home.cleanup();
  }
}

/** A step's tool result as the envelope it carries: the same in structuredContent and the text content. */
function envelope(step: Loose): Loose {
  assert.ok(
    step !== undefined && !("rpc_error" in step) && !("exception" in step),
    `a tool result, got ${JSON.stringify(step)}`,
  );
  assert.deepEqual(step.content_types, ["text"]);
  assert.deepEqual(step.content_json, step.structured);
  assert.deepEqual(Object.keys(step.structured), ["ok", "data", "error", "warnings", "meta"]);
  assert.equal(step.is_error, !step.structured.ok);
  return step.structured;
}

function success(step: Loose): Loose {
  const result = envelope(step);
  assert.equal(result.ok, true, JSON.stringify(result.error));
  assert.equal(result.error, null);
  assert.equal(result.meta.exit_code, 0);
  return result.data;
}

function failure(step: Loose, code: string, exitCode: number): Loose {
  const result = envelope(step);
  assert.equal(result.ok, false);
  assert.equal(result.data, null);
  assert.equal(result.error.code, code, result.error.message);
  assert.equal(result.meta.exit_code, exitCode);
  return result.error;
}

/** The summary of a note that `remove` previews and reports. */
const summary = (note: Loose) => ({ id: note.id, title: note.title, tags: note.tags });

/** What the confirming session must have seen in the era `mode` settles on; `notes` is what is left. */
function assertConfirmingSession(mode: Mode, confirming: Loose, notes: Loose[]): void {
  const modern = mode === "auto";
  assert.deepEqual(confirming.connection, {
    protocol_version: modern ? "2026-07-28" : "2025-11-25",
    era: modern ? "modern" : "legacy",
    server_name: "notes",
  });
  assert.deepEqual(Object.keys(confirming.tools).sort(), ["add", "list", "manifest", "remove", "show"]);
  assert.deepEqual(confirming.tools.add, {
    arguments: ["body", "idempotency_key", "tag", "title"],
    required: ["title"],
    has_output_schema: true,
  });
  assert.deepEqual(confirming.tools.remove, {
    arguments: ["confirm_destructive", "dry_run", "id", "idempotency_key"],
    required: ["id"],
    has_output_schema: true,
  });

  const added = success(confirming.add);
  assert.equal(added.effect, "created");
  const milk = added.note;
  assert.deepEqual({ ...milk, created_at: typeof milk.created_at }, {
    id: 1,
    title: "milk",
    body: "2 litres",
    tags: ["home", "shop"],
    created_at: "string",
  });
  const keyed = success(confirming.add_keyed);
  assert.deepEqual([keyed.effect, keyed.note.id, keyed.note.title], ["created", 2, "keyed"]);
  const replay = success(confirming.add_keyed_replay);
  assert.deepEqual(replay, { effect: "noop", note: keyed.note });
  assert.equal(confirming.add_keyed_replay.structured.meta.idempotency_hit, true);
  const bad = failure(confirming.add_bad_arguments, "ARG_ERROR", 2);
  assert.deepEqual(bad.issues.map((issue: Loose) => issue.message), [
    "unknown argument 'titel'",
    "title is required",
  ]);

  assert.deepEqual(success(confirming.show), milk);
  assert.equal(failure(confirming.show_missing, "NOT_FOUND", 5).message, "note 999 does not exist");
  assert.equal(confirming.unknown_tool.rpc_error?.code, -32602, JSON.stringify(confirming.unknown_tool));

  if (modern) {
    // Each unconfirmed remove asked once, with the dry run's preview, and acted on the answer only.
    const answers = { remove_declined: "decline", remove_cancelled: "cancel", remove_accepted: "accept" };
    for (const [step, answer] of Object.entries(answers)) {
      const [asked, ...more] = confirming[step].elicitations;
      assert.deepEqual(more, [], `${step}: asked once`);
      assert.equal(asked.answer, answer);
      assert.equal(asked.request.mode, "form");
      assert.deepEqual(asked.request.requestedSchema.required, ["confirm"]);
      assert.equal(asked.request.requestedSchema.properties.confirm.type, "boolean");
      assert.ok(
        asked.request.message.includes(
          JSON.stringify({ effect: "would_delete", would_affect: { notes: [summary(milk)], count: 1 } }),
        ),
        asked.request.message,
      );
    }
    assert.equal(
      failure(confirming.remove_declined, "CONFIRMATION_DECLINED", 2).message,
      "the confirmation was declined; nothing was changed",
    );
    assert.deepEqual(success(confirming.show_after_decline), milk);
    failure(confirming.remove_cancelled, "CONFIRMATION_DECLINED", 2);
    assert.deepEqual(success(confirming.show_after_cancel), milk);
    assert.deepEqual(success(confirming.remove_accepted), { effect: "deleted", note: summary(milk) });
    failure(confirming.show_after_accept, "NOT_FOUND", 5);
  } else {
    // The legacy era never asks, though this client declared elicitation: every unconfirmed remove previews.
    for (const step of ["remove_declined", "remove_cancelled", "remove_accepted"]) {
      assert.deepEqual(confirming[step].elicitations, [], `${step}: not asked`);
      const refused = failure(confirming[step], "CONFIRMATION_REQUIRED", 2);
      assert.deepEqual(refused.preview, {
        effect: "would_delete",
        would_affect: { notes: [summary(milk)], count: 1 },
      });
    }
    for (const step of ["show_after_decline", "show_after_cancel", "show_after_accept"]) {
      assert.deepEqual(success(confirming[step]), milk);
    }
  }
  // A preview that fails is the answer, with nothing asked; confirm_destructive needs no question either.
  assert.deepEqual(confirming.remove_missing.elicitations, []);
  failure(confirming.remove_missing, "NOT_FOUND", 5);
  assert.deepEqual(confirming.remove_confirmed.elicitations, []);
  assert.deepEqual(success(confirming.remove_confirmed), { effect: "deleted", note: summary(keyed.note) });
  const left = modern ? [] : [summary(milk)];
  assert.deepEqual(success(confirming.list), left);
  // The plain session added note 3 and removed it again: only what the confirming session left remains.
  assert.deepEqual(notes, left);
}

/** A client without elicitation, in either era: a preview until the call says confirm_destructive. */
function assertPlainSession(mode: Mode, plain: Loose): void {
  assert.equal(plain.connection.era, mode === "auto" ? "modern" : "legacy");
  const added = success(plain.add);
  assert.deepEqual([added.effect, added.note.id], ["created", 3]);
  const refused = failure(plain.remove_unconfirmed, "CONFIRMATION_REQUIRED", 2);
  assert.deepEqual(refused.preview, {
    effect: "would_delete",
    would_affect: { notes: [summary(added.note)], count: 1 },
  });
  assert.deepEqual(success(plain.show_after_preview), added.note);
  assert.deepEqual(success(plain.remove_confirmed), { effect: "deleted", note: summary(added.note) });
  failure(plain.show_after_remove, "NOT_FOUND", 5);
}

describe("the Python MCP SDK client", () => {
  // Skipped case by case, not as a suite: the skips then show in every runner's counts.
  const skip = PYTHON.kind === "skip" ? PYTHON.reason : false;
  for (const server of SERVERS) {
    for (const mode of MODES) {
      it(
        `${server.name}, ${mode} mode: tools, add, show, remove with and without confirmation`,
        { skip },
        async () => {
          // A python3 without the SDK fails here, in every case, with the command that installs it.
          if (PYTHON.kind !== "ready") assert.fail(PYTHON.reason);
          const { report, notes } = await session(PYTHON.python, mode, server);
          assert.equal(report.mode, mode);
          assertConfirmingSession(mode, report.confirming, notes);
          assertPlainSession(mode, report.plain);
        },
      );
    }
  }
});
