import type { ValidatedCall } from "../command/mcp/manifest_catalog.ts";

/** The parts of a validated call that become its command line. */
export type CallLine = Pick<
  ValidatedCall,
  "path" | "entry" | "given" | "args" | "idempotencyKey" | "dryRun" | "confirmed"
>;

/**
 * The argv that runs one validated MCP call as a CLI invocation (`toolwire mcp serve --exec`):
 * `<cli> --format json <command words> <flags…> -- <positionals…>`. Every value is one argv word of its own —
 * `--name=value`, so a value that starts with `-` stays a value — and no shell ever sees it, so nothing in an
 * argument is interpreted. Booleans are `--flag` / `--no-flag`, arrays repeat the flag, the framework
 * arguments become `--idempotency-key`, `--dry-run` and `--confirm-destructive`. Only flags the caller gave
 * are passed: defaults stay the CLI's.
 *
 * @example
 * ```ts
 * import type { CommandEntry } from "@toolwire/toolwire";
 *
 * declare const entry: CommandEntry; // `notes add`, which takes --title and --tag
 * callArgv(["notes"], {
 *   path: "add",
 *   entry,
 *   given: new Map<string, unknown>([["title", "x"], ["tag", ["a", "b"]]]),
 *   args: {},
 *   dryRun: false,
 *   confirmed: false,
 * });
 * // ["notes", "--format", "json", "add", "--title=x", "--tag=a", "--tag=b"]
 * ```
 */
export function callArgv(cli: readonly string[], call: CallLine): string[] {
  const argv = [...cli, "--format", "json", ...call.path.split(".")];
  for (const [flag, value] of call.given) argv.push(...flagWords(flag, value));
  if (call.idempotencyKey !== undefined) argv.push(`--idempotency-key=${call.idempotencyKey}`);
  if (call.dryRun === true) argv.push("--dry-run");
  // A dry run changes nothing, so it is never confirmed: the CLI must not take it for a confirmed run.
  else if (call.confirmed === true) argv.push("--confirm-destructive");
  const positionals = (call.entry.positionals ?? []).flatMap((positional) =>
    words(call.args[positional.name])
  );
  // `--` ends the flags: a positional such as `-rf` stays a positional.
  if (positionals.length > 0) argv.push("--", ...positionals);
  return argv;
}

function flagWords(flag: string, value: unknown): string[] {
  if (typeof value === "boolean") return [value ? `--${flag}` : `--no-${flag}`];
  if (Array.isArray(value)) return value.map((item) => `--${flag}=${String(item)}`);
  return [`--${flag}=${String(value)}`];
}

function words(value: unknown): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}
