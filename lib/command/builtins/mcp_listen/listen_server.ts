/**
 * What `mcp listen` does once its flags are read: the dry run's list of tools, or the listener itself —
 * sockets through the line transport, HTTP through the Streamable HTTP endpoint — until the invocation is
 * cancelled, then a graceful close. Loaded on first use: a tool's start never pays for it.
 * @module
 */
import { CommandError } from "../../contract/command_error.ts";
import type { CommandContext } from "../../contract/command_definition.ts";
import { ExitCode } from "../../../exit_code.ts";
import { listenMcp } from "../../../protocol/mcp/mcp_listener.ts";
import { listenMcpHttp } from "../../../protocol/mcp/http_listener.ts";
import type { McpTool } from "../../../protocol/mcp/tool_catalog.ts";
import { claimSocketPath } from "../../../runtime/socket.ts";
import { isNamedPipe } from "../../../runtime/socket_paths.ts";
import { platformName } from "../../../runtime/process.ts";
import { removeFile } from "../../../runtime/fs.ts";
import { errorMessage } from "../../run/thrown_error.ts";
import { limitMs } from "../../run/time_limit.ts";
import { MAX_GRACE_SECONDS, type McpListenFlags, type ServedTools } from "./listen_flags.ts";
import { formatListenAddress, isLoopback, type ListenAddress, parseListenAddress } from "./listen_address.ts";
import { listenAuthorizer } from "./listen_auth.ts";

/**
 * Serves `served` on the invocation's address until it is cancelled; with `--dry-run`, the tools that would
 * be served, each with its danger level.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 * import type { McpListenFlags, ServedTools } from "./listen_flags.ts";
 *
 * declare const ctx: CommandContext<McpListenFlags>;
 * declare const served: ServedTools;
 * const data = await runListener(ctx, served);
 * ```
 */
export async function runListener(
  ctx: CommandContext<McpListenFlags>,
  served: ServedTools,
): Promise<Record<string, unknown>> {
  const flags = ctx.flags;
  const address = parseListenAddress(String(ctx.args.address), flags["allow-remote"]);
  const limits = checkedLimits(flags, address);
  if (flags["dry-run"]) {
    const tools = served.catalog.tools().map((tool) => ({ name: tool.name, danger_level: dangerOf(tool) }));
    return {
      effect: "would_listen",
      address: formatListenAddress(address),
      would_affect: tools.map((tool) => tool.name),
      tools,
    };
  }
  // A Windows named pipe is no file: nothing stale can be left at its name, and one in use is refused as such.
  const socketFile = address.kind === "unix" && !(platformName() === "win32" && isNamedPipe(address.path));
  if (socketFile) await claimPath(address.path);
  const authorizer = address.kind === "http" ? await listenAuthorizer(flags, address, ctx.log) : undefined;
  const options = { ...served, ...limits, log: ctx.log };
  const listener = await (address.kind === "http"
    ? listenMcpHttp(address, {
      ...options,
      // One bound over every request: an HTTP connection carries one request at a time.
      maxInFlight: limits.maxInFlightTotal,
      allowedOrigins: flags["allow-origin"],
      anyHost: flags["allow-remote"],
      ...(authorizer === undefined ? {} : { authorizer }),
      ...httpTimes(flags),
    }).then((http) => ({ shown: http.url, close: (graceMs: number) => http.close(graceMs) }))
    : listenMcp(address, options).then((socket) => ({
      shown: formatListenAddress(socket.address),
      close: (graceMs: number) => socket.close(graceMs),
    }))).catch((error: unknown) => {
      throw listenError(error, address);
    });
  ctx.log(`mcp listen: serving ${served.serverInfo.name} on ${listener.shown}`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await listener.close(flags.grace * 1000);
  if (socketFile) await removeFile(address.path).catch(() => {});
  return { address: listener.shown };
}

/** The flags as a listener's options, each checked: a value that would make the server unusable is an ARG_ERROR. */
function checkedLimits(flags: CommandContext<McpListenFlags>["flags"], address: ListenAddress) {
  const atLeast = (flag: keyof McpListenFlags, value: number, least: number) => {
    if (!(value >= least)) {
      throw new CommandError(ExitCode.ARG_ERROR, `--${flag} expects at least ${least}, got ${value}`);
    }
  };
  atLeast("max-message-bytes", flags["max-message-bytes"], 1024);
  atLeast("max-in-flight", flags["max-in-flight"], 1);
  atLeast("max-in-flight-total", flags["max-in-flight-total"], 1);
  atLeast("max-connections", flags["max-connections"], 1);
  atLeast("max-buffered-bytes", flags["max-buffered-bytes"], 1024);
  atLeast("idle-timeout", flags["idle-timeout"], 0);
  if (!(flags.grace >= 0 && flags.grace <= MAX_GRACE_SECONDS)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--grace expects seconds from 0 to ${MAX_GRACE_SECONDS}, got ${flags.grace}`,
    );
  }
  if (address.kind === "http") {
    if (!isLoopback(address.host) && flags.auth && flags["oauth-issuer"] === undefined) {
      throw new CommandError(
        ExitCode.ARG_ERROR,
        `an HTTP endpoint on ${address.host} can be reached by others and needs authentication`,
        {
          suggestion:
            "pass --oauth-issuer <url> (and --oauth-audience <its https URL>) to accept your identity provider's tokens, or --no-auth to serve it without any (UNSAFE: anyone who reaches the port runs every served command)",
        },
      );
    }
    for (const flag of HTTP_TIMES) {
      const seconds = flags[flag];
      if (seconds !== undefined && !(seconds > 0 && seconds <= MAX_HTTP_SECONDS)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          `--${flag} expects seconds above 0, at most ${MAX_HTTP_SECONDS}, got ${seconds}`,
        );
      }
    }
  } else {
    const given = HTTP_TIMES.find((flag) => flags[flag] !== undefined) ??
      (flags["allow-origin"].length > 0 ? "allow-origin" : flags.auth ? undefined : "no-auth") ??
      OAUTH_FLAGS.find((flag) => flags[flag] !== undefined);
    if (given !== undefined) {
      throw new CommandError(ExitCode.ARG_ERROR, `--${given} applies to http:// addresses only`);
    }
  }
  return {
    maxMessageBytes: flags["max-message-bytes"],
    maxInFlight: flags["max-in-flight"],
    maxInFlightTotal: flags["max-in-flight-total"],
    maxConnections: flags["max-connections"],
    maxBufferedBytes: flags["max-buffered-bytes"],
    idleTimeoutMs: flags["idle-timeout"] * 1000,
  };
}

/** The flags of an OAuth resource server. */
const OAUTH_FLAGS = ["oauth-issuer", "oauth-jwks", "oauth-audience"] as const;

/** The time limits of an HTTP endpoint, each a flag in seconds. */
const HTTP_TIMES = ["header-timeout", "body-timeout", "keep-alive"] as const;

/** A day: beyond it a time limit is a typo (and a timer's delay would overflow past ~24.8 days). */
const MAX_HTTP_SECONDS = 86_400;

/**
 * The HTTP time limits given, as the endpoint's options (absent flags keep its defaults). Each is rounded as
 * `--timeout` is, never below 1 ms: rounded to 0, a header limit would be none at all to `node:http`.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 * import type { McpListenFlags } from "./listen_flags.ts";
 *
 * declare const flags: CommandContext<McpListenFlags>["flags"]; // --header-timeout 0.0001
 * httpTimes(flags); // { headersTimeoutMs: 1 }
 * ```
 */
export function httpTimes(
  flags: Partial<Pick<CommandContext<McpListenFlags>["flags"], (typeof HTTP_TIMES)[number]>>,
): { headersTimeoutMs?: number; bodyTimeoutMs?: number; keepAliveMs?: number } {
  const times: { headersTimeoutMs?: number; bodyTimeoutMs?: number; keepAliveMs?: number } = {};
  const header = flags["header-timeout"];
  const body = flags["body-timeout"];
  const keepAlive = flags["keep-alive"];
  if (header !== undefined) times.headersTimeoutMs = limitMs(header);
  if (body !== undefined) times.bodyTimeoutMs = limitMs(body);
  if (keepAlive !== undefined) times.keepAliveMs = limitMs(keepAlive);
  return times;
}

/** A tool's danger level, read back from its annotations. */
function dangerOf(tool: McpTool): string {
  if (tool.annotations?.readOnlyHint === true) return "safe";
  return tool.annotations?.destructiveHint === true ? "destructive" : "mutating";
}

/** A socket path free to listen on, or why not: a live server (6), something that is not a socket (6). */
async function claimPath(path: string): Promise<void> {
  const claimed = await claimSocketPath(path).catch((error: unknown) => {
    throw new CommandError(ExitCode.GENERAL_ERROR, `cannot check ${path}: ${errorMessage(error)}`);
  });
  if (claimed === "live") throw new CommandError(ExitCode.CONFLICT, `another server is listening on ${path}`);
  if (claimed === "not-socket") {
    throw new CommandError(ExitCode.CONFLICT, `${path} exists and is not a socket; it was left alone`);
  }
}

function listenError(error: unknown, address: ListenAddress): CommandError {
  const code = (error as { code?: string }).code;
  const shown = formatListenAddress(address);
  if (code === "EADDRINUSE") return new CommandError(ExitCode.CONFLICT, `${shown} is in use`);
  if (code === "ENOENT") {
    return new CommandError(ExitCode.NOT_FOUND, `cannot listen on ${shown}: its directory does not exist`);
  }
  return new CommandError(ExitCode.GENERAL_ERROR, `cannot listen on ${shown}: ${errorMessage(error)}`);
}
