/**
 * Colour for people at a terminal, decided in one place. Only plain output and help are ever styled, never
 * JSON mode and never a protocol's stdout; within plain output, a stream is styled when it is a terminal,
 * unless the environment says otherwise:
 *
 * - `NO_COLOR` set to anything but the empty string: never (an explicit opt-out wins);
 * - `FORCE_COLOR=0` or `FORCE_COLOR=false`: never;
 * - `FORCE_COLOR` set to anything else but the empty string: always, even into a pipe;
 * - `TERM=dumb`: never.
 *
 * An empty value counts as unset, and so does a variable the runtime may not read (Deno without
 * `--allow-env`).
 * @module
 */
import { isTerminal, optionalEnv } from "../../runtime/mod.ts";
import type { OutputFormat } from "../contract/command_definition.ts";

/** How text is marked up for one stream: modest ANSI styles, or none at all. */
export interface TextStyle {
  /** The label of an error (`error:`): red. */
  error(text: string): string;
  /** The label of a warning (`warning:`): yellow. */
  warning(text: string): string;
  /** A heading (`Usage:`, `Flags:`, a table's header row): bold. */
  heading(text: string): string;
}

const ESC = "\u001b[";

/**
 * No styling: text as it is.
 *
 * @example
 * ```ts
 * NO_STYLE.error("error:"); // "error:"
 * ```
 */
export const NO_STYLE: TextStyle = {
  error: (text) => text,
  warning: (text) => text,
  heading: (text) => text,
};

/**
 * ANSI styling: red, yellow, bold, each reset on its own so styles never leak past the text.
 *
 * @example
 * ```ts
 * ANSI_STYLE.heading("Usage:"); // "\u001b[1mUsage:\u001b[22m"
 * ```
 */
export const ANSI_STYLE: TextStyle = {
  error: (text) => `${ESC}31m${text}${ESC}39m`,
  warning: (text) => `${ESC}33m${text}${ESC}39m`,
  heading: (text) => `${ESC}1m${text}${ESC}22m`,
};

/**
 * Whether colour is wanted on a stream, from `NO_COLOR`, `FORCE_COLOR`, `TERM` and whether the stream is a
 * terminal (see the module's rules). Does not look at the output format: {@linkcode textStyle} does.
 *
 * @example
 * ```ts
 * if (colourWanted("stderr")) console.error("\u001b[31merror:\u001b[39m disk full");
 * ```
 */
export function colourWanted(stream: "stdout" | "stderr"): boolean {
  const noColor = optionalEnv("NO_COLOR");
  if (noColor !== undefined && noColor !== "") return false;
  const force = optionalEnv("FORCE_COLOR");
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return isTerminal(stream) && optionalEnv("TERM") !== "dumb";
}

/**
 * The style of a stream for an output format: ANSI colour for plain output where {@linkcode colourWanted},
 * none in JSON mode.
 *
 * @example
 * ```ts
 * const style = textStyle("stderr", "plain");
 * console.error(`${style.error("error:")} the disk is full`);
 * ```
 */
export function textStyle(stream: "stdout" | "stderr", format: OutputFormat): TextStyle {
  return format === "plain" && colourWanted(stream) ? ANSI_STYLE : NO_STYLE;
}
