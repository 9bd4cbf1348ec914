/**
 * The MCP clients `tool mcp install` knows: where each keeps its configuration, under which key its servers
 * live, and the shape of one stdio server entry.
 */

import type { McpClientName } from "./client_names.ts";

export { MCP_CLIENT_NAMES, type McpClientName } from "./client_names.ts";

/** Which configuration of a client: the person's own, or the one checked in with a project. */
export type ConfigScope = "user" | "project";

/** How the client starts the server: a program, its arguments, extra environment. */
export interface ServerLaunch {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** Where a configuration path is looked up: the facts of this machine and this run. */
export interface ConfigPlace {
  /** The home directory. */
  home: string;
  /** `darwin`, `linux`, `win32`, … */
  platform: string;
  /** The current directory: a project configuration lives below it. */
  cwd: string;
  /** Reads an environment variable (`APPDATA`, `XDG_CONFIG_HOME`, `CLAUDE_CONFIG_DIR`). */
  env(name: string): string | undefined;
  /** Joins path segments. */
  join(...segments: string[]): string;
}

/** What `mcp install` knows about one client. */
export interface McpClient {
  /** The client's name for people: `Claude Desktop`. */
  title: string;
  /** The scopes it has, the default first. */
  scopes: readonly ConfigScope[];
  /** The key of the object that holds the servers, by name. */
  serversKey: "mcpServers" | "servers";
  /** The configuration file of a scope. */
  configPath(scope: ConfigScope, place: ConfigPlace): string;
  /** The entry of one stdio server. */
  entry(launch: ServerLaunch): Record<string, unknown>;
  /** What to do so the client picks the server up. */
  reload: string;
}

const plainEntry = (launch: ServerLaunch): Record<string, unknown> => ({
  command: launch.command,
  args: [...launch.args],
  ...(Object.keys(launch.env).length === 0 ? {} : { env: { ...launch.env } }),
});

const stdioEntry = (launch: ServerLaunch): Record<string, unknown> => ({
  type: "stdio",
  ...plainEntry(launch),
});

// Where desktop applications keep their settings: Electron's `appData` directory.
function appDataDir(place: ConfigPlace): string {
  if (place.platform === "darwin") return place.join(place.home, "Library", "Application Support");
  if (place.platform === "win32") return place.env("APPDATA") || place.join(place.home, "AppData", "Roaming");
  return place.env("XDG_CONFIG_HOME") || place.join(place.home, ".config");
}

/**
 * Every client `--client` names.
 *
 * @example
 * ```ts
 * MCP_CLIENTS["claude-desktop"].serversKey; // "mcpServers"
 * ```
 */
export const MCP_CLIENTS: Readonly<Record<McpClientName, McpClient>> = {
  "claude-desktop": {
    title: "Claude Desktop",
    scopes: ["user"],
    serversKey: "mcpServers",
    configPath: (_scope, place) => place.join(appDataDir(place), "Claude", "claude_desktop_config.json"),
    entry: plainEntry,
    reload: "quit and reopen Claude Desktop",
  },
  "claude-code": {
    title: "Claude Code",
    scopes: ["user", "project"],
    serversKey: "mcpServers",
    configPath: (scope, place) => {
      if (scope === "project") return place.join(place.cwd, ".mcp.json");
      const dir = place.env("CLAUDE_CONFIG_DIR");
      return dir ? place.join(dir, ".claude.json") : place.join(place.home, ".claude.json");
    },
    entry: stdioEntry,
    reload: "start a new Claude Code session (`claude mcp list` shows the server)",
  },
  vscode: {
    title: "VS Code",
    scopes: ["project", "user"],
    serversKey: "servers",
    configPath: (scope, place) =>
      scope === "project"
        ? place.join(place.cwd, ".vscode", "mcp.json")
        : place.join(appDataDir(place), "Code", "User", "mcp.json"),
    entry: stdioEntry,
    reload: "run 'MCP: List Servers' in VS Code and start the server",
  },
  cursor: {
    title: "Cursor",
    scopes: ["user", "project"],
    serversKey: "mcpServers",
    configPath: (scope, place) =>
      scope === "project"
        ? place.join(place.cwd, ".cursor", "mcp.json")
        : place.join(place.home, ".cursor", "mcp.json"),
    entry: plainEntry,
    reload: "open Cursor's MCP settings and enable the server",
  },
};
