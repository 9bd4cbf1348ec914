/**
 * `toolwire mcp listen --exec "<cli …>" <address>`: the commands of a bridged CLI as MCP tools on a Unix
 * domain socket or a TCP port, with the stdio transport's framing and message rules, for many clients at
 * once. Its own stdout is not the protocol — it is an ordinary long-running command that ends with one
 * envelope — so it is declared `mcp: false` and never served over MCP itself.
 */
import { CommandError, ExitCode, type Tool } from "../mod.ts";
import { listenMcp } from "../lib/protocol/mcp/mod.ts";
import {
  connectSocket,
  DEFAULT_MAX_IN_FLIGHT,
  errorMessage,
  MCP_SERVE_FLAGS,
  mcpServeLimits,
  pathKind,
  removeFile,
  type SocketAddress,
} from "../lib/bridge/mod.ts";
import { EXEC_FLAGS, execTarget, prepareExec } from "./exec_options.ts";

/** Open calls may finish for at most this long after SIGTERM: the framework waits 2 s for a handler's cleanup. */
const MAX_GRACE_SECONDS = 1.5;

const LISTEN_FLAGS = {
  ...EXEC_FLAGS,
  exec: { ...EXEC_FLAGS.exec, required: true },
  "read-only": { type: "boolean", default: false, description: "Serve only the CLI's safe commands" },
  "max-message-bytes": MCP_SERVE_FLAGS["max-message-bytes"],
  "max-in-flight": {
    type: "integer",
    default: DEFAULT_MAX_IN_FLIGHT,
    description: "Requests one connection may have open; reading it pauses beyond",
  },
  "max-in-flight-total": {
    type: "integer",
    default: 256,
    description: "Requests open over all connections together",
  },
  "max-connections": {
    type: "integer",
    default: 128,
    description: "Connections open at once; one more is closed at once",
  },
  grace: {
    type: "number",
    default: 1,
    description:
      `Seconds open calls may finish after SIGTERM or SIGINT before they are cancelled (at most ${MAX_GRACE_SECONDS})`,
  },
  "allow-remote": {
    type: "boolean",
    default: false,
    description:
      "Listen on an address other than loopback. The socket is UNAUTHENTICATED: anyone who can reach it can run every served command",
  },
} as const;

/**
 * Registers `mcp listen` on the toolwire binary.
 *
 * @example
 * ```ts
 * import { createTool } from "@toolwire/toolwire";
 *
 * const tool = createTool({ name: "toolwire", version: "0.1.0", description: "Bridge CLIs to MCP" });
 * registerMcpListen(tool);
 * ```
 */
export function registerMcpListen(tool: Tool): void {
  tool.command("mcp.listen", {
    description:
      "Serve a CLI's commands as MCP tools on a Unix socket or a loopback TCP port, to many clients at once, until SIGTERM",
    danger_level: "destructive",
    required_scopes: [],
    // A socket server started by a model over MCP would outlive the call and listen for anyone: people only.
    mcp: false,
    timeout_seconds: 0,
    flags: LISTEN_FLAGS,
    positionals: [{
      name: "address",
      description: "unix:<path>, or tcp:<host>:<port> (tcp:127.0.0.1:0 picks a free port)",
    }],
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description: "Never: the server runs until a signal ends it",
        retryable: false,
        side_effects: "none",
      },
      "4": {
        name: "PRECONDITION",
        description: "The --exec CLI printed no valid manifest; the server did not start",
        retryable: false,
        side_effects: "none",
      },
      "5": {
        name: "NOT_FOUND",
        description:
          "The --exec program, the --cwd directory or the socket's directory does not exist; the server did not start",
        retryable: false,
        side_effects: "none",
      },
      "6": {
        name: "CONFLICT",
        description:
          "The address is in use (another server answers on the socket or port); the server did not start",
        retryable: false,
        side_effects: "none",
      },
    },
    examples: [
      {
        description: "Serve a Python CLI on a Unix socket",
        command: `toolwire mcp listen --exec "python3 tools/cli.py" unix:/tmp/tools.sock`,
      },
      {
        description: "Serve its safe commands on a loopback port",
        command: `toolwire mcp listen --exec notes --read-only tcp:127.0.0.1:7010`,
      },
    ],
    run: async (ctx) => {
      const address = parseAddress(String(ctx.args.address), ctx.flags["allow-remote"]);
      const grace = ctx.flags.grace;
      if (!(grace >= 0 && grace <= MAX_GRACE_SECONDS)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          `--grace expects seconds from 0 to ${MAX_GRACE_SECONDS}, got ${grace}`,
        );
      }
      const limits = mcpServeLimits(ctx.flags);
      for (const flag of ["max-in-flight-total", "max-connections"] as const) {
        if (ctx.flags[flag] < 1) {
          throw new CommandError(ExitCode.ARG_ERROR, `--${flag} expects at least 1, got ${ctx.flags[flag]}`);
        }
      }
      const target = execTarget(ctx.flags.exec, ctx.flags);
      const prepared = await prepareExec(target, ctx.flags, ctx.signal, ctx.log);
      if (address.kind === "unix") await clearStaleSocket(address.path);
      const listener = await listenMcp(address, {
        ...prepared,
        ...limits,
        maxInFlightTotal: ctx.flags["max-in-flight-total"],
        maxConnections: ctx.flags["max-connections"],
        log: ctx.log,
      }).catch((error: unknown) => {
        throw listenError(error, address);
      });
      ctx.log(`mcp listen: serving ${prepared.serverInfo.name} on ${formatAddress(listener.address)}`);
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await listener.close(grace * 1000);
      if (address.kind === "unix") await removeFile(address.path).catch(() => {});
      return { address: formatAddress(listener.address) };
    },
  });
}

/**
 * `unix:<path>` or `tcp:<host>:<port>` (`tcp:[::1]:<port>` for IPv6). Anything but loopback needs
 * `--allow-remote`: the socket has no authentication.
 */
function parseAddress(text: string, allowRemote: boolean): SocketAddress {
  if (text.startsWith("unix:")) {
    const path = text.slice("unix:".length);
    if (path === "") {
      throw new CommandError(ExitCode.ARG_ERROR, "unix: needs a socket path, e.g. unix:/tmp/tool.sock");
    }
    return { kind: "unix", path };
  }
  const tcp = /^tcp:(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]]+)):(\d{1,5})$/.exec(text);
  if (tcp === null) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `the address must be unix:<path> or tcp:<host>:<port>, got '${text}'`,
      {
        suggestion: "tcp:127.0.0.1:7010 or unix:/tmp/tool.sock",
      },
    );
  }
  const host = tcp[1] ?? tcp[2]!;
  const port = Number(tcp[3]);
  if (port > 65535) throw new CommandError(ExitCode.ARG_ERROR, `the port must be 0 to 65535, got ${port}`);
  if (!allowRemote && !isLoopback(host)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `${host} is not a loopback address; the socket has no authentication`,
      {
        suggestion:
          "listen on 127.0.0.1 or ::1, or pass --allow-remote if every host that can reach it may run these commands",
      },
    );
  }
  return { kind: "tcp", host, port };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function formatAddress(address: SocketAddress): string {
  if (address.kind === "unix") return `unix:${address.path}`;
  return `tcp:${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
}

/**
 * A socket file left by a server that died is removed; one that a live server answers on is a conflict, and
 * anything else at the path is not touched.
 */
async function clearStaleSocket(path: string): Promise<void> {
  const kind = await pathKind(path);
  if (kind === "missing") return;
  if (kind !== "other") {
    throw new CommandError(ExitCode.CONFLICT, `${path} exists and is not a socket; it was left alone`);
  }
  const live = await connectSocket({ kind: "unix", path }).then(
    (connection) => (connection.close(), true),
    () => false,
  );
  if (live) throw new CommandError(ExitCode.CONFLICT, `another server is listening on ${path}`);
  await removeFile(path);
}

function listenError(error: unknown, address: SocketAddress): CommandError {
  const code = (error as { code?: string }).code;
  const shown = formatAddress(address);
  if (code === "EADDRINUSE") return new CommandError(ExitCode.CONFLICT, `${shown} is in use`);
  if (code === "ENOENT") {
    return new CommandError(ExitCode.NOT_FOUND, `cannot listen on ${shown}: its directory does not exist`);
  }
  return new CommandError(ExitCode.GENERAL_ERROR, `cannot listen on ${shown}: ${errorMessage(error)}`);
}
