// `tool mcp serve` against the real MCP SDK clients: @modelcontextprotocol/client 2.4.0 in its three
// version-negotiation modes (legacy; auto, which probes a disposable process and must settle on the modern
// era; pin 2026-07-28) and @modelcontextprotocol/sdk 1.32.2 (legacy only). Each client spawns the server
// itself, the way an agent's MCP host does.
import type { ChildProcess } from "node:child_process";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.d.ts", so "client/stdio.js" has no types under Deno's resolver;
// tsc finds them beside the .js file. This pragma (a comment to tsc) names the same declaration file for Deno.
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { exitCodeOf, type Loose, NOTES, programArgv, ROOT, tempDir } from "../helpers/run.ts";

const LAB = programArgv("tests/fixtures/lab.ts");

/** The four clients: v2 in each negotiation mode, and v1. */
const KINDS = ["v2 legacy", "v2 auto", "v2 pin", "v1"] as const;
type Kind = (typeof KINDS)[number];

/** What notes' `mcp serve` offers: every command but init (mcp: false) and mcp.serve (a protocol command). */
const NOTES_TOOLS = ["add", "list", "manifest", "remove", "show"];
const NOTES_SAFE_TOOLS = ["list", "manifest", "show"];

/** An elicitation answer the v2 client returns for the server's confirmation request. */
type ElicitAnswer = {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
};

interface ConnectOptions {
  /** The program and its arguments after `mcp serve`. */
  program?: readonly string[];
  serveArgs?: string[];
  env?: Record<string, string>;
  /** Declares `elicitation` and answers every elicitation/create with this (v2 only). */
  elicit?: (request: Loose) => ElicitAnswer;
  /** The `elicitation` capability declared with `elicit`. @default {} (form mode) */
  elicitation?: { form?: Record<string, never>; url?: Record<string, never> };
}

interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** One connected client, whichever SDK. */
interface Session {
  kind: Kind;
  /** The v2 client, for era checks and notification handlers. */
  v2?: Client;
  listTools(): Promise<Loose>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    options?: CallOptions,
  ): Promise<Loose>;
  close(): Promise<void>;
  /** The session server's exit code (signals as 128+N). */
  exit: Promise<number>;
  pid: number;
  /** A unique number on the server's command line, to find every process the session spawned. */
  marker: string;
  stderr(): string;
}

let markerCount = 0;

/** A unique, valid `--max-message-bytes` value: it tags the server processes (probe included) for `ps`. */
function uniqueMarker(): string {
  return String(8_000_000 + process.pid * 100 + ++markerCount);
}

/** The child process behind an SDK stdio transport (a private field of both SDKs, pinned by version). */
function transportChild(transport: unknown): ChildProcess {
  const child = (transport as { _process?: ChildProcess })._process;
  assert.ok(child, "the transport has started its server process");
  return child;
}

function exitOf(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(exitCodeOf(child.exitCode, child.signalCode));
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(exitCodeOf(code, signal))));
}

/** Pids of running processes whose command line contains `text`. */
function processesWith(text: string): number[] {
  const ps = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  assert.equal(ps.status, 0, "ps must run");
  return ps.stdout.split("\n")
    .filter((line) => line.includes(text) && !line.includes("ps -eo"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Spawns the server through the client's own transport and connects. */
async function connect(kind: Kind, options: ConnectOptions = {}): Promise<Session> {
  const marker = uniqueMarker();
  const [command, ...args] = options.program ?? NOTES;
  const params = {
    command: command!,
    args: [...args, "mcp", "serve", "--max-message-bytes", marker, ...(options.serveArgs ?? [])],
    // The SDKs pass the child only HOME, PATH, … plus this: NOTES_HOME must be explicit.
    env: {
      NO_COLOR: "1",
      ...(process.env.DENO_DIR ? { DENO_DIR: process.env.DENO_DIR } : {}),
      ...options.env,
    },
    cwd: ROOT,
    stderr: "pipe" as const,
  };
  let stderr = "";
  if (kind === "v1") {
    const client = new V1Client({ name: "toolwire-test-v1", version: "1.0.0" });
    const transport = new V1StdioClientTransport(params);
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    await client.connect(transport);
    const child = transportChild(transport);
    return {
      kind,
      listTools: () => client.listTools(),
      callTool: (call, callOptions) => client.callTool(call, undefined, callOptions) as Promise<Loose>,
      close: () => client.close(),
      exit: exitOf(child),
      pid: child.pid!,
      marker,
      stderr: () => stderr,
    };
  }
  const mode = kind === "v2 legacy" ? "legacy" : kind === "v2 auto" ? "auto" : { pin: "2026-07-28" };
  const client = new Client({ name: "toolwire-test-v2", version: "1.0.0" }, {
    versionNegotiation: { mode },
    ...(options.elicit === undefined ? {} : { capabilities: { elicitation: options.elicitation ?? {} } }),
  });
  const elicit = options.elicit;
  if (elicit !== undefined) client.setRequestHandler("elicitation/create", (request) => elicit(request));
  const transport = new StdioClientTransport(params);
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  await client.connect(transport);
  const child = transportChild(transport);
  return {
    kind,
    v2: client,
    listTools: () => client.listTools(),
    callTool: (call, callOptions) => client.callTool(call, callOptions) as Promise<Loose>,
    close: () => client.close(),
    exit: exitOf(child),
    pid: child.pid!,
    marker,
    stderr: () => stderr,
  };
}

/** The era a client must be in after connecting. */
function expectedEra(kind: Kind): "modern" | "legacy" {
  return kind === "v2 auto" || kind === "v2 pin" ? "modern" : "legacy";
}

/** Connects, runs the body, and always closes; the server must then have exited 0. */
async function withSession(
  kind: Kind,
  options: ConnectOptions,
  body: (session: Session) => Promise<void>,
): Promise<void> {
  const session = await connect(kind, options);
  try {
    if (session.v2 !== undefined) assert.equal(session.v2.getProtocolEra(), expectedEra(kind));
    await body(session);
  } finally {
    await session.close();
  }
  assert.equal(await session.exit, 0, `the server must exit 0 on close; stderr: ${session.stderr()}`);
}

/** Asserts a tool result carries the envelope both ways, and returns it. */
function envelopeOf(result: Loose): Loose {
  const envelope = result.structuredContent;
  assert.deepEqual(Object.keys(envelope), ["ok", "data", "error", "warnings", "meta"]);
  assert.equal(result.content[0].type, "text");
  assert.deepEqual(JSON.parse(result.content[0].text), envelope, "content[0].text is the same envelope");
  assert.equal(result.isError, !envelope.ok);
  return envelope;
}

/** Every file under a directory with its content, to prove nothing changed. */
function snapshot(dir: string): string {
  const out = spawnSync("find", [dir, "-type", "f", "-exec", "md5sum", "{}", "+"], { encoding: "utf8" });
  return existsSync(dir) ? out.stdout.split("\n").sort().join("\n") : "<absent>";
}

async function rejectsWithCode(promise: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(promise, (error: { code?: unknown; message?: string }) => {
    assert.equal(
      error.code,
      code,
      `expected JSON-RPC error ${code}, got ${String(error.code)}: ${error.message}`,
    );
    return true;
  });
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const kind of KINDS) {
  describe(`notes mcp serve with the ${kind} client`, () => {
    it("lists exactly the served tools: no init (mcp: false), no protocol command", async () => {
      const home = tempDir();
      try {
        await withSession(kind, { env: { NOTES_HOME: home.path } }, async (session) => {
          const { tools } = await session.listTools();
          const names = tools.map((tool: { name: string }) => tool.name);
          assert.deepEqual(names, NOTES_TOOLS);
          const remove = tools.find((tool: { name: string }) => tool.name === "remove");
          assert.equal(remove.annotations.destructiveHint, true);
          assert.equal(
            tools.find((tool: { name: string }) => tool.name === "add").annotations.destructiveHint,
            false,
          );
        });
      } finally {
        home.cleanup();
      }
    });

    it("add, then show and list: structuredContent is the envelope, content[0].text the same envelope, isError false", async () => {
      const home = tempDir();
      try {
        await withSession(kind, { env: { NOTES_HOME: home.path } }, async (session) => {
          const added = envelopeOf(
            await session.callTool({ name: "add", arguments: { title: "milk", tag: ["home"] } }),
          );
          assert.equal(added.ok, true);
          assert.equal(added.data.effect, "created");
          const id = added.data.note.id;
          const shown = await session.callTool({ name: "show", arguments: { id } });
          assert.equal(shown.isError, false);
          assert.equal(envelopeOf(shown).data.title, "milk");
          const listed = await session.callTool({ name: "list", arguments: { tag: "home" } });
          assert.equal(listed.isError, false);
          assert.deepEqual(envelopeOf(listed).data, [{ id, title: "milk", tags: ["home"] }]);
        });
      } finally {
        home.cleanup();
      }
    });

    it("a call naming init (mcp: false) is refused with -32602 and nothing runs", async () => {
      const dir = tempDir();
      const home = join(dir.path, "home");
      try {
        await withSession(kind, { env: { NOTES_HOME: home } }, async (session) => {
          await rejectsWithCode(session.callTool({ name: "init", arguments: {} }), -32602);
          assert.equal(existsSync(home), false, "init must not have run");
          // The server keeps serving.
          assert.equal((await session.callTool({ name: "list", arguments: {} })).isError, false);
        });
      } finally {
        dir.cleanup();
      }
    });

    it("show of a missing id is an isError result with error.code NOT_FOUND", async () => {
      const home = tempDir();
      try {
        await withSession(kind, { env: { NOTES_HOME: home.path } }, async (session) => {
          const result = await session.callTool({ name: "show", arguments: { id: 41 } });
          assert.equal(result.isError, true);
          const envelope = envelopeOf(result);
          assert.equal(envelope.error.code, "NOT_FOUND");
          assert.equal(envelope.meta.exit_code, 5);
        });
      } finally {
        home.cleanup();
      }
    });

    it("close() ends the server with exit 0 and leaves no process behind", async () => {
      const home = tempDir();
      try {
        const session = await connect(kind, { env: { NOTES_HOME: home.path } });
        await session.callTool({ name: "list", arguments: {} });
        assert.equal(isRunning(session.pid), true);
        await session.close();
        assert.equal(await session.exit, 0, session.stderr());
        assert.equal(isRunning(session.pid), false);
        // No process with this session's marker remains: neither the session server nor a probe.
        await waitFor(() => processesWith(session.marker).length === 0, "every server process to end", 5_000);
        if (session.v2 !== undefined) assert.equal(session.v2.getProtocolEra(), undefined);
      } finally {
        home.cleanup();
      }
    });

    it("--read-only lists only the safe tools, and a call naming another is refused", async () => {
      const dir = tempDir();
      const home = join(dir.path, "home");
      try {
        await withSession(
          kind,
          { env: { NOTES_HOME: home }, serveArgs: ["--read-only"] },
          async (session) => {
            const { tools } = await session.listTools();
            assert.deepEqual(tools.map((tool: { name: string }) => tool.name), NOTES_SAFE_TOOLS);
            for (const tool of tools) assert.equal(tool.annotations.readOnlyHint, true, tool.name);
            await rejectsWithCode(session.callTool({ name: "add", arguments: { title: "x" } }), -32602);
            assert.equal(existsSync(home), false, "add must not have run");
          },
        );
      } finally {
        dir.cleanup();
      }
    });

    it("the same idempotency_key twice: the second call is a noop with the first call's note", async () => {
      const home = tempDir();
      try {
        await withSession(kind, { env: { NOTES_HOME: home.path } }, async (session) => {
          const call = { name: "add", arguments: { title: "once", idempotency_key: `key-${kind}` } };
          const first = envelopeOf(await session.callTool(call));
          const second = envelopeOf(await session.callTool(call));
          assert.equal(first.data.effect, "created");
          assert.equal(second.data.effect, "noop");
          assert.deepEqual(second.data.note, first.data.note);
          assert.equal(envelopeOf(await session.callTool({ name: "list", arguments: {} })).data.length, 1);
        });
      } finally {
        home.cleanup();
      }
    });
  });
}

describe("destructive tools need confirmation", () => {
  /** Adds one note through the CLI-equivalent MCP call and returns its id. */
  async function addNote(session: Session, title: string): Promise<number> {
    return envelopeOf(await session.callTool({ name: "add", arguments: { title } })).data.note.id;
  }

  async function titles(session: Session): Promise<string[]> {
    return envelopeOf(await session.callTool({ name: "list", arguments: {} })).data.map((
      note: { title: string },
    ) => note.title);
  }

  for (const kind of ["v2 auto", "v2 pin"] as const) {
    it(`a ${kind} client that accepts the elicitation really deletes the note`, async () => {
      const home = tempDir();
      const asked: Loose[] = [];
      try {
        const elicit = (request: Loose): ElicitAnswer => {
          asked.push(request);
          return { action: "accept", content: { confirm: true } };
        };
        await withSession(kind, { env: { NOTES_HOME: home.path }, elicit }, async (session) => {
          const id = await addNote(session, "doomed");
          const removed = await session.callTool({ name: "remove", arguments: { id } });
          assert.equal(removed.isError, false, JSON.stringify(removed.structuredContent));
          assert.equal(envelopeOf(removed).data.effect, "deleted");
          assert.equal(asked.length, 1, "asked exactly once");
          assert.equal(asked[0].method, "elicitation/create");
          assert.equal(asked[0].params.mode, "form");
          assert.match(asked[0].params.message, /doomed/, "the question shows the preview");
          assert.deepEqual(await titles(session), []);
        });
      } finally {
        home.cleanup();
      }
    });

    it(`a ${kind} client that declines deletes nothing and gets an isError result`, async () => {
      const home = tempDir();
      try {
        await withSession(
          kind,
          { env: { NOTES_HOME: home.path }, elicit: () => ({ action: "decline" }) },
          async (session) => {
            const id = await addNote(session, "kept");
            const refused = await session.callTool({ name: "remove", arguments: { id } });
            assert.equal(refused.isError, true);
            assert.equal(envelopeOf(refused).error.code, "CONFIRMATION_DECLINED");
            assert.deepEqual(await titles(session), ["kept"]);
          },
        );
      } finally {
        home.cleanup();
      }
    });

    it(`a ${kind} client whose handler accepts without confirm: true deletes nothing`, async () => {
      const home = tempDir();
      try {
        const elicit = (): ElicitAnswer => ({ action: "accept", content: { confirm: false } });
        await withSession(kind, { env: { NOTES_HOME: home.path }, elicit }, async (session) => {
          const id = await addNote(session, "kept");
          const refused = await session.callTool({ name: "remove", arguments: { id } });
          assert.equal(refused.isError, true);
          assert.deepEqual(await titles(session), ["kept"]);
        });
      } finally {
        home.cleanup();
      }
    });
  }

  it("a v2 auto client that declares URL-mode elicitation only is not sent a form it must reject: it gets the preview", async () => {
    const home = tempDir();
    let asked = 0;
    try {
      const elicit = (): ElicitAnswer => (asked++, { action: "accept", content: { confirm: true } });
      await withSession(
        "v2 auto",
        { env: { NOTES_HOME: home.path }, elicit, elicitation: { url: {} } },
        async (session) => {
          const id = await addNote(session, "kept");
          const refused = await session.callTool({ name: "remove", arguments: { id } });
          assert.equal(refused.isError, true);
          assert.equal(envelopeOf(refused).error.code, "CONFIRMATION_REQUIRED");
          assert.equal(asked, 0);
          assert.deepEqual(await titles(session), ["kept"]);
          const confirmed = await session.callTool({
            name: "remove",
            arguments: { id, confirm_destructive: true },
          });
          assert.equal(envelopeOf(confirmed).data.effect, "deleted");
        },
      );
    } finally {
      home.cleanup();
    }
  });

  for (const kind of ["v2 legacy", "v1", "v2 auto"] as const) {
    const who = kind === "v2 auto" ? "a modern client without elicitation" : `a ${kind} client`;
    it(`${who}: remove without confirm_destructive is CONFIRMATION_REQUIRED with the preview; with it, the note is deleted`, async () => {
      const home = tempDir();
      try {
        await withSession(kind, { env: { NOTES_HOME: home.path } }, async (session) => {
          const id = await addNote(session, "previewed");
          const refused = await session.callTool({ name: "remove", arguments: { id } });
          assert.equal(refused.isError, true);
          const { error } = envelopeOf(refused);
          assert.equal(error.code, "CONFIRMATION_REQUIRED");
          assert.equal(error.preview.effect, "would_delete");
          assert.equal(error.preview.would_affect.notes[0].title, "previewed");
          assert.deepEqual(await titles(session), ["previewed"]);

          const confirmed = await session.callTool({
            name: "remove",
            arguments: { id, confirm_destructive: true },
          });
          assert.equal(confirmed.isError, false);
          assert.equal(envelopeOf(confirmed).data.effect, "deleted");
          assert.deepEqual(await titles(session), []);
        });
      } finally {
        home.cleanup();
      }
    });
  }

  for (const kind of ["v1", "v2 auto"] as const) {
    it(`dry_run: true previews and deletes nothing (${kind}${kind === "v2 auto" ? " with elicitation: never asked" : ""})`, async () => {
      const home = tempDir();
      let asked = 0;
      try {
        const options: ConnectOptions = { env: { NOTES_HOME: home.path } };
        if (kind === "v2 auto") {
          options.elicit = () => (asked++, { action: "accept", content: { confirm: true } });
        }
        await withSession(kind, options, async (session) => {
          const id = await addNote(session, "survivor");
          const preview = await session.callTool({ name: "remove", arguments: { id, dry_run: true } });
          assert.equal(preview.isError, false);
          const { data } = envelopeOf(preview);
          assert.equal(data.effect, "would_delete");
          assert.equal(data.would_affect.notes[0].title, "survivor");
          assert.equal(asked, 0);
          assert.deepEqual(await titles(session), ["survivor"]);
        });
      } finally {
        home.cleanup();
      }
    });
  }
});

describe("cancellation (v2 client) and progress", () => {
  for (const kind of ["v2 auto", "v2 legacy"] as const) {
    it(`${kind}: aborting a call rejects it, fires the handler's AbortSignal, and the server keeps serving`, async () => {
      const dir = tempDir();
      const marker = join(dir.path, "marker");
      try {
        await withSession(kind, { program: LAB }, async (session) => {
          const client = session.v2!;
          let started!: () => void;
          const sleeping = new Promise<void>((resolve) => (started = resolve));
          client.setNotificationHandler("notifications/message", (notification) => {
            if (notification.params.data === "sleeping") started();
          });
          // Log notifications tell the test when the handler runs: per request in the modern era, by
          // logging/setLevel in the legacy era.
          const meta = kind === "v2 auto" ? { _meta: { "io.modelcontextprotocol/logLevel": "info" } } : {};
          if (kind === "v2 legacy") await client.setLoggingLevel("info");
          const controller = new AbortController();
          const call = session.callTool({ name: "sleep", arguments: { ms: 60_000, marker }, ...meta }, {
            signal: controller.signal,
          });
          const outcome = call.then(() => "resolved", () => "rejected");
          await sleeping;
          controller.abort("the test gave up");
          assert.equal(await outcome, "rejected");
          await waitFor(() => existsSync(marker), "the handler's cleanup (its AbortSignal fired)");
          assert.equal(readFileSync(marker, "utf8"), "cleaned up");
          const after = await session.callTool({ name: "sleep", arguments: { ms: 1 } });
          assert.equal(envelopeOf(after).data.slept_ms, 1);
        });
      } finally {
        dir.cleanup();
      }
    });
  }

  for (const kind of ["v2 auto", "v2 legacy", "v1"] as const) {
    it(`${kind}: onprogress receives increasing progress from count`, async () => {
      await withSession(kind, { program: LAB }, async (session) => {
        const seen: Array<{ progress: number; total?: number }> = [];
        const result = await session.callTool(
          { name: "count", arguments: { to: 5, delay_ms: 80 } },
          { onprogress: (update) => seen.push(update) },
        );
        assert.equal(envelopeOf(result).data.counted, 5);
        // An update that shares a stdout chunk with the response reaches the SDK after it, and the SDK drops
        // progress for a request it has already settled: the last one usually is, more under load; the pauses
        // keep the others apart.
        assert.ok(seen.length >= 2, `progress updates: ${JSON.stringify(seen)}`);
        for (let i = 1; i < seen.length; i++) {
          assert.ok(seen[i]!.progress > seen[i - 1]!.progress, JSON.stringify(seen));
        }
        for (const update of seen) assert.equal(update.total, 5);
      });
    });
  }
});

describe("the probe process of auto mode", () => {
  it("leaves NOTES_HOME untouched and the session then serves in the modern era", async () => {
    const home = tempDir();
    try {
      const before = snapshot(home.path);
      await withSession("v2 auto", { env: { NOTES_HOME: home.path } }, async (session) => {
        // connect() has run the probe process to its end, and sent the session nothing yet.
        assert.equal(session.v2!.getNegotiatedProtocolVersion(), "2026-07-28");
        assert.equal(snapshot(home.path), before);
        const listed = await session.callTool({ name: "list", arguments: {} });
        assert.equal(
          listed._meta["io.modelcontextprotocol/serverInfo"].name,
          "notes",
          "a modern result carries serverInfo",
        );
      });
    } finally {
      home.cleanup();
    }
  });
});
