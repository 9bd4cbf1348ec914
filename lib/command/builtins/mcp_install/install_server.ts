import { CommandError } from "../../contract/command_error.ts";
import type { CommandContext } from "../../contract/contract.ts";
import { ExitCode } from "../../../exit_code.ts";
import {
  currentDir,
  ensureDir,
  getEnv,
  homeDir,
  joinPath,
  readTextIfExists,
  removeFile,
} from "../../../runtime/mod.ts";
import {
  absolutePath,
  copyFileExclusive,
  LockDirectoryTimeout,
  parentDir,
  realFilePath,
  replaceTextFile,
  withLockDirectory,
} from "../../../runtime/config_file.ts";
import { platformName, selfLaunch } from "../../../runtime/launch.ts";
import { mergeServer } from "./config_merge.ts";
import { type ConfigScope, MCP_CLIENTS, type McpClient, type McpClientName } from "./mcp_clients.ts";
import type { McpInstallFlags, ServeTarget } from "../mcp_install_command.ts";

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
 * import type { McpInstallFlags } from "../mcp_install_command.ts";
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
  const launch = selfLaunch();
  if (launch === undefined) {
    throw new CommandError(
      ExitCode.PRECONDITION,
      "cannot tell how this tool was started: it has no entry script",
      {
        suggestion: "run the tool from its script or binary, not from an eval",
      },
    );
  }
  if (launch.caveat !== undefined) ctx.warn({ code: "LAUNCH_CAVEAT", message: launch.caveat });
  const serveArgs = [...target.serveArgs, ...(ctx.flags["read-only"] ? ["--read-only"] : [])];
  const server = client.entry({ command: launch.command, args: [...launch.args, ...serveArgs], env });
  if (ctx.flags.print) {
    return { effect: "noop", client: clientName, name, snippet: { [client.serversKey]: { [name]: server } } };
  }

  const place = { home: homeDir(), platform: platformName(), cwd: currentDir(), env: getEnv, join: joinPath };
  const config = absolutePath(ctx.flags.config ?? client.configPath(scope, place));
  const update: ConfigUpdate = { client, clientName, scope, config, name, server, force: ctx.flags.force };
  return await fileErrors(config, () => ctx.dryRun ? preview(update) : apply(update, ctx.signal));
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

function merged(update: ConfigUpdate, original: string | undefined) {
  return mergeServer(original, {
    path: update.config,
    serversKey: update.client.serversKey,
    name: update.name,
    entry: update.server,
    force: update.force,
  });
}

// A dry run takes no lock and creates nothing, not even the directory: a rename-based writer never shows a
// torn file, so one read sees a whole configuration.
async function preview(update: ConfigUpdate): Promise<Record<string, unknown>> {
  const original = await readTextIfExists(await realFilePath(update.config));
  const merge = merged(update, original);
  if (merge.change === "none") return { effect: "noop", ...describe(update), backup: null };
  return {
    effect: merge.change === "create" ? "would_create" : "would_update",
    ...describe(update),
    would_affect: {
      config: update.config,
      creates_file: original === undefined,
      keeps_backup: original !== undefined,
      servers_key: update.client.serversKey,
      before: merge.before,
      after: update.server,
    },
  };
}

async function apply(update: ConfigUpdate, signal: AbortSignal): Promise<Record<string, unknown>> {
  const real = await realFilePath(update.config);
  await ensureDir(parentDir(real));
  try {
    return await withLockDirectory(real, async () => {
      const original = await readTextIfExists(real);
      const merge = merged(update, original);
      if (merge.change === "none") {
        return { effect: "noop", ...describe(update), backup: null, next_step: update.client.reload };
      }
      const backup = original === undefined ? null : await keepBackup(real);
      try {
        await replaceTextFile(real, merge.text);
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
