import { isDirectory } from "../runtime/file_probes.ts";
import { platformName } from "../runtime/process.ts";
import { lastLine, runChild, STDOUT_BYTES, textTail } from "./child_run.ts";
import { CommandError } from "../command/contract/command_error.ts";
import { quoteCommandLine } from "./command_line.ts";
import { readEnvelope } from "../command/contract/envelope_validation.ts";
import { ExitCode } from "../exit_code.ts";
import type { Manifest } from "../command/contract/manifest.ts";
import { validateManifest } from "../command/contract/manifest_validation.ts";
import type { ExecTarget } from "./exec_catalog.ts";

/**
 * Reads and checks another program's manifest: runs `<cli> --format json manifest` (no shell, empty stdin,
 * in `target.cwd`, with `target.env`), takes the last stdout line as an envelope and validates its data with
 * {@linkcode validateManifest}. Fails with a {@linkcode CommandError}: NOT_FOUND when the program or the
 * working directory is not there, PRECONDITION when the program runs but prints no valid manifest — each with
 * what was wrong and what the program wrote to stderr. A top-level member the manifest format does not
 * define (a `tool` object some frameworks add) does not make it invalid: the commands are what is read, and
 * `warn` is told the member's name. `signal` stops the program (a phase-1 time limit, a signal).
 *
 * @example
 * ```ts
 * const target = { argv: ["python3", "tool.py"], callTimeoutMs: 60_000 };
 * const manifest = await loadExecManifest(target, AbortSignal.timeout(10_000), (message) => console.error(message));
 * ```
 */
export async function loadExecManifest(
  target: ExecTarget,
  signal: AbortSignal,
  warn: (message: string) => void = () => {},
): Promise<Manifest> {
  return (await fetchExecManifest(target, signal, undefined, 0, warn))!;
}

/**
 * {@linkcode loadExecManifest} for a manifest already held: asks `<cli> --format json manifest --etag <held>`
 * and resolves `undefined` when the CLI answers that it is unchanged (`meta.not_modified`), else the new
 * manifest, checked the same way. A CLI that does not know `--etag` is asked for its whole manifest instead,
 * which is compared by its etag. Each ask may take `timeoutMs` (0 = no limit): a CLI that takes longer has
 * its process group stopped, and this fails with TIMEOUT.
 *
 * @example
 * ```ts
 * const target = { argv: ["python3", "tool.py"], callTimeoutMs: 60_000 };
 * const manifest = await loadExecManifest(target, AbortSignal.timeout(10_000));
 * const changed = await reloadExecManifest(target, manifest.etag, AbortSignal.timeout(10_000), 10_000);
 * if (changed !== undefined) console.error(`the CLI changed: ${changed.etag}`);
 * ```
 */
export async function reloadExecManifest(
  target: ExecTarget,
  held: string,
  signal: AbortSignal,
  timeoutMs = 0,
): Promise<Manifest | undefined> {
  let fresh: Manifest | undefined;
  try {
    fresh = await fetchExecManifest(target, signal, held, timeoutMs);
  } catch (error) {
    // An unknown --etag flag is an ARG_ERROR envelope: that CLI is asked plainly.
    if (!(error instanceof CommandError && error.options.details?.refused_etag === true)) throw error;
    fresh = await fetchExecManifest(target, signal, undefined, timeoutMs);
  }
  return fresh === undefined || fresh.etag === held ? undefined : fresh;
}

/**
 * What to do when the program of a command line cannot be started, for the flag that named it; on Windows
 * it says how the program is looked for, since `npx` and every npm bin there is a `.cmd` file.
 *
 * @example
 * ```ts
 * programHint("--exec", "linux"); // "--exec must start with a program on PATH or the path of an executable file"
 * ```
 */
export function programHint(flag: string, platform: string = platformName()): string {
  const hint = `${flag} must start with a program on PATH or the path of an executable file`;
  if (platform !== "win32") return hint;
  return `${hint}: on Windows it is looked for in the working directory, then on Path, with each extension of PATHEXT (npx is npx.cmd), and an npm bin runs as node.exe and its script`;
}

async function fetchExecManifest(
  target: ExecTarget,
  signal: AbortSignal,
  held: string | undefined,
  timeoutMs = 0,
  warn: (message: string) => void = () => {},
): Promise<Manifest | undefined> {
  if (target.cwd !== undefined && !(await isDirectory(target.cwd))) {
    throw new CommandError(ExitCode.NOT_FOUND, `--cwd ${target.cwd} is not a directory`, {
      suggestion: "pass an existing directory to --cwd",
    });
  }
  const argv = [
    ...target.argv,
    "--format",
    "json",
    "manifest",
    ...(held === undefined ? [] : ["--etag", held]),
  ];
  const shown = quoteCommandLine(argv);
  const run = await runChild(argv, {
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    ...(target.env === undefined ? {} : { env: target.env }),
    ...(target.maxOutputBytes === undefined ? {} : { maxStdoutBytes: target.maxOutputBytes }),
    timeoutMs,
    signal,
  });
  if (run.ending === "cancelled") throw signal.reason;
  if (run.ending === "timeout") {
    throw new CommandError(
      ExitCode.TIMEOUT,
      `'${shown}' did not answer within ${timeoutMs / 1000} s; its process group was stopped`,
      { details: { command: shown } },
    );
  }
  if (run.exit.spawnError !== undefined) {
    throw new CommandError(ExitCode.NOT_FOUND, `cannot start '${target.argv[0]}' (${run.exit.spawnError})`, {
      suggestion: programHint("--exec"),
      details: { command: shown },
    });
  }
  const stderr = run.stderrTail.trim();
  const refuse = (problem: string, details: Record<string, unknown> = {}) =>
    new CommandError(ExitCode.PRECONDITION, `'${shown}' ${problem}`, {
      suggestion:
        "--exec needs a CLI that prints its manifest as a ResponseEnvelope: `<cli> --format json manifest`",
      details: {
        command: shown,
        exit_code: run.exit.code,
        ...details,
        stdout_tail: textTail(run.stdout, 512),
        stderr_tail: textTail(stderr, 512),
      },
    });
  const read = readEnvelope(lastLine(run.stdout));
  if (!("envelope" in read)) {
    const dropped = run.stdoutDropped === 0
      ? ""
      : ` (its stdout was cut to its last ${target.maxOutputBytes ?? STDOUT_BYTES} bytes)`;
    throw refuse(
      `exited ${run.exit.code} without an envelope on its last stdout line: ${
        read.problems.join("; ")
      }${dropped}`,
    );
  }
  const { envelope } = read;
  if (!envelope.ok) {
    const refusedEtag = held !== undefined && envelope.error?.code === "ARG_ERROR";
    throw refuse(
      `failed: ${envelope.error?.code}: ${envelope.error?.message}`,
      refusedEtag ? { refused_etag: true } : {},
    );
  }
  if (
    held !== undefined && envelope.data === null &&
    (envelope.meta as Record<string, unknown>).not_modified === true
  ) return undefined;
  // Strict in what toolwire prints, liberal in what it reads: a member beside the four is named, not fatal.
  const found = validateManifest(envelope.data);
  const issues = found.filter((issue) => issue.unknownMember !== true);
  if (issues.length > 0) {
    const shownIssues = issues.slice(0, 5).map((issue) => issue.message).join("; ");
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : "";
    throw refuse(`printed an invalid manifest: ${shownIssues}${more}`, { issues });
  }
  for (const issue of found) {
    if (issue.unknownMember === true) {
      warn(
        `'${shown}' printed a manifest with the top-level member '${issue.field}', which the manifest format does not define; it is ignored and the commands are served`,
      );
    }
  }
  return envelope.data as Manifest;
}
