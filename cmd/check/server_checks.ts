/**
 * The criteria only a live protocol server answers — what it writes once serving begins, how it ends — and
 * the tool list of its `mcp serve`, each in a session with a time limit on every wait.
 */
import { ExitCode } from "../../mod.ts";
import { lastLine, readEnvelope, toolName } from "../../lib/bridge/mod.ts";
import type { Ledger } from "./criteria.ts";
import { McpProbe } from "./mcp_probe.ts";
import { framingOf, isFramed, probeFor, SPOKEN_PROTOCOLS } from "./protocol_probe.ts";
import type { ProtocolProbe, Seen } from "./probe.ts";
import { type Framing, ServerSession } from "./server_session.ts";
import { type CheckedCommand, declaresExit, isProtocol, show } from "./checked_command.ts";

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
 * One protocol server in live sessions, as a client of its protocol (mcp-stdio, LSP or DAP): the first
 * response and a malformed message, then stdin EOF; SIGTERM while serving; idle past a short `--timeout`;
 * and, for Content-Length protocols, a header without a usable length. Every stdout byte read must belong
 * to a message. A protocol the checker does not speak gets only what needs no client — stdin EOF and
 * SIGTERM — and the rest is skipped with the reason. Every session's process group ends with it.
 *
 * @example
 * ```ts
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const command: CheckedCommand; // `notes lsp`
 * const ledger = new Ledger();
 * const options = { probeTimeoutMs: 10_000, signal: AbortSignal.timeout(120_000) };
 * await checkServer(ledger, ["notes"], command, options);
 * ```
 */
export async function checkServer(
  ledger: Ledger,
  cli: readonly string[],
  command: CheckedCommand,
  options: SessionOptions,
): Promise<void> {
  const argv = [...cli, "--format", "json", ...command.words];
  const label = show(command);
  const protocol = String(command.entry.protocol);
  const framing = framingOf(protocol) ?? "line";
  const client = (server: ServerSession) => probeFor(protocol, server, options.probeTimeoutMs);
  const unspoken = `${label}: speaks ${protocol}; the checker speaks ${SPOKEN_PROTOCOLS}`;
  // Each session may run into the same stray output; it is reported once.
  const impurities = new Set<string>();
  const purity = (probe: ProtocolProbe | undefined, opened?: Seen) => {
    const impurity = probe?.impurity === undefined || impurities.has(probe.impurity)
      ? undefined
      : probe.impurity;
    if (impurity !== undefined) impurities.add(impurity);
    const problems = [
      ...(opened?.ok === false ? [opened.note] : []),
      ...(impurity === undefined ? [] : [impurity]),
    ];
    if (problems.length > 0) ledger.fail("ac07-stdout-purity", `${label}: ${problems.join("; ")}`);
    else if (opened !== undefined) ledger.pass("ac07-stdout-purity", `${label}: ${opened.note}`);
  };

  await session(argv, framing, options, async (server) => {
    const probe = client(server);
    if (probe === undefined) {
      for (const id of ["ac07-stdout-purity", "ac08-malformed-request"] as const) ledger.skip(id, unspoken);
    } else {
      const opened = await probe.open();
      if (probe.lost) {
        ledger.skip(
          "ac08-malformed-request",
          `${label}: not checked, its stdout could not be read as ${protocol} messages (see ac07-stdout-purity: stdout carries protocol messages only)`,
        );
      } else {
        const malformed = await probe.malformed();
        ledger.record("ac08-malformed-request", malformed.ok, `${label}: ${malformed.note}`);
      }
      purity(probe, opened);
    }
    if (server.ended) {
      const gone = await server.waitExit(options.probeTimeoutMs);
      ledger.skip(
        "ac09-stdin-eof",
        `${label}: not checked, the server ended (${
          gone === undefined ? "its stdout closed" : `exit ${gone.code}`
        }) before its stdin was closed`,
      );
      return;
    }
    await server.closeStdin();
    const exit = await server.waitExit(options.probeTimeoutMs);
    const envelopeLine = server.stderr.split("\n").find((line) => "envelope" in readEnvelope(line));
    const ok = exit?.code === 0 && envelopeLine === undefined;
    ledger.record(
      "ac09-stdin-eof",
      ok,
      `${label}: ${exit === undefined ? "still running after stdin closed" : `exit ${exit.code}`}${
        envelopeLine === undefined ? "" : ", an envelope on stderr"
      }`,
    );
  });

  // Serving has begun once a request is answered; a server of a protocol the checker does not speak gets a
  // moment instead — and, if the signal found it without a handler yet (it died by the signal), a longer
  // one, once: a slow start is not a server that ignores SIGTERM.
  for (const moment of SIGTERM_MOMENTS_MS) {
    let retry = false;
    await session(argv, framing, options, async (server) => {
      const probe = client(server);
      if (probe !== undefined) await probe.open();
      else await delay(moment);
      server.signal("SIGTERM");
      const exit = await server.waitExit(options.probeTimeoutMs);
      const read = readEnvelope(lastLine(server.stderr));
      retry = probe === undefined && exit?.signal === "SIGTERM" && moment !== SIGTERM_MOMENTS_MS.at(-1);
      if (retry) return;
      const ok = exit?.code === ExitCode.SIGTERM && "envelope" in read;
      ledger.record(
        "ac10-sigterm",
        ok,
        `${label}: ${exit === undefined ? "still running after SIGTERM" : `exit ${exit.code}`}, ${
          "envelope" in read ? "envelope last on stderr" : "no envelope last on stderr"
        }`,
      );
      purity(probe);
    });
    if (!retry) break;
  }

  await session([...argv, "--timeout", String(IDLE_TIMEOUT_SECONDS)], framing, options, async (server) => {
    const probe = client(server);
    if (probe !== undefined) await probe.open();
    const early = await server.waitExit(IDLE_WATCH_MS);
    const idle = `${IDLE_WATCH_MS / 1000} s idle with --timeout ${IDLE_TIMEOUT_SECONDS}`;
    if (early !== undefined) {
      if (early.code === ExitCode.ARG_ERROR) {
        ledger.skip(
          "ac11-idle-not-killed",
          `${label}: exits 2 with --timeout, which every command takes`,
        );
      } else ledger.fail("ac11-idle-not-killed", `${label}: exited ${early.code} after ${idle}`);
    } else if (probe === undefined) {
      ledger.skip(
        "ac11-idle-not-killed",
        `${label}: still running after ${idle}, but whether it still serves is not checked: it speaks ${protocol}`,
      );
    } else if (probe.lost) {
      ledger.skip(
        "ac11-idle-not-killed",
        `${label}: still running after ${idle}, but whether it still serves is not checked: its stdout could not be read as ${protocol} messages (see ac07-stdout-purity: stdout carries protocol messages only)`,
      );
    } else {
      const answered = await probe.ping();
      ledger.record(
        "ac11-idle-not-killed",
        answered,
        `${label}: ${answered ? "still serving" : "still running but no longer answering"} after ${idle}`,
      );
    }
    purity(probe);
    await server.closeStdin();
    await server.waitExit(options.probeTimeoutMs);
  });

  if (framing === "content-length") {
    await session(argv, framing, options, async (server) => {
      const probe = client(server);
      if (probe === undefined || !isFramed(probe)) return;
      const opened = await probe.open();
      const answered = opened.ok ? await probe.badFraming() : undefined;
      purity(probe);
      if (answered === undefined) return;
      if (!answered.ok) {
        ledger.fail("ac08-malformed-request", `${label}: ${answered.note}`);
        return;
      }
      const after = await afterLostFraming(server, probe, command, options);
      ledger.record("ac08-malformed-request", after.ok, `${label}: ${answered.note}, then ${after.note}`);
    });
  }
}

/**
 * What a server may do once the client's framing is lost: serve on (it found the next message), or end —
 * with 0, or with a declared code other than 2 and the envelope last on stderr, as any failure once serving
 * began.
 */
async function afterLostFraming(
  server: ServerSession,
  probe: ProtocolProbe,
  command: CheckedCommand,
  options: SessionOptions,
): Promise<Seen> {
  if (await probe.ping()) return { ok: true, note: "answered a request" };
  const exit = await server.waitExit(options.probeTimeoutMs);
  if (exit === undefined) return { ok: false, note: "neither answered a request nor exited" };
  if (exit.code === ExitCode.SUCCESS) return { ok: true, note: "ended with exit 0" };
  const read = readEnvelope(lastLine(server.stderr));
  const envelope = "envelope" in read ? read.envelope : undefined;
  const problems = [
    ...(exit.code === ExitCode.ARG_ERROR ? ["2 means a refused flag, never right once serving began"] : []),
    ...(declaresExit(command, exit.code) ? [] : ["not a declared exit code"]),
    ...(envelope === undefined ? ["no envelope last on stderr"] : []),
    ...(envelope !== undefined && envelope.meta.exit_code !== exit.code
      ? [`the envelope says exit_code ${envelope.meta.exit_code}`]
      : []),
  ];
  return problems.length === 0
    ? {
      ok: true,
      note: `ended with exit ${exit.code} and the ${String(envelope?.error?.code)} envelope last on stderr`,
    }
    : { ok: false, note: `ended with exit ${exit.code}: ${problems.join(", ")}` };
}

/**
 * The tool's own MCP server (`mcp serve`) against the manifest: every command it leaves out is marked
 * `mcp: false`, none so marked is listed, and a call naming one is a protocol error.
 *
 * @example
 * ```ts
 * import { Ledger } from "./criteria.ts";
 * import type { CheckedCommand } from "./checked_command.ts";
 *
 * declare const commands: CheckedCommand[]; // from checkManifest
 * const ledger = new Ledger();
 * const options = { probeTimeoutMs: 10_000, signal: AbortSignal.timeout(120_000) };
 * await checkMcpToolList(ledger, ["notes"], commands, options);
 * ```
 */
export async function checkMcpToolList(
  ledger: Ledger,
  cli: readonly string[],
  commands: CheckedCommand[],
  options: SessionOptions,
): Promise<void> {
  const server = commands.find((command) =>
    command.path === "mcp.serve" && command.entry.protocol === "mcp-stdio"
  );
  if (server === undefined) {
    for (const id of ["ac14-mcp-false-shown", "ac15-mcp-false-refused"] as const) {
      ledger.skip(id, "the CLI has no `mcp serve` speaking mcp-stdio");
    }
    return;
  }
  await session([...cli, "--format", "json", "mcp", "serve"], "line", options, async (live) => {
    const client = new McpProbe(live, options.probeTimeoutMs);
    await client.discover();
    const names = await client.toolNames();
    if (names === undefined) {
      ledger.fail("ac15-mcp-false-refused", "mcp serve: no tools/list result");
      ledger.fail("ac14-mcp-false-shown", "mcp serve: no tools/list result");
      return;
    }
    const listed = (command: CheckedCommand) =>
      names.includes(command.path) || names.includes(toolName(command.path));
    const candidates = commands.filter((command) =>
      command !== server && !isProtocol(command) && command.entry.arguments !== "passthrough"
    );
    for (const command of candidates) {
      const label = show(command);
      if (command.entry.mcp === false) {
        ledger.record(
          "ac15-mcp-false-refused",
          !listed(command),
          `${label} (mcp: false) is ${listed(command) ? "listed" : "not listed"}`,
        );
        ledger.record("ac14-mcp-false-shown", !listed(command), `${label}: left out and marked mcp: false`);
        // An argument no command takes: even a server that wrongly runs the tool refuses it before running.
        const reply = await client.request("tools/call", {
          name: toolName(command.path),
          arguments: { definitely_not_an_argument: true },
        });
        const refused = reply?.error !== undefined;
        ledger.record(
          "ac15-mcp-false-refused",
          refused,
          `${label}: a call ${
            refused
              ? `is answered with protocol error ${String(reply?.error?.code)}`
              : reply === undefined
              ? "got no answer"
              : "is answered with a result, not a protocol error"
          }`,
        );
      } else if (!listed(command)) {
        ledger.fail(
          "ac14-mcp-false-shown",
          `${label} is left out of the tool list but does not declare mcp: false`,
        );
      } else if ("mcp" in command.entry) {
        ledger.fail(
          "ac14-mcp-false-shown",
          `${label} is listed yet carries mcp: ${JSON.stringify(command.entry.mcp)}`,
        );
      } else {
        ledger.pass("ac14-mcp-false-shown", `${label}: listed, no mcp field`);
      }
    }
    if (!candidates.some((command) => command.entry.mcp === false)) {
      ledger.skip("ac15-mcp-false-refused", "no command is marked mcp: false");
    }
    await live.closeStdin();
    await live.waitExit(options.probeTimeoutMs);
  });
}

async function session(
  argv: readonly string[],
  framing: Framing,
  options: SessionOptions,
  use: (server: ServerSession) => Promise<void>,
): Promise<void> {
  const server = new ServerSession(argv, framing);
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

/** How long a server of a protocol the checker does not speak gets before SIGTERM: at first, then once more. */
const SIGTERM_MOMENTS_MS = [500, 3_000] as const;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
