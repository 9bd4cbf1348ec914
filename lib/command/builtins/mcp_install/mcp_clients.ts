/**
 * The MCP clients `tool mcp install` knows: where each keeps its configuration, under which key its servers
 * live, and the shape of one stdio server entry.
 */

import type { McpClientName } from "./client_names.ts";
import type { ProgramHost } from "../../../runtime/program_host.ts";

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
  /** The file tree, where a client's place depends on how it was installed. */
  files: Pick<ProgramHost, "isDirectory" | "listDir">;
  /** Tells the person (on stderr) which of two places was chosen. */
  note(message: string): void;
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
   * directory (`""` for the directory itself) with `/` between its parts: in the form the client resolves
   * against the project, wherever and on whatever platform the project is checked out.
   */
  projectPath(relative: string): string;
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

// Claude Desktop from the Microsoft Store (an MSIX package) reads its settings from the package's private
// copy of the roaming application data, not from %APPDATA%: written there, a server is never seen. Where
// both exist (the classic installer's directory stays behind when a person moves to the Store build), the
// Store build is the one installed now, and the choice is said.
function claudeDesktopDir(place: ConfigPlace): string {
  const classic = place.join(appDataDir(place), "Claude");
  if (place.platform !== "win32") return classic;
  const store = storeClaudeDir(place);
  if (store === undefined) return classic;
  if (place.files.isDirectory(classic)) {
    place.note(
      `Claude Desktop from the Microsoft Store is installed: its configuration in ${store} is changed, not ` +
        `the one in ${classic}, which only the classic installer's build reads (--config names either)`,
    );
  }
  return store;
}

// `%LOCALAPPDATA%\Packages\Claude_<publisher id>\LocalCache\Roaming\Claude` of the installed package.
function storeClaudeDir(place: ConfigPlace): string | undefined {
  const local = place.dirEnv("LOCALAPPDATA") ?? place.join(place.home(), "AppData", "Local");
  const packages = place.join(local, "Packages");
  const name = place.files.listDir(packages).find((entry) => entry.toLowerCase().startsWith("claude_"));
  return name === undefined ? undefined : place.join(packages, name, "LocalCache", "Roaming", "Claude");
}

// Claude Code starts a project's servers in the project's directory, where `.mcp.json` is: a relative path
// resolves there. The leading `./` marks a command as a path, not a name to look up in PATH.
const relativeToProject = (relative: string): string => relative === "" ? "." : `./${relative}`;

// VS Code and Cursor substitute `${workspaceFolder}` in a project's `mcp.json`, whatever directory they start
// the server in.
const inWorkspaceFolder = (relative: string): string =>
  relative === "" ? "${workspaceFolder}" : `\${workspaceFolder}/${relative}`;

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
    configPath: (_scope, place) => place.join(claudeDesktopDir(place), "claude_desktop_config.json"),
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
