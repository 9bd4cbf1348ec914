/**
 * What `toolwire check` verifies: each acceptance criterion of REQ-C-032 that can be observed from outside a
 * CLI, plus the envelope and exit-code basics the criteria rest on — and the ledger that turns observations
 * into one pass/fail/skip per criterion, with its evidence.
 */

/** The verdict on one criterion: `skip` when nothing observable applied (no protocol command, say). */
export type CriterionStatus = "pass" | "fail" | "skip";

/** One line of the report. */
export interface CriterionResult {
  /** A stable identifier; `acNN-…` ids follow the order of REQ-C-032's acceptance criteria. */
  id: string;
  /** What is checked. */
  criterion: string;
  status: CriterionStatus;
  /** What was observed: every failure first, then what passed or why it was skipped. */
  evidence: string;
}

/** Every criterion, in report order. */
export const CRITERIA = [
  [
    "manifest-envelope",
    "`<cli> --format json manifest` exits 0 with exactly one line on stdout: an envelope with ok: true",
  ],
  [
    "manifest-schema",
    "The manifest passes toolwire's manifest rules: required fields, exit-code tables, flags, positionals",
  ],
  [
    "manifest-etag",
    "The manifest's etag is the sha256 of its content (schema_version, framework_version and commands as canonical JSON), so a client holding it can tell whether the manifest changed",
  ],
  [
    "ac01-stdout-protocol-fields",
    'The manifest shows stdout: "protocol" and a kebab-case protocol name on every protocol server command, and neither field on any other command',
  ],
  [
    "ac02-pairing",
    'No command declares stdout: "protocol" without protocol, or protocol without stdout: "protocol" (what registration must refuse, as the manifest shows it)',
  ],
  [
    "ac03-forbidden-fields",
    "No protocol command declares a field that does not combine with it (passthrough, child_log, stdin, interactive, output_*, async, background, confirm_flag, safe_default …)",
  ],
  [
    "ac04-invalid-flag",
    "On a protocol command an invalid flag exits 2 with stdout empty, and in JSON mode the last stderr line is an envelope with error.code ARG_ERROR",
  ],
  [
    "ac05-prepare-failure",
    "A failure while preparing to serve (caused as --prepare-failure says) exits non-zero with a declared code (2 only for a refused flag), writes nothing to stdout, writes to stderr, and in JSON mode ends stderr with exactly one envelope, ok false",
  ],
  [
    "ac06-help",
    "`<cli> <cmd> --help` prints help to stdout and exits 0 without reading stdin (stdin is left open)",
  ],
  [
    "ac07-stdout-purity",
    "Once serving begins every stdout byte is a protocol message (mcp-stdio lines, LSP or DAP Content-Length frames), and the first response answers the client's first request",
  ],
  [
    "ac08-malformed-request",
    "A malformed request is answered inside the protocol (JSON-RPC -32700 or an error with id null; DAP an output event or a failed response) and the server keeps serving; a header without a usable Content-Length is answered too, then the server serves on or ends with a declared code",
  ],
  ["ac09-stdin-eof", "Closing the server's stdin ends it with exit 0 and no envelope on stderr"],
  [
    "ac10-sigterm",
    "SIGTERM while serving ends the server with 143, and in JSON mode the last stderr line is an envelope",
  ],
  [
    "ac11-idle-not-killed",
    "A server idle past its --timeout after serving began is not ended by the framework",
  ],
  [
    "ac12-framework-flags-refused",
    "A protocol command refuses --idempotency-key, --dry-run, --output and --confirm-destructive (exit 2, stdout empty)",
  ],
  [
    "ac13-one-envelope",
    'A command without stdout: "protocol" prints, with --format json, exactly one line on stdout: an envelope with exactly ok, data, error, warnings, meta',
  ],
  [
    "ac13-ok-exit-code",
    "ok is true exactly when the exit code is 0, and meta.exit_code is the process's exit code",
  ],
  [
    "ac13-declared-exit-codes",
    "Every exit code observed is in the command's declared exit_codes",
  ],
  [
    "ac13-invalid-flag",
    'On a command without stdout: "protocol" an invalid flag exits 2 with error.code ARG_ERROR',
  ],
  [
    "ac13-idempotency-key",
    'Mutating and destructive commands without stdout: "protocol" declare --idempotency-key',
  ],
  [
    "ac14-mcp-false-shown",
    "The manifest shows mcp: false on every command the tool's MCP server leaves out, and no mcp field on any other command",
  ],
  [
    "ac15-mcp-false-refused",
    "`mcp serve` lists no command marked mcp: false, and a call naming one is answered with a protocol error, not run",
  ],
  ["ac16-no-mcp-true", "No command carries mcp: true, which fails validation against the manifest schema"],
] as const;

/** The identifier of a criterion. */
export type CriterionId = (typeof CRITERIA)[number][0];

interface Observation {
  status: CriterionStatus;
  note: string;
}

const MAX_NOTES = 6;

function capped(notes: string[], max: number, verb: string): string[] {
  return notes.length <= max ? notes : [...notes.slice(0, max), `${notes.length - max} more ${verb}`];
}

/**
 * Collects observations per criterion. A criterion fails when any observation failed, passes when at least
 * one passed and none failed, and is skipped when nothing applied.
 *
 * @example
 * ```ts
 * const ledger = new Ledger();
 * ledger.fail("ac04-invalid-flag", "mcp serve: exit 1, expected 2");
 * ledger.results().find((r) => r.id === "ac04-invalid-flag")?.status; // "fail"
 * ```
 */
export class Ledger {
  readonly #observations = new Map<CriterionId, Observation[]>();
  readonly #settled = new Set<CriterionId>();
  #cutShort: string | undefined;

  /** Records that a criterion held for something. */
  pass(id: CriterionId, note: string): void {
    this.#add(id, "pass", note);
  }

  /** Records that a criterion was broken, and how. */
  fail(id: CriterionId, note: string): void {
    this.#add(id, "fail", note);
  }

  /** Records why a criterion could not be observed. */
  skip(id: CriterionId, note: string): void {
    this.#add(id, "skip", note);
  }

  /** Records a pass or a failure. */
  record(id: CriterionId, ok: boolean, note: string): void {
    this.#add(id, ok ? "pass" : "fail", note);
  }

  /** Records that everything there was to observe of these criteria has been observed. */
  settle(...ids: CriterionId[]): void {
    for (const id of ids) this.#settled.add(id);
  }

  /**
   * Records that the run ended before every criterion was settled, and why: each unsettled criterion that
   * did not fail is then skipped with `why`, whatever passed of it so far shown after it, and a failed one
   * stays failed with `why` added. Observations made from then on are not taken: they would be of probes
   * the end of the run cut off.
   */
  cutShort(why: string): void {
    this.#cutShort ??= why;
  }

  /** Whether {@linkcode Ledger.cutShort} ended the run early. */
  get complete(): boolean {
    return this.#cutShort === undefined;
  }

  /** One result per criterion, in report order. */
  results(): CriterionResult[] {
    return CRITERIA.map(([id, criterion]) => {
      const observations = this.#observations.get(id) ?? [];
      const notes = (status: CriterionStatus) =>
        observations.filter((o) => o.status === status).map((o) => o.note);
      const [failed, passed, skipped] = [notes("fail"), notes("pass"), notes("skip")];
      let status: CriterionStatus = failed.length > 0 ? "fail" : passed.length > 0 ? "pass" : "skip";
      // Every failure is shown; what passed is summarised once it gets long.
      const evidence = [
        ...failed,
        ...capped(passed, MAX_NOTES, "passed"),
        ...capped(skipped, MAX_NOTES, "skipped"),
      ];
      if (this.#cutShort !== undefined && !this.#settled.has(id)) {
        // A pass of some of the commands is no pass: only what was settled, or found broken, stands.
        if (status === "fail") evidence.push(this.#cutShort);
        else {
          status = "skip";
          evidence.unshift(this.#cutShort);
        }
      }
      return {
        id,
        criterion,
        status,
        evidence: evidence.length === 0 ? "nothing to observe" : evidence.join("; "),
      };
    });
  }

  #add(id: CriterionId, status: CriterionStatus, note: string): void {
    if (this.#cutShort !== undefined) return;
    const list = this.#observations.get(id) ?? [];
    list.push({ status, note });
    this.#observations.set(id, list);
  }
}
