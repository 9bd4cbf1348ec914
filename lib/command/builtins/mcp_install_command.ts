import type { CommandContext, CommandDefinition } from "../contract/command_definition.ts";
import { MCP_INSTALL_FLAGS, type McpInstallFlags, type ServeTarget } from "./mcp_install/install_flags.ts";
import type { ToolHost } from "../contract/tool_host.ts";

/**
 * Registers `target` as a stdio server with the client `--client` names: the entry starts this very tool
 * (its runtime, entry script, then `target.serveArgs`), and is merged into the client's configuration under
 * the lock of that file, a backup of the old file kept beside it. `--print` returns the snippet only, and
 * `--dry-run` what would change; neither writes anything.
 *
 * @example
 * ```ts
 * import type { McpInstallFlags } from "./mcp_install/install_flags.ts";
 * import type { CommandContext } from "@toolwire/toolwire";
 *
 * declare const ctx: CommandContext<McpInstallFlags>;
 * const result = await installMcpServer(ctx, { serveArgs: ["mcp", "serve"], defaultName: "notes" });
 * ```
 */
export async function installMcpServer(
  ctx: CommandContext<McpInstallFlags>,
  target: ServeTarget,
): Promise<Record<string, unknown>> {
  // The work is loaded on first use: no other invocation of any tool needs it, and it is the largest
  // built-in (in the build it sits in the second chunk, docs/architecture.md#the-bundle).
  const { installServer } = await import("./mcp_install/install_server.ts");
  return await installServer(ctx, target);
}

/**
 * The built-in `mcp install` definition, as {@linkcode ToolOptions.extendMcpInstall} receives it.
 *
 * @example
 * ```ts
 * const extend = (builtin: McpInstallDefinition) => ({ ...builtin, description: "Register the hub" });
 * ```
 */
export type McpInstallDefinition = CommandDefinition<McpInstallFlags> & { flags: McpInstallFlags };

/**
 * Registers `mcp.install` on a tool: the built-in — register the tool's own `mcp serve` with an MCP client —
 * or, with `extend` ({@linkcode ToolOptions.extendMcpInstall}), a definition built from it. An extension that
 * serves more (toolwire's `--exec`) adds its flags and calls {@linkcode installMcpServer} with the `mcp serve`
 * arguments they need, or `builtin.run(ctx)` for the plain case.
 *
 * @example
 * ```ts
 * import type { Tool, ToolOptions } from "@toolwire/toolwire";
 *
 * declare const tool: Tool;
 * declare const options: ToolOptions;
 * registerMcpInstall(tool, options.extendMcpInstall);
 * ```
 */
export function registerMcpInstall<const F extends McpInstallFlags>(
  tool: ToolHost,
  extend?: (builtin: McpInstallDefinition) => CommandDefinition<F>,
): void {
  if (extend === undefined) {
    tool.registry.registerBuiltin("mcp.install", builtinDefinition.bind(undefined, tool), undefined, false);
  } else {tool.registry.register(
      "mcp.install",
      extend(builtinDefinition(tool)) as unknown as CommandDefinition,
    );}
}

function builtinDefinition(tool: ToolHost): McpInstallDefinition {
  return {
    description:
      "Register this tool's MCP server with an MCP client (Claude Desktop, Claude Code, VS Code, Cursor)",
    danger_level: "mutating",
    required_scopes: [],
    // A person wires up their own client; an agent never rewrites its client's configuration through MCP.
    mcp: false,
    supports_dry_run: true,
    flags: MCP_INSTALL_FLAGS,
    exit_codes: {
      "0": {
        name: "SUCCESS",
        description:
          "The server is registered (effect created or updated), was already (noop), or the snippet or preview is printed",
        retryable: false,
        side_effects: "complete",
      },
      "4": {
        name: "PRECONDITION",
        description:
          "The configuration is not a regular file with a JSON object the client reads, or has a key twice; left as it is",
        retryable: false,
        side_effects: "none",
      },
      "6": {
        name: "CONFLICT",
        description:
          "A server of that name has another entry (--force replaces it), or the idempotency key was reused; nothing changed",
        retryable: false,
        side_effects: "none",
      },
      "7": {
        name: "PERMISSION_DENIED",
        description:
          "The configuration is read-only, or it or its directory cannot be written; it was left as it is",
        retryable: false,
        side_effects: "none",
      },
      "12": {
        name: "UNAVAILABLE",
        description:
          "Another process kept the configuration locked, or on Windows another program kept it open; nothing was changed",
        retryable: true,
        side_effects: "none",
      },
    },
    examples: [
      {
        description: "Register with Claude Desktop",
        command: `${tool.name} mcp install --client claude-desktop`,
      },
      {
        description: "Show what would change in this project's VS Code configuration",
        command: `${tool.name} mcp install --client vscode --dry-run`,
      },
      {
        description: "Print the entry to paste yourself",
        command: `${tool.name} mcp install --client cursor --print`,
      },
      {
        description: "Replace an older registration, with an environment variable",
        command:
          `${tool.name} mcp install --client claude-code --env ${tool.envPrefix}_HOME=/srv/${tool.name} --force`,
      },
    ],
    run: (ctx) =>
      installMcpServer(ctx, {
        serveArgs: ["mcp", "serve"],
        defaultName: tool.name,
        ...(tool.denoPermissions === undefined ? {} : { denoPermissions: tool.denoPermissions }),
      }),
    plain: renderInstall,
  };
}

function renderInstall(data: unknown): string {
  const result = data as Record<string, unknown>;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  if (result.snippet !== undefined) return json(result.snippet);
  const where = `'${String(result.name)}' in ${String(result.config)}`;
  switch (result.effect) {
    case "noop":
      return `MCP server ${where} is registered already, unchanged`;
    case "would_create":
    case "would_update": {
      const affect = result.would_affect as Record<string, unknown>;
      const lines = [`would ${result.effect === "would_create" ? "add" : "replace"} MCP server ${where}:`];
      if (affect.before !== null) lines.push(`before: ${json(affect.before)}`);
      lines.push(`after: ${json(affect.after)}`);
      if (affect.creates_file === true) lines.push("(the file would be created)");
      if (affect.keeps_backup === true) lines.push("(a backup of the file would be kept beside it)");
      return lines.join("\n");
    }
    default: {
      const lines = [`${result.effect === "created" ? "added" : "replaced"} MCP server ${where}`];
      if (typeof result.backup === "string") lines.push(`backup: ${result.backup}`);
      lines.push(`next: ${String(result.next_step)}`);
      return lines.join("\n");
    }
  }
}
