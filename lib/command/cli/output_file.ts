import { parentDir, writeTextAtomic } from "../../runtime/mod.ts";
import { pathKind, probeCreate } from "../../runtime/path_checks.ts";
import { makeEnvelope, type ResponseEnvelope } from "../contract/envelope.ts";
import { ExitCode } from "../../exit_code.ts";
import type { InputIssue } from "../input/input_values.ts";
import { errorMessage } from "../run/thrown_error.ts";

/** Plain words for the file-system errors a path can meet; anything else is shown by its code. */
const REASONS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many levels of symbolic links",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is not a directory",
  ENOENT: "no such file or directory",
  EEXIST: "it already exists",
  EBUSY: "another program holds it open",
};

/**
 * Why `--output <file>` could not be written, found before the command runs, so that a bad target is an
 * ARG_ERROR with nothing done rather than a failure after the work: the path must not be empty, must not
 * name a directory or anything but a regular file (the file is replaced by a rename, which would replace a
 * device or a FIFO too), and its directory must exist and take a new file now — which is tried by creating
 * and removing an empty one, since permission bits say nothing to root, a read-only mount or `/proc`.
 * `undefined` when the file can be written.
 *
 * @example
 * ```ts
 * const issue = await outputFileIssue("/tmp/no/such/dir/report.json");
 * issue?.message; // "--output '/tmp/no/such/dir/report.json': the directory '/tmp/no/such/dir' does not exist"
 * ```
 */
export async function outputFileIssue(file: string): Promise<InputIssue | undefined> {
  const problem = await targetProblem(file);
  if (problem === undefined) return undefined;
  return {
    field: "--output",
    message: `--output ${problem}`,
    suggestion: "give --output a file path in an existing, writable directory",
  };
}

async function targetProblem(file: string): Promise<string | undefined> {
  if (file === "") return "expects a file path, got ''";
  const parent = parentDir(file);
  try {
    const kind = await pathKind(file);
    if (kind === "directory") return `'${file}' is a directory; give a file path`;
    if (kind === "other") return `'${file}' is not a regular file (a device, a FIFO or a socket)`;
    const parentKind = await pathKind(parent);
    if (parentKind === "missing") return `'${file}': the directory '${parent}' does not exist`;
    if (parentKind !== "directory") return `'${file}': '${parent}' is not a directory`;
  } catch (error) {
    return `'${file}' cannot be checked: ${reason(error)}`;
  }
  try {
    // The same name length as the temporary file of the real write, so a name too long fails here too.
    await probeCreate(`${file}.${crypto.randomUUID()}.tmp`);
  } catch (error) {
    return `'${file}': cannot create a file in '${parent}': ${reason(error)}`;
  }
  return undefined;
}

/**
 * Writes a successful envelope's data to `--output`'s file (atomically: a temporary sibling renamed over
 * it) and returns the envelope that reports it, `{output, bytes}`. A write that fails even so — the target
 * changed since {@linkcode outputFileIssue} checked it, the disk filled up — ends in a GENERAL_ERROR
 * envelope (exit 1, code OUTPUT_WRITE_FAILED) that still carries the command's data: the command has run,
 * and its result must not be lost.
 *
 * @example
 * ```ts
 * import type { ResponseEnvelope } from "@toolwire/toolwire";
 * import { monotonicMs } from "../../runtime/process.ts";
 *
 * const startedAt = monotonicMs();
 * declare let envelope: ResponseEnvelope; // the command's successful envelope
 * envelope = await writeOutputFile("/tmp/report.json", envelope, startedAt);
 * envelope.data; // { output: "/tmp/report.json", bytes: 1234 }
 * ```
 */
export async function writeOutputFile(
  file: string,
  envelope: ResponseEnvelope,
  startedAt: number,
): Promise<ResponseEnvelope> {
  try {
    const text = `${JSON.stringify(envelope.data, null, 2)}\n`;
    await writeTextAtomic(file, text);
    return { ...envelope, data: { output: file, bytes: new TextEncoder().encode(text).length } };
  } catch (error) {
    return makeEnvelope({
      exitCode: ExitCode.GENERAL_ERROR,
      data: envelope.data,
      error: {
        code: "OUTPUT_WRITE_FAILED",
        message:
          `the command succeeded, but its result could not be written to '${file}': ${reason(error)}; ` +
          `the result is in data instead`,
        retryable: false,
        phase: "execution",
        suggestion: "take the result from data rather than running the command again",
      },
      warnings: envelope.warnings,
      startedAt,
      meta: envelope.meta,
    });
  }
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return REASONS[code] === undefined ? code : `${REASONS[code]} (${code})`;
  return errorMessage(error);
}
