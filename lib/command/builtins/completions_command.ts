import { CommandError } from "../contract/command_error.ts";
import { ExitCode } from "../../exit_code.ts";
import { GLOBAL_FLAGS } from "../contract/framework_flags.ts";
import { quote } from "../input/input_values.ts";
import type { ToolHost } from "../contract/tool_host.ts";
import type { CommandDefinition } from "../contract/command_definition.ts";
import type { CompletionShell } from "./completions/completion_script.ts";

/** The shells `tool completions` writes a script for. */
const SHELLS = ["bash", "zsh", "fish"] as const;

/**
 * Registers the built-in `completions` on a tool; every tool has it.
 *
 * @example
 * ```ts
 * import type { Tool } from "@toolwire/toolwire";
 *
 * declare const tool: Tool; // a tool being built, before its own commands
 * registerCompletions(tool);
 * ```
 */
export function registerCompletions(tool: ToolHost): void {
  tool.registry.registerBuiltin("completions", completionsDefinition.bind(undefined, tool), undefined, false);
}

function completionsDefinition(
  tool: ToolHost,
): CommandDefinition<Record<never, never>, readonly [{ name: "shell"; description: string }]> {
  return {
    description: "Print a shell completion script for this tool's commands, flags and enum values",
    danger_level: "safe",
    required_scopes: [],
    // Nothing an agent calls through MCP: the script is for a person's interactive shell.
    mcp: false,
    // The script is a file's content: `tool completions bash > file` must write the script, not an envelope.
    default_format: "plain",
    output_media_types: ["text/x-shellscript"],
    positionals: [{ name: "shell", description: `The shell: ${SHELLS.join(", ")}` }],
    exit_codes: {
      "0": { name: "SUCCESS", description: "The script, on stdout", retryable: false, side_effects: "none" },
    },
    examples: [
      { description: "Load completions into this bash", command: `source <(${tool.name} completions bash)` },
      {
        description: "Install them for zsh",
        command: `${tool.name} completions zsh > "\${fpath[1]}/_${tool.name}"`,
      },
      {
        description: "Install them for fish",
        command: `${tool.name} completions fish > ~/.config/fish/completions/${tool.name}.fish`,
      },
      {
        description: "The script inside one envelope",
        command: `${tool.name} completions bash --format json`,
      },
    ],
    run: async (ctx) => {
      const shell = ctx.args.shell;
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new CommandError(
          ExitCode.ARG_ERROR,
          `shell expects one of ${SHELLS.join(", ")}, got ${quote(shell)}`,
          {
            suggestion: `run '${tool.name} completions bash' (or zsh, fish)`,
          },
        );
      }
      // Loaded here, not at startup: every other invocation of every tool would compile the script writers
      // for nothing (in the build they sit in the second chunk, docs/architecture.md#the-bundle).
      const { completionScript } = await import("./completions/completion_script.ts");
      const script = completionScript(
        shell as CompletionShell,
        tool.name,
        tool.registry.entries(),
        GLOBAL_FLAGS,
      );
      return { shell, script: `${script}\n` };
    },
    // Plain output adds its own newline after the text.
    plain: (data) => (data as { script: string }).script.replace(/\n$/, ""),
  };
}
