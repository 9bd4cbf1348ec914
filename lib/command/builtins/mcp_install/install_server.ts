import { CommandError } from "../../contract/command_error.ts";
import type { CommandContext } from "../../contract/command_definition.ts";
import { ExitCode } from "../../../exit_code.ts";
import { accountHomeDir, fileStamp } from "../../../runtime/file_probes.ts";
import { currentDir, mayRead } from "../../../runtime/environment.ts";
import { ensureDir, getEnv, homeDir, joinPath, optionalEnv, removeFile } from "../../../runtime/mod.ts";
import {
  assertWritable,
  type ConfigFile,
  copyFileExclusive,
  readRegularFile,
  replaceTextFile,
  resolveConfigFile,
  UnchangeableFile,
} from "../../../runtime/config_file.ts";
import {
  absolutePath,
  isAbsolutePath,
  parentDir,
  pathDelimiter,
  portableRelativePath,
  sameFile,
} from "../../../runtime/paths.ts";
import { LockDirectoryTimeout, withLockDirectory } from "../../../runtime/lock_directory.ts";
import { FileInUseError } from "../../../runtime/busy_files.ts";
import { selfLaunch } from "../../../runtime/launch.ts";
import { currentHost } from "../../../runtime/program_host.ts";
import { platformName } from "../../../runtime/process.ts";
import { decodeConfig, mergeServer } from "./config_merge.ts";
import {
  type ConfigPlace,
  type ConfigScope,
  MCP_CLIENTS,
  type McpClient,
  type McpClientName,
  type ServerLaunch,
} from "./mcp_clients.ts";
import type { McpInstallFlags, ServeTarget } from "./install_flags.ts";

// Names every client accepts as a key and shows as they are (Claude Code allows no more).
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The work of {@linkcode installMcpServer}, loaded by it on first use: registers `target` with the client
 * `--client` names.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 * import type { McpInstallFlags } from "./install_flags.ts";
 *
 * declare const ctx: CommandContext<McpInstallFlags>;
 * const result = await installServer(ctx, { serveArgs: ["mcp", "serve"], defaultName: "notes" });
 * ```
 */
export async function installServer(
  ctx: CommandContext<McpInstallFlags>,
  target: ServeTarget,
): Promise<Record<string, unknown>> {
  const clientName: McpClientName = ctx.flags.client;
  const client = MCP_CLIENTS[clientName];
  const scope = ctx.flags.scope ?? client.scopes[0]!;
  if (!client.scopes.includes(scope)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `${clientName} has no ${scope} configuration; --scope takes ${client.scopes.join(" or ")}`,
    );
  }
  const name = ctx.flags.name ?? target.defaultName;
  if (!SERVER_NAME.test(name)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--name expects letters, digits, '-' and '_' (at most 64), got '${name.slice(0, 80)}'`,
    );
  }
  if (ctx.flags.print && ctx.dryRun) {
    throw new CommandError(ExitCode.ARG_ERROR, "--print and --dry-run do not combine: --print reads no file");
  }
  const env = serverEnv(ctx.flags.env);
  const launch = selfLaunch(target.denoPermissions ?? []);
  if (launch === undefined) {
    throw new CommandError(
      ExitCode.PRECONDITION,
      "cannot tell how this tool was started: it has no entry script",
      {
        suggestion: "run the tool from its script or binary, not from an eval",
      },
    );
  }
  if (launch.runtime === "deno" && target.denoPermissions === undefined) {
    ctx.warn({
      code: "LAUNCH_CAVEAT",
      message:
        "the tool declares no Deno permissions for its server, so the client starts `mcp serve` with " +
        "none: a command that needs one answers PERMISSION_REQUIRED; add its --allow-* flags to args by hand",
    });
  }
  const serveArgs = [...target.serveArgs, ...(ctx.flags["read-only"] ? ["--read-only"] : [])];
  let started: ServerLaunch = { command: launch.command, args: [...launch.args, ...serveArgs], env };
  if (scope === "project") started = await portableLaunch(client, started, currentDir());
  const server = client.entry(started);
  if (ctx.flags.print) {
    return { effect: "noop", client: clientName, name, snippet: { [client.serversKey]: { [name]: server } } };
  }

  const place = configPlace(ctx);
  const config = absolutePath(ctx.flags.config ?? client.configPath(scope, place));
  const update: ConfigUpdate = { client, clientName, scope, config, name, server, force: ctx.flags.force };
  return await fileErrors(config, () => ctx.dryRun ? preview(update) : apply(update, ctx.signal));
}

// Where this run looks a configuration up. Each fact is read when the client and scope need it, so that on
// Deno `--config` takes no environment permission, and a project file none for HOME.
function configPlace(ctx: Pick<CommandContext, "warn" | "log">): ConfigPlace {
  const platform = platformName();
  const host = currentHost();
  const ignored = (name: string, value: string, instead: string) =>
    ctx.warn({
      code: "IGNORED_ENVIRONMENT",
      message: `${name} is not an absolute path (${JSON.stringify(value)}): it is ignored, ${instead}`,
    });
  return {
    platform,
    cwd: currentDir,
    join: joinPath,
    // Only what this run may read is looked at: on Deno, anything else would stop for a permission prompt.
    files: {
      isDirectory: (path) => mayRead(path) && host.isDirectory(path),
      listDir: (path) => mayRead(path) ? host.listDir(path) : [],
    },
    note: (message) => ctx.log(message),
    dirEnv: (name) => {
      const value = getEnv(name);
      if (value === undefined || value === "") return undefined;
      if (isAbsolutePath(value)) return value;
      ignored(name, value, "as the XDG Base Directory specification says of a relative path");
      return undefined;
    },
    home: () => {
      if (platform === "win32") return homeDir();
      const home = getEnv("HOME");
      if (home !== undefined && home !== "" && isAbsolutePath(home)) return home;
      const account = accountHomeDir();
      if (account === undefined || !isAbsolutePath(account)) {
        throw new CommandError(
          ExitCode.PRECONDITION,
          `cannot tell the home directory: HOME is ${home === undefined ? "unset" : JSON.stringify(home)} ` +
            "and the user database has no absolute home for this user",
          { suggestion: "set HOME to an absolute path, or name the file with --config" },
        );
      }
      if (home !== undefined) {
        ignored("HOME", home, `and the user database's home directory (${account}) is used`);
      }
      return account;
    },
  };
}

/**
 * The launch as a project configuration should hold it, for everyone who checks the project out: a path
 * inside the project in the client's project-relative form, and the runtime by its name when PATH finds
 * that very executable under it (`node`, not one machine's `/home/ada/.nvm/…/bin/node`). A path outside the
 * project stays absolute: nothing else names it.
 */
async function portableLaunch(
  client: McpClient,
  launch: ServerLaunch,
  project: string,
): Promise<ServerLaunch> {
  const inProject = (path: string): string | undefined => {
    const relative = portableRelativePath(project, path);
    return relative === undefined ? undefined : client.projectPath(relative);
  };
  const args = launch.args.map((arg) => inProject(arg) ?? arg);
  return { ...launch, command: inProject(launch.command) ?? await byName(launch.command), args };
}

// The runtime by its bare name when the first program of that name on PATH is this very executable. Only
// what this run may read is looked at: on Deno, anything else would stop for a permission prompt.
async function byName(command: string): Promise<string> {
  const name = command.slice(parentDir(command).length + 1);
  const path = optionalEnv("PATH");
  if (path === undefined || !mayRead(command)) return command;
  for (const dir of path.split(pathDelimiter())) {
    const candidate = joinPath(dir, name);
    if (dir === "" || !isAbsolutePath(dir) || !mayRead(candidate)) continue;
    if (await fileStamp(candidate) === undefined) continue;
    return await sameFile(candidate, command) ? name : command;
  }
  return command;
}

interface ConfigUpdate {
  client: McpClient;
  clientName: McpClientName;
  scope: ConfigScope;
  config: string;
  name: string;
  server: Record<string, unknown>;
  force: boolean;
}

function describe(update: ConfigUpdate): Record<string, unknown> {
  return {
    client: update.clientName,
    scope: update.scope,
    config: update.config,
    name: update.name,
    server: update.server,
  };
}

function merged(update: ConfigUpdate, bytes: Uint8Array | undefined) {
  return mergeServer(bytes === undefined ? undefined : decodeConfig(bytes, update.config), {
    path: update.config,
    client: update.client.title,
    jsonc: update.client.jsonc,
    serversKey: update.client.serversKey,
    name: update.name,
    entry: update.server,
    force: update.force,
  });
}

// The file the update changes, refused before anything is created or locked if it is not a regular file
// its owner lets us write.
async function targetFile(update: ConfigUpdate): Promise<ConfigFile> {
  const file = await resolveConfigFile(update.config);
  await assertWritable(file);
  return file;
}

// A dry run takes no lock and creates nothing, not even the directory: a rename-based writer never shows a
// torn file, so one read sees a whole configuration.
async function preview(update: ConfigUpdate): Promise<Record<string, unknown>> {
  const file = await targetFile(update);
  const bytes = file.existing === undefined ? undefined : await readRegularFile(file.path);
  const merge = merged(update, bytes);
  if (merge.change === "none") return { effect: "noop", ...describe(update), backup: null };
  return {
    effect: merge.change === "create" ? "would_create" : "would_update",
    ...describe(update),
    would_affect: {
      config: update.config,
      creates_file: bytes === undefined,
      keeps_backup: bytes !== undefined,
      servers_key: update.client.serversKey,
      before: merge.before,
      after: update.server,
    },
  };
}

async function apply(update: ConfigUpdate, signal: AbortSignal): Promise<Record<string, unknown>> {
  const file = await targetFile(update);
  const project = update.scope === "project";
  // A link's target is written where it is; only the client's own directory is created.
  if (!file.linked) await ensureDir(parentDir(file.path), project ? 0o755 : 0o700);
  try {
    return await withLockDirectory(file.path, async () => {
      const bytes = await readRegularFile(file.path);
      const merge = merged(update, bytes);
      if (merge.change === "none") {
        return { effect: "noop", ...describe(update), backup: null, next_step: update.client.reload };
      }
      const backup = bytes === undefined ? null : await keepBackup(file.path);
      try {
        // A project's file is checked in and read by the whole team: readable as any file there is.
        await replaceTextFile(file.path, merge.text, { newFileMode: project ? 0o644 : 0o600 });
      } catch (error) {
        if (backup !== null) await removeFile(backup);
        throw error;
      }
      return {
        effect: merge.change === "create" ? "created" : "updated",
        ...describe(update),
        backup,
        next_step: update.client.reload,
      };
    }, { signal });
  } catch (error) {
    if (!(error instanceof LockDirectoryTimeout)) throw error;
    throw new CommandError(
      ExitCode.UNAVAILABLE,
      `another process is changing ${update.config} (it holds ${error.lockPath})`,
      {
        suggestion: "retry once it is done; if no such process runs, remove the lock directory",
      },
    );
  }
}

// `<file>.<UTC time>.bak`, never overwriting an earlier backup: the first one may be the only copy of the
// file as the person wrote it.
async function keepBackup(real: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:.]/g, "");
  for (let attempt = 1;; attempt++) {
    const backup = `${real}.${stamp}${attempt === 1 ? "" : `-${attempt}`}.bak`;
    if (await copyFileExclusive(real, backup)) return backup;
  }
}

function serverEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const key = eq === -1 ? pair : pair.slice(0, eq);
    if (eq === -1 || !ENV_NAME.test(key)) {
      throw new CommandError(
        ExitCode.ARG_ERROR,
        `--env expects KEY=VALUE with KEY a variable name, got '${pair.slice(0, 80)}'`,
      );
    }
    if (Object.hasOwn(env, key)) throw new CommandError(ExitCode.ARG_ERROR, `--env sets ${key} twice`);
    env[key] = pair.slice(eq + 1);
  }
  return env;
}

const PERMISSION_CODES = new Set(["EACCES", "EPERM", "EROFS"]);
const SHAPE_CODES = new Set(["EISDIR", "ENOTDIR", "ELOOP"]);

// A file-system failure becomes a declared exit code with the path and the reason, never a stack trace.
async function fileErrors<T>(config: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof UnchangeableFile) throw refusal(error, config);
    if (error instanceof FileInUseError) {
      throw new CommandError(ExitCode.UNAVAILABLE, `${error.message}; ${config} was left as it is`, {
        suggestion: "close the program that has it open, or retry in a moment",
      });
    }
    const code = (error as { code?: unknown }).code;
    if (error instanceof CommandError || typeof code !== "string") throw error;
    if (PERMISSION_CODES.has(code)) {
      throw new CommandError(
        ExitCode.PERMISSION_DENIED,
        `cannot change ${config} (${code}); it was left as it is`,
        {
          suggestion:
            "check the permissions of the file and its directory, or use --config to name another file",
        },
      );
    }
    if (SHAPE_CODES.has(code)) {
      throw new CommandError(
        ExitCode.PRECONDITION,
        `${config} is not a file that can be changed (${code}); it was left as it is`,
      );
    }
    throw new CommandError(ExitCode.GENERAL_ERROR, `cannot change ${config} (${code}); it was left as it is`);
  }
}

function refusal(error: UnchangeableFile, config: string): CommandError {
  const named = error.path === config ? config : `${config} (${error.path})`;
  switch (error.reason) {
    case "not_regular":
      return new CommandError(
        ExitCode.PRECONDITION,
        `${error.message}${error.path === config ? "" : `, and ${config} leads there`}; it was left as it is`,
        { suggestion: "name a regular file with --config, or print the entry with --print" },
      );
    case "missing_directory":
      return new CommandError(
        ExitCode.PRECONDITION,
        `${config} is a symbolic link, and ${error.message}; nothing was created`,
        { suggestion: "create that directory, or point the link at an existing one" },
      );
    case "read_only":
      return new CommandError(
        ExitCode.PERMISSION_DENIED,
        `${error.message.replace(error.path, named)}; it was left as it is`,
        { suggestion: "make it writable (chmod u+w) to have it changed, or print the entry with --print" },
      );
    case "owner":
      return new CommandError(
        ExitCode.PERMISSION_DENIED,
        `${error.message.replace(error.path, named)}; it was left as it is`,
        { suggestion: "run this as the file's owner, or print the entry with --print and add it yourself" },
      );
  }
}
