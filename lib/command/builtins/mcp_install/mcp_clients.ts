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

/**
 * Where a configuration path is looked up: the facts of this machine and this run, each asked for only when
 * the client and scope need it (on Deno, each is a permission).
 */
export interface ConfigPlace {
  /** The home directory. */
  home(): string;
  /** `darwin`, `linux`, `win32`, … */
  platform: string;
  /** The current directory: a project configuration lives below it. */
  cwd(): string;
  /**
   * A directory an environment variable names (`APPDATA`, `XDG_CONFIG_HOME`, `CLAUDE_CONFIG_DIR`), or
   * `undefined` when it is unset, empty or not an absolute path: the XDG specification calls a relative
   * path invalid, to be ignored, and a literal `~/.config` is one.
   */
  dirEnv(name: string): string | undefined;
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
  /**
   * Whether the client reads its configuration as JSONC (comments, trailing commas) rather than plain JSON:
   * a file with comments is edited for the first and refused for the second, which would not read it.
   */
  jsonc: boolean;
  /**
   * How a path inside the project is written in a project configuration, given relative to the project
   * directory (`""` for the directory itself) with the platform's separator: in the form the client
   * resolves against the project, wherever the project is checked out.
   */
  projectPath(relative: string, separator: string): string;
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
  if (place.platform === "darwin") return place.join(place.home(), "Library", "Application Support");
  if (place.platform === "win32") {
    return place.dirEnv("APPDATA") ?? place.join(place.home(), "AppData", "Roaming");
  }
  return place.dirEnv("XDG_CONFIG_HOME") ?? place.join(place.home(), ".config");
}

// Claude Code starts a project's servers in the project's directory, where `.mcp.json` is: a relative path
// resolves there. The leading `./` marks a command as a path, not a name to look up in PATH.
const relativeToProject = (relative: string, separator: string): string =>
  relative === "" ? "." : `.${separator}${relative}`;

// VS Code and Cursor substitute `${workspaceFolder}` in a project's `mcp.json`, whatever directory they start
// the server in.
const inWorkspaceFolder = (relative: string, separator: string): string =>
  relative === "" ? "${workspaceFolder}" : `\${workspaceFolder}${separator}${relative}`;

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
    // An Electron app that parses the file with JSON.parse: a comment or trailing comma and it loads no server.
    jsonc: false,
    projectPath: relativeToProject,
    configPath: (_scope, place) => place.join(appDataDir(place), "Claude", "claude_desktop_config.json"),
    entry: plainEntry,
    reload: "quit and reopen Claude Desktop",
  },
  "claude-code": {
    title: "Claude Code",
    scopes: ["user", "project"],
    serversKey: "mcpServers",
    // Its settings reject comments ("Invalid or malformed JSON"), and it rewrites ~/.claude.json itself.
    jsonc: false,
    projectPath: relativeToProject,
    configPath: (scope, place) => {
      if (scope === "project") return place.join(place.cwd(), ".mcp.json");
      const dir = place.dirEnv("CLAUDE_CONFIG_DIR");
      return dir === undefined ? place.join(place.home(), ".claude.json") : place.join(dir, ".claude.json");
    },
    entry: stdioEntry,
    reload: "start a new Claude Code session (`claude mcp list` shows the server)",
  },
  vscode: {
    title: "VS Code",
    scopes: ["project", "user"],
    serversKey: "servers",
    // VS Code reads mcp.json as JSONC, as it does its settings.
    jsonc: true,
    projectPath: inWorkspaceFolder,
    configPath: (scope, place) =>
      scope === "project"
        ? place.join(place.cwd(), ".vscode", "mcp.json")
        : place.join(appDataDir(place), "Code", "User", "mcp.json"),
    entry: stdioEntry,
    reload: "run 'MCP: List Servers' in VS Code and start the server",
  },
  cursor: {
    title: "Cursor",
    scopes: ["user", "project"],
    serversKey: "mcpServers",
    // Cursor reports a trailing comma in mcp.json as an error and loads nothing from the file.
    jsonc: false,
    projectPath: inWorkspaceFolder,
    configPath: (scope, place) =>
      scope === "project"
        ? place.join(place.cwd(), ".cursor", "mcp.json")
        : place.join(place.home(), ".cursor", "mcp.json"),
    entry: plainEntry,
    reload: "open Cursor's MCP settings and enable the server",
  },
};
