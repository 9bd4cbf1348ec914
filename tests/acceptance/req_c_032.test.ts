// REQ-C-032 "Protocol Server Commands Declare Their Stdout Protocol": one named test per acceptance
// criterion, each quoting the criterion word for word. The real `notes` example (its `mcp serve`) and the
// `lab` fixture (its `echo-lines`, a second protocol command speaking a line-echo protocol) are spawned as
// real processes; registration rules are checked in-process.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { type AnyCommandDefinition, createTool, RegistrationError } from "../../mod.ts";
import { initialize, modern, WireSession } from "../helpers/mcp_wire.ts";
import {
  finished,
  lastLine,
  type Loose,
  type LooseEnvelope,
  NOTES,
  onlyEnvelope,
  programArgv,
  ROOT,
  run,
  sendSignal,
  start,
  tempDir,
} from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

/** The protocol server commands of each program, and the protocol each must name. */
const PROTOCOL_COMMANDS = {
  notes: { "mcp.serve": "mcp-stdio", lsp: "lsp" },
  lab: { "mcp.serve": "mcp-stdio", "echo-lines": "line-echo" },
} as const;

const ENVELOPE_KEYS = ["ok", "data", "error", "warnings", "meta"];

/** The manifest a program prints (`data` of its envelope). */
async function manifestOf(argv: readonly string[]): Promise<{ commands: Record<string, Loose> }> {
  const result = await run([...argv, "--format", "json", "manifest"]);
  assert.equal(result.code, 0, result.stderr);
  return onlyEnvelope(result.stdout).data;
}

/** Parses the last non-empty stderr line as a ResponseEnvelope, asserting its exact shape. */
function stderrEnvelope(stderr: string): LooseEnvelope {
  const line = lastLine(stderr);
  let envelope: LooseEnvelope;
  try {
    envelope = JSON.parse(line);
  } catch {
    throw new assert.AssertionError({
      message: `the last stderr line is not JSON: ${JSON.stringify(line)}\nstderr: ${stderr}`,
    });
  }
  assert.deepEqual(Object.keys(envelope), ENVELOPE_KEYS, `not a ResponseEnvelope: ${line}`);
  assert.equal(envelope.ok, false);
  assert.equal(typeof envelope.error.code, "string");
  assert.equal(typeof envelope.meta.exit_code, "number");
  return envelope;
}

/** Whether a text line is a ResponseEnvelope (a JSON object with `ok` and `meta`). */
function isEnvelopeLine(line: string): boolean {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && "ok" in value && "meta" in value;
  } catch {
    return false;
  }
}

/** Asserts that every byte a server wrote to stdout belongs to whole JSON-RPC 2.0 messages, one per line. */
function assertOnlyJsonRpc(stdout: string): void {
  assert.ok(stdout === "" || stdout.endsWith("\n"), "stdout must end with a whole message");
  for (const line of stdout.split("\n").slice(0, -1)) {
    let message: Loose;
    try {
      message = JSON.parse(line);
    } catch {
      throw new assert.AssertionError({
        message: `a stdout line is not a protocol message: ${JSON.stringify(line)}`,
      });
    }
    const messages = Array.isArray(message) ? message : [message];
    for (const item of messages) assert.equal(item.jsonrpc, "2.0", `a stdout line is not JSON-RPC: ${line}`);
  }
}

/** A valid protocol command declaration; tests add one field at a time to break it. */
function protocolDeclaration(extra: Record<string, unknown> = {}): AnyCommandDefinition {
  return {
    description: "Serve a line-echo protocol over stdio",
    danger_level: "safe",
    required_scopes: [],
    stdout: "protocol",
    protocol: "line-echo",
    exit_codes: {
      "0": { name: "SUCCESS", description: "stdin closed", retryable: false, side_effects: "none" },
    },
    serve: () => () => Promise.resolve(),
    ...extra,
  } as unknown as AnyCommandDefinition;
}

/** A valid ordinary command declaration. */
function plainDeclaration(extra: Record<string, unknown> = {}): AnyCommandDefinition {
  return {
    description: "Say hello",
    danger_level: "safe",
    required_scopes: [],
    exit_codes: {
      "0": { name: "SUCCESS", description: "Said hello", retryable: false, side_effects: "none" },
    },
    run: () => ({ hello: true }),
    ...extra,
  } as unknown as AnyCommandDefinition;
}

/** Registers a declaration on a fresh tool and returns the RegistrationError it must raise. */
function refusal(path: string, definition: AnyCommandDefinition): RegistrationError {
  const tool = createTool({ name: "reg-test", version: "1.0.0", description: "Registration test tool" });
  let caught: unknown;
  try {
    tool.command(path, definition as never);
  } catch (error) {
    caught = error;
  }
  assert.ok(
    caught instanceof RegistrationError,
    `registration of '${path}' must throw a RegistrationError, got ${String(caught)}`,
  );
  assert.equal(caught.command, path);
  assert.equal(tool.registry.get(path), undefined, "a refused command must not be registered");
  return caught;
}

/** Resolves true if the process is still running after `ms`. */
async function stillRunning(session: WireSession, ms: number): Promise<boolean> {
  const exited = session.exited().then(() => false);
  const waited = new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms));
  return await Promise.race([exited, waited]);
}

describe("REQ-C-032: Protocol Server Commands Declare Their Stdout Protocol", () => {
  it('tool manifest shows stdout: "protocol" and a protocol name on every protocol server command, and neither field on any other command', async () => {
    for (const [program, argv] of [["notes", NOTES], ["lab", LAB]] as const) {
      const { commands } = await manifestOf(argv);
      const expected: Record<string, string> = PROTOCOL_COMMANDS[program];
      for (const path of Object.keys(expected)) {
        assert.ok(Object.hasOwn(commands, path), `${program} manifest lacks ${path}`);
      }
      for (const [path, entry] of Object.entries(commands)) {
        if (Object.hasOwn(expected, path)) {
          assert.equal(entry.stdout, "protocol", `${program} ${path}: stdout`);
          assert.equal(entry.protocol, expected[path], `${program} ${path}: protocol`);
          assert.match(
            entry.protocol,
            /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/,
            "a protocol name is lowercase kebab-case",
          );
        } else {
          assert.equal(Object.hasOwn(entry, "stdout"), false, `${program} ${path} must not carry stdout`);
          assert.equal(Object.hasOwn(entry, "protocol"), false, `${program} ${path} must not carry protocol`);
        }
      }
    }
  });

  it('The framework rejects at registration a command that declares stdout: "protocol" without protocol, or protocol without stdout: "protocol"', () => {
    // The valid declarations register: what follows fails only for the field it breaks.
    const tool = createTool({ name: "reg-test", version: "1.0.0", description: "Registration test tool" });
    tool.command("echo", protocolDeclaration() as never);
    tool.command("hello", plainDeclaration() as never);
    assert.equal(tool.registry.get("echo")?.entry.protocol, "line-echo");

    const withoutProtocol = protocolDeclaration();
    delete (withoutProtocol as { protocol?: string }).protocol;
    const missing = refusal("serve.one", withoutProtocol);
    assert.equal(missing.field, "protocol");
    assert.match(missing.message, /serve\.one/);

    const withoutStdout = plainDeclaration({ protocol: "mcp-stdio" });
    const orphan = refusal("serve.two", withoutStdout);
    assert.equal(orphan.field, "stdout");
    assert.match(orphan.message, /stdout/);

    // A protocol command with a serve handler but protocol and no stdout is refused too.
    const serveNoStdout = protocolDeclaration();
    delete (serveNoStdout as { stdout?: string }).stdout;
    assert.equal(refusal("serve.three", serveNoStdout).field, "stdout");
  });

  it("The framework rejects at registration a protocol command that declares any field in the list of fields that do not combine with it", () => {
    // The criterion's list of fields, each with a value that declares it.
    const forbidden: Array<[field: string, value: unknown]> = [
      ["arguments", "passthrough"],
      ["stderr", "child_log"],
      ["stdin", { description: "A JSON payload" }],
      ["interactive", true],
      ["streaming_default", true],
      ["output_file", true],
      ["output_schema", { type: "object" }],
      ["output_formats", ["csv"]],
      ["output_media_types", ["text/csv"]],
      ["async", true],
      ["spawns_background_process", true],
      ["cleanup_command", "lab stop"],
      ["max_lifetime_seconds", 60],
      ["confirm_flag", "--yes"],
      ["safe_default", true],
    ];
    assert.equal(forbidden.length, 15);
    for (const [field, value] of forbidden) {
      const error = refusal("echo", protocolDeclaration({ [field]: value }));
      assert.equal(
        error.field,
        field,
        `declaring ${field} must be refused naming ${field}; got: ${error.message}`,
      );
      assert.match(error.message, new RegExp(field));
    }
  });

  it('An invalid flag exits 2 with stdout empty; in JSON mode the last line of stderr parses as a ResponseEnvelope with error.code: "ARG_ERROR"', async () => {
    // stdin stays open and unwritten: a server that started would never exit on its own.
    const cases: Array<[argv: string[], message: RegExp]> = [
      [
        [...NOTES, "--format", "json", "mcp", "serve", "--read-only=maybe"],
        /^--read-only expects a boolean, got 'maybe'$/,
      ],
      [[...NOTES, "--format", "json", "mcp", "serve", "--bogus"], /unknown flag --bogus/],
      [
        [...LAB, "--format", "json", "echo-lines", "--prepare-ms", "soon"],
        /--prepare-ms expects an integer, got 'soon'/,
      ],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv, { timeoutMs: 15_000 });
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "", "stdout must be byte-empty");
      const envelope = stderrEnvelope(result.stderr);
      assert.equal(envelope.error.code, "ARG_ERROR");
      assert.equal(envelope.error.phase, "validation");
      assert.match(envelope.error.message, message);
      assert.equal(envelope.meta.exit_code, 2);
    }
    // In plain mode the report is plain text: stdout still empty, no JSON on stderr.
    const plain = await run([...NOTES, "--format", "plain", "mcp", "serve", "--read-only=maybe"], {
      timeoutMs: 15_000,
    });
    assert.equal(plain.code, 2);
    assert.equal(plain.stdout, "");
    assert.match(plain.stderr, /--read-only expects a boolean, got 'maybe'/);
    assert.equal(plain.stderr.split("\n").some(isEnvelopeLine), false);
  });

  it("A failure while preparing to serve exits with a code from the command's declared exit_codes, writes nothing to stdout, and in JSON mode ends stderr with the envelope", async () => {
    const declared = (await manifestOf(LAB)).commands["echo-lines"].exit_codes as Record<string, Loose>;

    const failed = await run([...LAB, "--format", "json", "echo-lines", "--fail-prepare"], {
      timeoutMs: 15_000,
    });
    assert.equal(failed.code, 5, failed.stderr);
    assert.ok(Object.hasOwn(declared, "5"), "5 is declared");
    assert.equal(failed.stdout, "", "stdout must be byte-empty");
    const envelope = stderrEnvelope(failed.stderr);
    assert.equal(envelope.error.code, "NOT_FOUND");
    assert.equal(envelope.error.message, "configuration lab.toml does not exist");
    assert.equal(envelope.meta.exit_code, 5);

    // Preparing past the time limit is a failure before serving too: TIMEOUT, declared, stdout empty.
    const slow = await run([
      ...LAB,
      "--format",
      "json",
      "echo-lines",
      "--prepare-ms",
      "20000",
      "--timeout",
      "0.5",
    ], { timeoutMs: 15_000 });
    assert.equal(slow.code, 10, slow.stderr);
    assert.ok(Object.hasOwn(declared, "10"), "10 (TIMEOUT) is in the manifest's table");
    assert.equal(slow.stdout, "");
    assert.equal(stderrEnvelope(slow.stderr).error.code, "TIMEOUT");

    // In plain mode: the plain-text error, the same code, nothing on stdout, no envelope.
    const plain = await run([...LAB, "--format", "plain", "echo-lines", "--fail-prepare"], {
      timeoutMs: 15_000,
    });
    assert.equal(plain.code, 5);
    assert.equal(plain.stdout, "");
    assert.match(plain.stderr, /configuration lab\.toml does not exist/);
    assert.equal(plain.stderr.split("\n").some(isEnvelopeLine), false);
  });

  it("tool <cmd> --help prints help to stdout, exits 0, and does not read stdin", async () => {
    // stdin is open and holds a request: a command that started serving would answer it on stdout and
    // then wait for more input until it is killed.
    const request = `${JSON.stringify(initialize(0))}\n`;
    for (const argv of [[...NOTES, "mcp", "serve", "--help"], [...LAB, "echo-lines", "--help"]]) {
      const child = start(argv);
      child.stdin!.on("error", () => {});
      child.stdin!.write(request);
      const result = await finished(child, 15_000);
      child.stdin!.destroy();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Usage: (notes mcp serve|lab echo-lines)/);
      assert.doesNotMatch(result.stdout, /jsonrpc|INITIALIZE/i);
    }
    // --schema is the same: the manifest entry on stdout, no serving.
    const child = start([...NOTES, "--format", "json", "mcp", "serve", "--schema"]);
    child.stdin!.on("error", () => {});
    child.stdin!.write(request);
    const schema = await finished(child, 15_000);
    child.stdin!.destroy();
    assert.equal(schema.code, 0);
    assert.equal(onlyEnvelope(schema.stdout).data.protocol, "mcp-stdio");
  });

  it("Once serving begins, every byte on stdout is a protocol message: a client that speaks the declared protocol reads the server's first response without skipping any line", async () => {
    // MCP: the very first stdout line answers the first request, in either era; a handler's console.log
    // during serving goes to stderr.
    for (const first of [initialize(0), modern("d1", "server/discover")]) {
      const session = new WireSession([...LAB, "--format", "json", "mcp", "serve"]);
      const reply = await session.request(first);
      assert.ok(reply.result, JSON.stringify(reply));
      const noisy = await session.request(
        first.method === "initialize"
          ? { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "noisy", arguments: {} } }
          : modern(1, "tools/call", { name: "noisy", arguments: {} }),
      );
      assert.equal(noisy.result.structuredContent.data.quiet, false);
      const result = await session.close();
      assert.equal(result.code, 0, result.stderr);
      assertOnlyJsonRpc(session.stdoutText);
      assert.equal(session.stdoutText.split("\n").filter(Boolean).length, 2, "exactly the two responses");
      assert.match(result.stderr, /stray prose from a handler/);
    }
    // line-echo: the first line out is the echo of the first line in, even with a stray console.log.
    const echo = await run([...LAB, "echo-lines", "--stray"], { stdin: "hello\nworld\n", timeoutMs: 15_000 });
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, "HELLO\nWORLD\n");
    assert.match(echo.stderr, /stray: hello/);
  });

  it("A malformed request is answered with a protocol error and the server keeps running", async () => {
    const session = new WireSession([...NOTES, "--format", "json", "mcp", "serve"]);
    session.send("{not json");
    const parse = await session.next();
    assert.equal(parse.error.code, -32700);
    assert.equal(parse.id, null);
    const invalid = await session.request({ jsonrpc: "2.0", id: 7, method: 42 });
    assert.equal(invalid.error.code, -32600);
    assert.ok((await session.request(initialize(1))).result.serverInfo);
    const badParams = await session.request({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "list", arguments: "x" },
    });
    assert.equal(badParams.error.code, -32602);
    const unknown = await session.request({ jsonrpc: "2.0", id: 3, method: "no/such/method" });
    assert.equal(unknown.error.code, -32601);
    assert.equal(await stillRunning(session, 200), true, "the server must still be running");
    // And it still serves.
    const listed = await session.request({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    assert.ok(listed.result.tools.length > 0);
    const result = await session.close();
    assert.equal(result.code, 0, result.stderr);
    assertOnlyJsonRpc(session.stdoutText);
  });

  it("Closing the server's stdin ends the process with exit 0 and no envelope on stderr", async () => {
    const home = tempDir();
    try {
      // After real traffic (a call that changed state).
      const session = new WireSession([...NOTES, "--format", "json", "mcp", "serve"], {
        env: { NOTES_HOME: home.path },
      });
      await session.request(initialize(0));
      const added = await session.request({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", arguments: { title: "x" } },
      });
      assert.equal(added.result.isError, false);
      const result = await session.close();
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.signal, null);
      assert.equal(
        result.stderr.split("\n").some(isEnvelopeLine),
        false,
        `no envelope on stderr: ${result.stderr}`,
      );
      assertOnlyJsonRpc(session.stdoutText);

      // At once, before any message: stdout stays empty too.
      const idle = await run([...NOTES, "--format", "json", "mcp", "serve"], {
        stdin: "",
        env: { NOTES_HOME: home.path },
      });
      assert.equal(idle.code, 0, idle.stderr);
      assert.equal(idle.stdout, "");
      assert.equal(idle.stderr.split("\n").some(isEnvelopeLine), false);

      // The same for the lab's line-echo protocol command.
      const echo = await run([...LAB, "--format", "json", "echo-lines"], { stdin: "a\n" });
      assert.equal(echo.code, 0, echo.stderr);
      assert.equal(echo.stdout, "A\n");
      assert.equal(echo.stderr.split("\n").some(isEnvelopeLine), false);
    } finally {
      home.cleanup();
    }
  });

  it("SIGTERM while serving ends the process with 143, and in JSON mode the last line of stderr is an envelope", async () => {
    // Idle, between requests.
    const idle = new WireSession([...NOTES, "--format", "json", "mcp", "serve"]);
    await idle.request(initialize(0));
    sendSignal(idle.child, "SIGTERM");
    const idleResult = await idle.exited();
    assert.equal(idleResult.code, 143, idleResult.stderr);
    const envelope = stderrEnvelope(idleResult.stderr);
    assert.equal(envelope.error.code, "CANCELLED");
    assert.equal(envelope.error.context.signal, "SIGTERM");
    assert.equal(envelope.meta.exit_code, 143);
    assertOnlyJsonRpc(idle.stdoutText);

    // Mid-request: the call's handler is cancelled (its cleanup runs) and the exit is still 143.
    const dir = tempDir();
    try {
      const marker = join(dir.path, "marker");
      const busy = new WireSession([...LAB, "--format", "json", "mcp", "serve"]);
      // The request opts in to log notifications, so the test knows when the handler is running.
      busy.send(
        modern(1, "tools/call", { name: "sleep", arguments: { ms: 60_000, marker } }, {
          "io.modelcontextprotocol/logLevel": "info",
        }),
      );
      const log = await busy.next();
      assert.equal(log.method, "notifications/message");
      assert.equal(log.params.data, "sleeping");
      sendSignal(busy.child, "SIGTERM");
      const busyResult = await busy.exited();
      assert.equal(busyResult.code, 143, busyResult.stderr);
      assert.equal(stderrEnvelope(busyResult.stderr).error.code, "CANCELLED");
      assert.equal(readFileSync(marker, "utf8"), "cleaned up");
      assertOnlyJsonRpc(busy.stdoutText);
    } finally {
      dir.cleanup();
    }
  });

  it("A server that stays idle past the default timeout after serving begins is not terminated by the framework", async () => {
    // --timeout 1 makes the time limit one second; the servers then idle for 2.5 s.
    const mcp = new WireSession([...NOTES, "--format", "json", "mcp", "serve", "--timeout", "1"]);
    const echo = new WireSession([...LAB, "--format", "json", "echo-lines", "--timeout", "1"]);
    assert.ok((await mcp.request(initialize(0))).result.serverInfo);
    const [mcpAlive, echoAlive] = await Promise.all([stillRunning(mcp, 2_500), stillRunning(echo, 2_500)]);
    assert.equal(mcpAlive, true, "the MCP server was ended while idle");
    assert.equal(echoAlive, true, "the line-echo server was ended while idle");
    const listed = await mcp.request({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.ok(listed.result.tools.length > 0);
    echo.child.stdin!.write("still here\n");
    const echoed = await echo.close();
    assert.equal(echoed.code, 0, echoed.stderr);
    assert.equal(echo.stdoutText, "STILL HERE\n");
    const done = await mcp.close();
    assert.equal(done.code, 0, done.stderr);
    assert.doesNotMatch(done.stderr + echoed.stderr, /TIMEOUT/);
  });

  it("A protocol command does not accept --idempotency-key, --dry-run, --output, or --confirm-destructive", async () => {
    const flags: Array<[flag: string, argv: string[]]> = [
      ["--idempotency-key", ["--idempotency-key", "k-1"]],
      ["--dry-run", ["--dry-run"]],
      ["--output", ["--output", "out.json"]],
      ["--confirm-destructive", ["--confirm-destructive"]],
    ];
    for (
      const [command, path] of [[[...NOTES, "mcp", "serve"], "mcp.serve"], [
        [...LAB, "echo-lines"],
        "echo-lines",
      ]] as const
    ) {
      for (const [flag, extra] of flags) {
        const result = await run([...command, "--format", "json", ...extra], { timeoutMs: 15_000 });
        assert.equal(result.code, 2, `${path} ${flag}: ${result.stderr}`);
        assert.equal(result.stdout, "");
        const envelope = stderrEnvelope(result.stderr);
        assert.equal(envelope.error.code, "ARG_ERROR");
        assert.match(envelope.error.message, new RegExp(`does not accept ${flag}`));
      }
    }
    // Nor does the manifest offer them, although notes' mcp.serve can reach a destructive command.
    const { commands } = await manifestOf(NOTES);
    assert.equal(commands["mcp.serve"].danger_level, "destructive");
    for (const flag of ["idempotency-key", "dry-run", "output", "confirm-destructive"]) {
      assert.equal(Object.hasOwn(commands["mcp.serve"].flags, flag), false, flag);
    }
  });

  it("A command without stdout behaves exactly as before under REQ-F-004, REQ-F-006, REQ-F-011, and REQ-C-007", async () => {
    const home = tempDir();
    const env = { NOTES_HOME: home.path };
    try {
      // REQ-F-004: one envelope on stdout, success or failure; none on stderr.
      const added = await run([
        ...NOTES,
        "--format",
        "json",
        "add",
        "--title",
        "x",
        "--idempotency-key",
        "k-1",
      ], { env });
      assert.equal(added.code, 0, added.stderr);
      assert.deepEqual(Object.keys(onlyEnvelope(added.stdout)), ENVELOPE_KEYS);
      assert.equal(added.stderr.split("\n").some(isEnvelopeLine), false);
      const missing = await run([...NOTES, "--format", "json", "show", "41"], { env });
      assert.equal(missing.code, 5);
      assert.equal(onlyEnvelope(missing.stdout).error.code, "NOT_FOUND");
      assert.equal(missing.stderr.split("\n").some(isEnvelopeLine), false);
      const bad = await run([...NOTES, "--format", "json", "list", "--limit", "x"], { env });
      assert.equal(bad.code, 2);
      assert.equal(onlyEnvelope(bad.stdout).error.code, "ARG_ERROR");

      // REQ-F-006: stdout holds only the envelope; a handler's prose goes to stderr.
      const noisy = await run([...LAB, "--format", "json", "noisy"]);
      assert.equal(onlyEnvelope(noisy.stdout).data.quiet, false);
      assert.match(noisy.stderr, /stray prose from a handler/);

      // REQ-F-011: the time limit covers the whole run.
      const slow = await run([...LAB, "--format", "json", "sleep", "--ms", "60000", "--timeout", "0.5"]);
      assert.equal(slow.code, 10);
      assert.equal(onlyEnvelope(slow.stdout).error.code, "TIMEOUT");

      // REQ-C-007: a mutating command takes --idempotency-key; a replay is a noop with the same data.
      const replay = await run([
        ...NOTES,
        "--format",
        "json",
        "add",
        "--title",
        "x",
        "--idempotency-key",
        "k-1",
      ], { env });
      assert.equal(replay.code, 0);
      assert.equal(onlyEnvelope(replay.stdout).data.effect, "noop");
      assert.deepEqual(onlyEnvelope(replay.stdout).data.note, onlyEnvelope(added.stdout).data.note);
      // …and a destructive one still takes --dry-run and --confirm-destructive.
      const dry = await run([...NOTES, "--format", "json", "remove", "1", "--dry-run"], { env });
      assert.equal(dry.code, 0);
      assert.equal(onlyEnvelope(dry.stdout).data.effect, "would_delete");
      const removed = await run([...NOTES, "--format", "json", "remove", "1", "--confirm-destructive"], {
        env,
      });
      assert.equal(onlyEnvelope(removed.stdout).data.effect, "deleted");
    } finally {
      home.cleanup();
    }
  });

  it("tool manifest shows mcp: false on every command the tool's MCP server leaves out, and no mcp field on any other command", async () => {
    for (const argv of [NOTES, LAB]) {
      const { commands } = await manifestOf(argv);
      const session = new WireSession([...argv, "mcp", "serve"]);
      await session.request(initialize(0));
      const listed: string[] = (await session.request({ jsonrpc: "2.0", id: 1, method: "tools/list" })).result
        .tools
        .map((tool: { name: string }) => tool.name);
      assert.equal((await session.close()).code, 0);
      for (const [path, entry] of Object.entries(commands)) {
        const offered = listed.includes(path.replaceAll(".", "_"));
        if (Object.hasOwn(entry, "mcp")) {
          assert.equal(entry.mcp, false, `${path}: mcp is only ever false`);
          assert.equal(offered, false, `${path} is marked mcp: false but offered`);
        } else {
          // Protocol servers (mcp serve included) are left out too, so they carry mcp: false as well.
          assert.equal(offered, true, `${path} is left out of the MCP server without mcp: false`);
        }
      }
    }
    // notes' init is kept off on purpose; mcp serve is a protocol server: the manifest says so of both.
    const notes = (await manifestOf(NOTES)).commands;
    assert.equal(notes.init.mcp, false);
    assert.equal(notes["mcp.serve"].mcp, false);
  });

  it("The tool's MCP server lists no command marked mcp: false in its tool list, and a call naming one is answered with a protocol error, not run", async () => {
    const dir = tempDir();
    const home = join(dir.path, "home");
    try {
      for (const era of ["legacy", "modern"] as const) {
        const session = new WireSession([...NOTES, "--format", "json", "mcp", "serve"], {
          env: { NOTES_HOME: home },
        });
        const ask = (id: number, method: string, params: Record<string, unknown> = {}) =>
          session.request(
            era === "modern" ? modern(id, method, params) : { jsonrpc: "2.0", id, method, params },
          );
        if (era === "legacy") await session.request(initialize(0));
        const names = (await ask(1, "tools/list")).result.tools.map((tool: { name: string }) => tool.name);
        assert.ok(names.includes("add") && names.includes("list"), names.join(", "));
        assert.equal(names.includes("init"), false, `${era}: init is listed`);
        const refused = await ask(2, "tools/call", { name: "init", arguments: {} });
        assert.equal(refused.result, undefined, `${era}: a refused call has no result`);
        assert.equal(refused.error.code, -32602);
        assert.match(refused.error.message, /init/);
        assert.equal((await session.close()).code, 0);
        assert.equal(existsSync(home), false, `${era}: init ran: ${home} exists`);
      }
      // Control: the CLI runs init, which creates the directory the refused calls did not.
      const cli = await run([...NOTES, "--format", "json", "init"], { env: { NOTES_HOME: home } });
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(existsSync(home), true);
    } finally {
      dir.cleanup();
    }
  });

  // NOTE: schema/manifest.schema.json is written on another branch; until it is merged this test fails
  // here with ENOENT. It validates the real notes manifest (which must pass), then the same manifest with
  // mcp: true on one command (which must fail).
  it("A manifest with mcp: true on any command fails validation against the manifest schema", async () => {
    const schema = JSON.parse(readFileSync(join(ROOT, "schema", "manifest.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    const manifest = await manifestOf(NOTES);
    assert.equal(
      validate(manifest),
      true,
      `the real manifest must be valid: ${JSON.stringify(validate.errors)}`,
    );
    for (const path of ["add", "list", "init", "mcp.serve"]) {
      const broken = structuredClone(manifest);
      broken.commands[path].mcp = true;
      assert.equal(validate(broken), false, `mcp: true on ${path} must fail validation`);
      assert.ok(
        validate.errors?.some((error) => error.instancePath === `/commands/${path}/mcp`),
        JSON.stringify(validate.errors),
      );
    }
  });
});
