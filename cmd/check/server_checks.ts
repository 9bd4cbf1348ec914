/**
 * The criteria only a live protocol server answers — what it writes once serving begins, how it ends — and
 * the tool list of its `mcp serve`, each in a session with a time limit on every wait.
 */
import { lastLine } from "../../lib/command/child_run.ts";
import { readEnvelope } from "../../lib/command/envelope_validation.ts";
import { ExitCode } from "../../lib/exit_code.ts";
import type { Ledger } from "./criteria.ts";
import { clip } from "./evidence.ts";
import { McpProbe } from "./mcp_probe.ts";
import { ServerSession } from "./server_session.ts";
import { type CheckedCommand, isProtocol, show, toolName } from "./subject.ts";

/** What a live check needs: each wait's limit, and the signal that ends the run. */
export interface SessionOptions {
  /** Milliseconds each wait may take. */
  probeTimeoutMs: number;
  /** Ends the run early; the session's server is killed. */
  signal: AbortSignal;
}

/** How long an idle server is watched with `--timeout 1` before it must still be serving. */
const IDLE_TIMEOUT_SECONDS = 1;
const IDLE_WATCH_MS = 2_500;

/**
 * One protocol server in three live sessions: stdout purity and a malformed line (mcp-stdio), then stdin EOF;
 * SIGTERM while serving; idle past a short `--timeout`. Every session's process group ends with it.
 *
 * @example
 * ```ts
 * await checkServer(ledger, ["notes"], command, options);
 * ```
 */
export async function checkServer(ledger: Ledger, cli: readonly string[], command: CheckedCommand, options: SessionOptions): Promise<void> {
  const argv = [...cli, "--format", "json", ...command.words];
  const mcp = command.entry.protocol === "mcp-stdio";
  const label = show(command);
  if (!mcp) {
    for (const id of ["ac07-stdout-purity", "ac08-malformed-request"] as const) {
      ledger.skip(id, `${label}: speaks ${String(command.entry.protocol)}; the checker speaks mcp-stdio only`);
    }
  }
  await session(argv, options, async (server) => {
    if (mcp) {
      const client = new McpProbe(server, options.probeTimeoutMs);
      const { firstLine, response } = await client.open();
      if (response !== undefined) ledger.pass("ac07-stdout-purity", `${label}: the first stdout line answers server/discover (${client.era} era)`);
      else ledger.fail("ac07-stdout-purity", `${label}: ${firstLine === undefined ? "no stdout line in time" : `the first stdout line is not the response: ${clip(firstLine)}`}`);
      await server.send("{this is not json");
      const parseError = await client.reply((reply) => reply.error?.code === -32700);
      const after = parseError === undefined ? undefined : await client.request("tools/list");
      ledger.record(
        "ac08-malformed-request",
        after !== undefined,
        `${label}: ${parseError === undefined ? "no -32700 answer to a malformed line" : after === undefined ? "answered -32700, then stopped answering" : "answered -32700, then answered tools/list"}`,
      );
    }
    await server.closeStdin();
    const exit = await server.waitExit(options.probeTimeoutMs);
    const envelopeLine = server.stderr.split("\n").find((line) => "envelope" in readEnvelope(line));
    const ok = exit?.code === 0 && envelopeLine === undefined;
    ledger.record("ac09-stdin-eof", ok, `${label}: ${exit === undefined ? "still running after stdin closed" : `exit ${exit.code}`}${envelopeLine === undefined ? "" : ", an envelope on stderr"}`);
  });
  await session(argv, options, async (server) => {
    // Serving has begun once a request is answered; a server of another protocol gets a moment instead.
    if (mcp) await new McpProbe(server, options.probeTimeoutMs).open();
    else await delay(500);
    server.signal("SIGTERM");
    const exit = await server.waitExit(options.probeTimeoutMs);
    const read = readEnvelope(lastLine(server.stderr));
    const ok = exit?.code === ExitCode.SIGTERM && "envelope" in read;
    ledger.record("ac10-sigterm", ok, `${label}: ${exit === undefined ? "still running after SIGTERM" : `exit ${exit.code}`}, ${"envelope" in read ? "envelope last on stderr" : "no envelope last on stderr"}`);
  });
  await session([...argv, "--timeout", String(IDLE_TIMEOUT_SECONDS)], options, async (server) => {
    const client = new McpProbe(server, options.probeTimeoutMs);
    if (mcp) await client.open();
    const early = await server.waitExit(IDLE_WATCH_MS);
    if (early !== undefined) {
      if (early.code === ExitCode.ARG_ERROR) ledger.skip("ac11-idle-not-killed", `${label}: exits 2 with --timeout, which it may not take (REQ-C-012)`);
      else ledger.fail("ac11-idle-not-killed", `${label}: exited ${early.code} while idle, ${IDLE_WATCH_MS / 1000} s into a --timeout of ${IDLE_TIMEOUT_SECONDS} s`);
      return;
    }
    const answered = mcp ? (await client.request("tools/list")) !== undefined : true;
    ledger.record("ac11-idle-not-killed", answered, `${label}: ${answered ? "still serving" : "still running but no longer answering"} after ${IDLE_WATCH_MS / 1000} s idle with --timeout ${IDLE_TIMEOUT_SECONDS}`);
    await server.closeStdin();
    await server.waitExit(options.probeTimeoutMs);
  });
}

/**
 * The tool's own MCP server (`mcp serve`) against the manifest: every command it leaves out is marked
 * `mcp: false`, none so marked is listed, and a call naming one is a protocol error.
 *
 * @example
 * ```ts
 * await checkMcpToolList(ledger, ["notes"], commands, options);
 * ```
 */
export async function checkMcpToolList(ledger: Ledger, cli: readonly string[], commands: CheckedCommand[], options: SessionOptions): Promise<void> {
  const server = commands.find((command) => command.path === "mcp.serve" && command.entry.protocol === "mcp-stdio");
  if (server === undefined) {
    for (const id of ["ac14-mcp-false-shown", "ac15-mcp-false-refused"] as const) ledger.skip(id, "the CLI has no `mcp serve` speaking mcp-stdio");
    return;
  }
  await session([...cli, "--format", "json", "mcp", "serve"], options, async (live) => {
    const client = new McpProbe(live, options.probeTimeoutMs);
    await client.open();
    const names = await client.toolNames();
    if (names === undefined) {
      ledger.fail("ac15-mcp-false-refused", "mcp serve: no tools/list result");
      ledger.fail("ac14-mcp-false-shown", "mcp serve: no tools/list result");
      return;
    }
    const listed = (command: CheckedCommand) => names.includes(command.path) || names.includes(toolName(command.path));
    const candidates = commands.filter((command) => command !== server && !isProtocol(command) && command.entry.arguments !== "passthrough");
    for (const command of candidates) {
      const label = show(command);
      if (command.entry.mcp === false) {
        ledger.record("ac15-mcp-false-refused", !listed(command), `${label} (mcp: false) is ${listed(command) ? "listed" : "not listed"}`);
        ledger.record("ac14-mcp-false-shown", !listed(command), `${label}: left out and marked mcp: false`);
        // An argument no command takes: even a server that wrongly runs the tool refuses it before running.
        const reply = await client.request("tools/call", { name: toolName(command.path), arguments: { definitely_not_an_argument: true } });
        const refused = reply?.error !== undefined;
        ledger.record("ac15-mcp-false-refused", refused, `${label}: a call ${refused ? `is answered with protocol error ${String(reply?.error?.code)}` : reply === undefined ? "got no answer" : "is answered with a result, not a protocol error"}`);
      } else if (!listed(command)) {
        ledger.fail("ac14-mcp-false-shown", `${label} is left out of the tool list but does not declare mcp: false`);
      } else if ("mcp" in command.entry) {
        ledger.fail("ac14-mcp-false-shown", `${label} is listed yet carries mcp: ${JSON.stringify(command.entry.mcp)}`);
      } else {
        ledger.pass("ac14-mcp-false-shown", `${label}: listed, no mcp field`);
      }
    }
    if (!candidates.some((command) => command.entry.mcp === false)) ledger.skip("ac15-mcp-false-refused", "no command is marked mcp: false");
    await live.closeStdin();
    await live.waitExit(options.probeTimeoutMs);
  });
}

async function session(argv: readonly string[], options: SessionOptions, use: (server: ServerSession) => Promise<void>): Promise<void> {
  const server = new ServerSession(argv);
  const stop = () => void server.dispose();
  options.signal.addEventListener("abort", stop, { once: true });
  try {
    await use(server);
  } finally {
    options.signal.removeEventListener("abort", stop);
    await server.dispose();
  }
  if (options.signal.aborted) throw options.signal.reason;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
