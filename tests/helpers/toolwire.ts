/**
 * The `toolwire` binary and the fixtures it bridges and checks, on the test's runtime, plus a real MCP
 * client (the v2 SDK in `auto` mode) connected to any server command line.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { quoteCommandLine } from "../../lib/bridge/command_line.ts";
import { type Loose, programArgv, ROOT } from "./run.ts";

/** The `toolwire` binary: compiled JS under Node, the TypeScript source under Deno. */
export const TOOLWIRE = programArgv("cmd/toolwire.ts");

/**
 * The Python interpreter itself, not `python3` from PATH: that is often a shim (pyenv) costing 0.4 s per
 * start, and the checker starts a Python CLI dozens of times.
 */
const PYTHON_LOCATION = ["-c", "import sys; print(sys.executable)"];
export const PYTHON = execFileSync("python3", PYTHON_LOCATION, { encoding: "utf8" }).trim();

/**
 * A Python fixture CLI (`pyfix`, or one of its `broken_*` variants), run by python3. `-S` skips site-packages:
 * the fixture needs the stdlib only.
 */
export function pyfix(name = "pyfix"): string[] {
  return [PYTHON, "-S", join(ROOT, "tests", "fixtures", "pyfix", `${name}.py`)];
}

/** The ids of the criteria a `toolwire check` report failed. */
export function failedIds(report: Loose): string[] {
  return report.data.criteria.filter((result: Loose) => result.status === "fail").map((result: Loose) =>
    result.id
  );
}

/** Each failed criterion of a `toolwire check` report with its evidence: what an assertion should print. */
export function failures(report: Loose): string {
  return JSON.stringify(
    report.data.criteria.filter((result: Loose) => result.status === "fail").map((result: Loose) =>
      `${result.id}: ${result.evidence}`
    ),
  );
}

/** An argv as one `--exec` command line. */
export function execLine(argv: readonly string[]): string {
  return quoteCommandLine(argv);
}

/** Options of {@linkcode connect}. */
export interface ConnectOptions {
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** Client capabilities, e.g. `{ elicitation: {} }`. */
  capabilities?: Record<string, unknown>;
}

/** A v2 SDK client in `auto` version negotiation, connected to the server `argv` starts. */
export async function connect(argv: readonly string[], options: ConnectOptions = {}): Promise<Client> {
  const [command, ...args] = argv;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const client = new Client(
    { name: "toolwire-test", version: "1.0.0" },
    {
      versionNegotiation: { mode: "auto" },
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
    },
  );
  await client.connect(
    new StdioClientTransport({
      command: command!,
      args,
      env: { ...env, ...options.env },
      stderr: "ignore",
      cwd: ROOT,
    }),
  );
  return client;
}
