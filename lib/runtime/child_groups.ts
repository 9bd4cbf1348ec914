/**
 * The process groups of the children this process started, which {@linkcode killAllChildren} ends when it
 * ends. Apart from spawning (child_process.ts), which only a bridge or a tool's own handler does: ending them
 * is part of every exit, so this is all an exit loads.
 * @module
 */

/** A child's process group as {@linkcode killAllChildren} sees it. */
export interface ChildGroup {
  /** Signals the whole group; whether anyone was left. */
  kill(signal: "SIGTERM" | "SIGKILL"): boolean;
  /** Whether the child itself has exited (its group may still hold what it started). */
  exited: boolean;
}

/**
 * The groups not yet found empty: spawning adds one, and it is deleted once found empty.
 *
 * @example
 * ```ts
 * declare const group: ChildGroup;
 * liveGroups.add(group);
 * ```
 */
export const liveGroups: Set<ChildGroup> = new Set();

/**
 * Ends every process group this process spawned and that is not known to be empty (REQ-C-032: every child
 * the server started ends with it). A group whose child has already exited holds only what that child left
 * behind — it was told to end when the child exited — and gets SIGKILL: the parent is about to exit and
 * cannot wait for it.
 *
 * @example
 * ```ts
 * import { exitProcess } from "./process.ts";
 *
 * killAllChildren();
 * exitProcess(0);
 * ```
 */
export function killAllChildren(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
  for (const group of [...liveGroups]) group.kill(group.exited ? "SIGKILL" : signal);
}
