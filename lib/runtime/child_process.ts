import type * as NodeChildProcess from "node:child_process";
import { nodeProcess } from "./node_process.ts";
import type { Readable } from "node:stream";
import { SIGNAL_NUMBERS } from "./process.ts";
import { type ChildGroup, liveGroups } from "./child_groups.ts";
import { resolveProgram } from "./program_resolution.ts";
import { currentHost } from "./program_host.ts";
import { killProcessTree } from "./process_tree.ts";

/** How a child process ended. `code` is normalised to 128+N when a signal ended it. */
export interface ChildExit {
  /** The exit code; 128+N when the child died by signal N; 127 (126) when it could not be started. */
  code: number;
  /** The signal that ended the child, if any. */
  signal: string | null;
  /** Why the program could not be started at all (`ENOENT`, `EACCES`, …); absent once it ran. */
  spawnError?: string;
}

/** Options for {@linkcode spawnChild}. */
export interface SpawnOptions {
  /** Working directory. @default the current one */
  cwd?: string;
  /** The child's whole environment. @default the parent's */
  env?: Record<string, string>;
  /** `"pipe"` gives a writable stdin; `"null"` gives the child an empty stdin that is at EOF at once. @default "pipe" */
  stdin?: "pipe" | "null";
}

/** A running child process with its standard streams as Web Streams. */
export interface ChildProcess {
  /** The child's process id. */
  readonly pid: number;
  /** The child's stdin, or `null` when spawned with `stdin: "null"`. */
  readonly stdin: WritableStream<Uint8Array> | null;
  /** The child's stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The child's stderr. */
  readonly stderr: ReadableStream<Uint8Array>;
  /**
   * Settles when the child itself has exited. Its pipes may stay open after that: a process it started can
   * hold them for as long as it lives.
   */
  readonly exited: Promise<ChildExit>;
  /**
   * Sends a signal to the child's whole process group, so grandchildren end with it — also once the child
   * itself has exited, for as long as anything is left in the group. A no-op once the group is found empty.
   * Returns whether anyone was left to signal. On Windows, while the child is alive, its whole process tree
   * is ended at once (`taskkill /T /F`), whatever the signal; after its exit nothing can be found.
   */
  kill(signal?: "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGHUP"): boolean;
  /**
   * Whether anything is left in the child's process group: the child, or what it started there. Once the
   * group is found empty it is forgotten — its id may be reused — and never signalled again.
   */
  groupAlive(): boolean;
}

const SIGNUMS: Record<string, number> = {
  ...SIGNAL_NUMBERS,
  SIGKILL: 9,
  SIGPIPE: 13,
  SIGQUIT: 3,
  SIGABRT: 6,
};

/**
 * `node:child_process`, loaded on first spawn: most invocations never start a child
 * (docs/performance.md#what-a-start-costs).
 */
function childProcessModule(): typeof NodeChildProcess {
  return nodeProcess().getBuiltinModule("node:child_process") as typeof NodeChildProcess;
}

/**
 * `node:stream`, likewise on first spawn: a static import would cost every start.
 */
function streamModule(): typeof import("node:stream") {
  return nodeProcess().getBuiltinModule("node:stream");
}

/**
 * Spawns a program without a shell — arguments are passed as they are, so nothing in them is interpreted —
 * in a process group of its own. Every child's group is tracked until it is found empty, also after the
 * child itself exited; `killAllChildren` (child_groups.ts) ends them all when the parent ends. On Windows
 * the program is found and started as program_resolution.ts says (`npx` is an npm shim run as node.exe),
 * with no console window.
 *
 * @example
 * ```ts
 * const child = spawnChild("ls", ["-l"], { stdin: "null" });
 * const text = await new Response(child.stdout).text();
 * const { code } = await child.exited;
 * ```
 */
export function spawnChild(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): ChildProcess {
  const process = nodeProcess();
  const windows = process.platform === "win32";
  const launch = windows
    ? resolveProgram(command, args, currentHost({ env: options.env, cwd: options.cwd }))
    : { file: command, args: [...args], verbatim: false };
  if ("error" in launch) return unstarted(`${launch.error}: ${launch.detail}`);
  let node: ReturnType<typeof NodeChildProcess.spawn>;
  try {
    node = childProcessModule().spawn(launch.file, launch.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === "null" ? "ignore" : "pipe", "pipe", "pipe"],
      detached: !windows,
      // No console window flashes up for each call of a bridged CLI.
      windowsHide: true,
      windowsVerbatimArguments: launch.verbatim,
    });
  } catch (error) {
    // Out of file descriptors or processes, the runtime may refuse at once instead of with an `error` event.
    return unstarted((error as { code?: string }).code ?? errorText(error));
  }
  const exited = new Promise<ChildExit>((resolve) => {
    node.once("error", (error: Error & { code?: string }) => {
      // The shell's conventions: 127 for a program that is not there, 126 for one that cannot run.
      resolve({
        code: error.code === "EACCES" ? 126 : 127,
        signal: null,
        spawnError: error.code ?? error.message,
      });
    });
    // "exit", not "close": "close" waits for the pipes, which a grandchild may hold open forever.
    node.once("exit", (code, signal) => {
      resolve({ code: code ?? 128 + (SIGNUMS[signal ?? ""] ?? 0), signal: code === null ? signal : null });
    });
  });
  let groupEmpty = node.pid === undefined;
  const forget = () => {
    groupEmpty = true;
    liveGroups.delete(tracked);
  };
  // Signal 0 only asks whether anyone is left in the group.
  const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
    if (groupEmpty) return false;
    try {
      process.kill(-node.pid!, signal);
      return true;
    } catch {
      // ESRCH: nobody is left. The group's id may be reused from now on, so it is never signalled again.
      forget();
      return false;
    }
  };
  const child: ChildProcess = {
    pid: node.pid ?? -1,
    stdin: node.stdin
      ? (streamModule().Writable.toWeb(node.stdin) as unknown as WritableStream<Uint8Array>)
      : null,
    stdout: node.stdout ? endOnError(node.stdout) : emptyStream(),
    stderr: node.stderr ? endOnError(node.stderr) : emptyStream(),
    exited,
    kill(signal = "SIGTERM") {
      if (!windows) return signalGroup(signal);
      if (groupEmpty || node.exitCode !== null || node.signalCode !== null) return false;
      // Windows has no signals to send from outside and no groups: the tree is ended while the child is
      // alive to be walked from (the node.exe of an npm bin, and what it started). Should taskkill not
      // start, the child itself is ended.
      return killProcessTree(node.pid!) || node.kill(signal);
    },
    groupAlive: () => (windows ? !groupEmpty : signalGroup(0)),
  };
  const tracked: ChildGroup = { kill: (signal) => child.kill(signal), exited: false };
  if (!groupEmpty) liveGroups.add(tracked);
  void exited.then(() => {
    tracked.exited = true;
    // Windows has no process groups: the child was all there was.
    if (windows) forget();
    else child.groupAlive();
  });
  return child;
}

/** A child that could not be started: it exits at once, with why, and has nothing to read. */
function unstarted(reason: string): ChildProcess {
  return {
    pid: -1,
    stdin: null,
    stdout: emptyStream(),
    stderr: emptyStream(),
    exited: Promise.resolve({ code: 127, signal: null, spawnError: reason }),
    kill: () => false,
    groupAlive: () => false,
  };
}

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A child's output pipe as a Web stream that ends instead of failing: Deno tears down the pipes of a child
 * that never started with an AbortError, Node ends them. Either way the pipe has nothing more to give, and
 * the child's exit says why.
 */
function endOnError(pipe: Readable): ReadableStream<Uint8Array> {
  const source = (streamModule().Readable.toWeb(pipe) as unknown as ReadableStream<Uint8Array>).getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await source.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch {
        controller.close();
      }
    },
    // The pipe itself is destroyed, not cancelled through the adapter: Deno's adapter rejects a promise
    // nobody holds when it destroys the pipe, an unhandled rejection that ends the process.
    cancel: () => {
      pipe.destroy();
    },
  });
}
