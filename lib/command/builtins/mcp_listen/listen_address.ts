/**
 * Where `mcp listen` listens, as a person writes it: `unix:<path>`, `tcp:<host>:<port>` or
 * `http://<host>:<port>/<path>`, loopback unless remote listening was asked for.
 * @module
 */
import { CommandError } from "../../contract/command_error.ts";
import { ExitCode } from "../../../exit_code.ts";
import type { SocketAddress } from "../../../runtime/socket.ts";
import {
  currentSocketPlatform,
  type SocketPlatform,
  unixListenProblem,
} from "../../../runtime/socket_paths.ts";
import { unixPathExample } from "../../../runtime/socket_example.ts";

/**
 * A listening address: a socket (the line transport) or an HTTP endpoint (Streamable HTTP).
 *
 * @example
 * ```ts
 * const address: ListenAddress = { kind: "http", host: "127.0.0.1", port: 7010, path: "/mcp" };
 * ```
 */
export type ListenAddress = SocketAddress | { kind: "http"; host: string; port: number; path: string };

/**
 * Reads an address; anything but loopback needs `allowRemote`. An ARG_ERROR names what is wrong, and a
 * `unix:` path the platform cannot listen on (`where`, this machine by default) is one too.
 *
 * @example
 * ```ts
 * parseListenAddress("http://127.0.0.1:0/mcp", false); // { kind: "http", host: "127.0.0.1", port: 0, path: "/mcp" }
 * ```
 */
export function parseListenAddress(
  text: string,
  allowRemote: boolean,
  where: SocketPlatform = currentSocketPlatform(),
): ListenAddress {
  const example = `unix:${unixPathExample("tool", where.platform)}`;
  if (text.startsWith("unix:")) {
    const path = text.slice("unix:".length);
    if (path === "") throw new CommandError(ExitCode.ARG_ERROR, `unix: needs a socket path, e.g. ${example}`);
    const problem = unixListenProblem(path, where);
    if (problem !== undefined) {
      throw new CommandError(ExitCode.ARG_ERROR, problem, {
        suggestion: where.runtime === "deno" ? "tcp:127.0.0.1:7010" : example,
      });
    }
    return { kind: "unix", path };
  }
  const tcp = /^tcp:(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]/]+)):(\d{1,5})$/.exec(text);
  const http = /^http:\/\/(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]/]+)):(\d{1,5})(\/[^\s?#]*)?$/.exec(text);
  const parts = tcp ?? http;
  if (parts === null) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `the address must be unix:<path>, tcp:<host>:<port> or http://<host>:<port>/<path>, got '${text}'`,
      { suggestion: `http://127.0.0.1:7010/mcp, tcp:127.0.0.1:7010 or ${example}` },
    );
  }
  const host = parts[1] ?? parts[2]!;
  const port = Number(parts[3]);
  if (port > 65535) throw new CommandError(ExitCode.ARG_ERROR, `the port must be 0 to 65535, got ${port}`);
  if (!allowRemote && !isLoopback(host)) {
    throw new CommandError(ExitCode.ARG_ERROR, `${host} is not a loopback address`, {
      suggestion: "listen on 127.0.0.1 or ::1, or pass --allow-remote (see its help for what it requires)",
    });
  }
  if (tcp !== null) return { kind: "tcp", host, port };
  const path = parts[4] ?? "/mcp";
  return { kind: "http", host, port, path: path === "/" ? "/mcp" : path };
}

/**
 * Whether a host is this machine's loopback.
 *
 * @example
 * ```ts
 * isLoopback("127.0.0.1"); // true
 * isLoopback("0.0.0.0"); // false
 * ```
 */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * An address as a person writes it, with the port the system chose.
 *
 * @example
 * ```ts
 * formatListenAddress({ kind: "tcp", host: "::1", port: 7010 }); // "tcp:[::1]:7010"
 * ```
 */
export function formatListenAddress(address: ListenAddress): string {
  if (address.kind === "unix") return `unix:${address.path}`;
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  return address.kind === "tcp"
    ? `tcp:${host}:${address.port}`
    : `http://${host}:${address.port}${address.path}`;
}
