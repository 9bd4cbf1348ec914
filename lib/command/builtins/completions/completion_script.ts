import type { FlagSpec } from "../../contract/command_definition.ts";
import type { CommandEntry } from "../../contract/manifest.ts";
import { bashCompletion } from "./bash_completion.ts";
import { type CompletionModel, completionModel } from "./completion_model.ts";
import { fishCompletion } from "./fish_completion.ts";
import { zshCompletion } from "./zsh_completion.ts";

const WRITERS: Readonly<Record<"bash" | "zsh" | "fish", (model: CompletionModel) => string>> = {
  bash: bashCompletion,
  zsh: zshCompletion,
  fish: fishCompletion,
};

/** A shell `tool completions` writes a script for. */
export type CompletionShell = keyof typeof WRITERS;

/**
 * The completion script of a tool for one shell, from its manifest's `commands` and the global flags. The
 * built-in `completions` loads this module only when it runs: no other invocation needs the script writers.
 *
 * @example
 * ```ts
 * import type { Manifest } from "@toolwire/toolwire";
 * import { GLOBAL_FLAGS } from "../../contract/framework_flags.ts";
 *
 * declare const manifest: Manifest; // the data of `notes manifest`
 * const script = completionScript("bash", "notes", manifest.commands, GLOBAL_FLAGS);
 * ```
 */
export function completionScript(
  shell: CompletionShell,
  program: string,
  commands: Readonly<Record<string, CommandEntry>>,
  globalFlags: Readonly<Record<string, FlagSpec>>,
): string {
  return WRITERS[shell](completionModel(program, commands, globalFlags));
}
