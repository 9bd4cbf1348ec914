/**
 * What the bench runs and what it judges: the command-line switches, the counts of every phase, the servers,
 * and the table of ratios the report prints, with the verdict targets. Nothing else in the bench holds a
 * count or a target.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
/** `--quick`: smaller counts, a smoke test (too few runs and calls for the verdicts). */
export const QUICK = argv.includes("--quick");
/** `--profile`: `--cpu-prof` on the measured Node toolwire processes. */
export const PROFILE = argv.includes("--profile");
/** `--no-big`: no 1/8 MiB phases. */
export const NO_BIG = argv.includes("--no-big");
/** `--only=bare,toolwire`: the servers whose key contains one of these words. */
export const ONLY = argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length).split(",");
/**
 * `--toolwire-dir=<root>`: another checkout of toolwire (built: `npm run build` there), whose echo tool is
 * benched beside this one's as the servers `toolwire-b/<era>` and `toolwire-b-deno/<era>` (stdio only).
 */
const toolwireDir = argv.find((arg) => arg.startsWith("--toolwire-dir="))?.slice("--toolwire-dir=".length);
export const TOOLWIRE_DIR = toolwireDir === undefined ? undefined : resolve(toolwireDir);

/** The counts of every phase, in the order they run. */
export const SETTINGS = {
  /** Unmeasured runs per Deno server first: Deno transpiles the TypeScript and caches it on a first run. */
  primingRuns: 1,
  /** Spawn → first response → EOF, per server. */
  startupRuns: QUICK ? 3 : 7,
  /** Whole agent sessions per server: spawn, handshake, tools/list, `sessionCalls` calls, EOF, exit. */
  sessionRuns: QUICK ? 5 : 30,
  sessionCalls: 20,
  /** Fresh processes per server, each answering `coldSequentialCalls` one-at-a-time calls with no warm-up. */
  coldRuns: QUICK ? 2 : 5,
  coldSequentialCalls: 200,
  /**
   * JIT warm-up of the long-lived servers before the warm phases, pipelined and then one at a time: the two
   * phases run different code paths (a chunk of requests per read, or one), and V8 compiles each as it gets
   * hot — toolwire has more code for it to optimise than the bare loop.
   */
  warmupCalls: QUICK ? 5_000 : 20_000,
  warmupSequentialCalls: 1_000,
  pipelinedCalls: QUICK ? 4_000 : 20_000,
  inFlight: 64,
  sequentialCalls: QUICK ? 400 : 2_000,
  smallTextBytes: 64,
  bigCalls: QUICK ? 4 : 20,
  bigMiB: [1, 8] as const,
  /** The warm small-call and big-call phases run in this many interleaved rounds. */
  rounds: QUICK ? 2 : 4,
  phaseTimeoutMs: QUICK ? 60_000 : 120_000,
} as const;

/** The counts of the HTTP phase (bench/http_phases.ts); each era runs every count. */
export const HTTP_SETTINGS = {
  /** Keep-alive clients at once: one (a lone agent), and many (a gateway in front of the server). */
  concurrency: [1, 64] as const,
  /** Unmeasured calls per era first, at each concurrency. */
  warmupCalls: QUICK ? 1_000 : 5_000,
  /** Calls per era, per concurrency, over all rounds. */
  calls: { 1: QUICK ? 400 : 2_000, 64: QUICK ? 2_000 : 10_000 } as Record<number, number>,
  rounds: QUICK ? 2 : 4,
} as const;

const here = dirname(fileURLToPath(import.meta.url)); // dist/scripts/bench
/** The project root. */
export const ROOT = join(here, "..", "..", "..");
/** The compiled servers, run by Node. */
export const NODE_SERVER_DIR = here;
/** The TypeScript servers, run by Deno. */
export const DENO_SERVER_DIR = join(ROOT, "scripts", "bench");
/** Raw numbers and profiles. */
export const OUT_DIR = join(ROOT, ".bench");
/** The Deno binary of the `deno` dev dependency, else `deno` from PATH. */
export const DENO = existsSync(join(ROOT, "node_modules", "deno", "deno"))
  ? join(ROOT, "node_modules", "deno", "deno")
  : "deno";

/**
 * Environment variables the servers run without. With NODE_EXTRA_CA_CERTS set, Node 20 reads and parses the
 * whole certificate file before it runs any script — ~30 ms for a system bundle, most of a bare Node start —
 * although none of these servers opens a TLS connection. Left in, it makes every Node start look alike and
 * hides what the servers' own starts cost; Deno does not read it.
 */
export const UNSET_FOR_SERVERS = ["NODE_EXTRA_CA_CERTS"] as const;

/** The servers' environment: this process's, less {@linkcode UNSET_FOR_SERVERS}. */
export const SERVER_ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !(UNSET_FOR_SERVERS as readonly string[]).includes(name)),
);

export type Era = "modern" | "legacy";
export type Kind = "bare" | "toolwire" | "sdk-v2" | "sdk-v1";
export type Runtime = "node" | "deno";
/**
 * What a server's runtime loads: the compiled build, which npm and JSR ship, or on Deno with `deno-src` the
 * TypeScript sources (a tool run from a checkout).
 */
type RowRuntime = Runtime | "deno-src";

/** One server under test. */
export interface ServerSpec {
  key: string;
  label: string;
  kind: Kind;
  era: Era;
  runtime: Runtime;
  /**
   * The file name without extension: in dist/scripts/bench (`.js`) when {@linkcode ServerSpec.build}, else in
   * scripts/bench (`.ts`, run by Deno).
   */
  file: string;
  /** The server runs the compiled build, as the packages ship it (every server but the `-src` ones). */
  build: boolean;
  args: string[];
  /** Its replies are toolwire envelopes (toolwire itself, or the bare loop answering the same bytes). */
  envelope: boolean;
  /** The checkout `file` is in, and the server's working directory; this one when absent. */
  root?: string;
}

/** The servers: each runs in both eras unless its last column says otherwise. */
// deno-fmt-ignore
const SERVER_ROWS: Array<[key: string, label: string, kind: Kind, runtime: RowRuntime, file: string, args: string[], eras?: Era[]]> = [
  ["bare",               "bare JSON loop",                         "bare",     "node", "echo_bare",      []],
  ["bare-envelope",      "bare loop, toolwire-sized reply",        "bare",     "node", "echo_bare",      ["--envelope"]],
  ["toolwire",           "toolwire mcp serve",                     "toolwire", "node", "echo_toolwire",  ["mcp", "serve"]],
  ["sdk-v2",             "server 2.4 serveStdio",                  "sdk-v2",   "node", "echo_sdk_v2",    []],
  ["sdk-v1",             "sdk 1.32 McpServer",                     "sdk-v1",   "node", "echo_sdk_v1",    [], ["legacy"]],
  ["bare-deno",          "bare JSON loop (Deno)",                  "bare",     "deno", "echo_bare_deno", []],
  ["bare-envelope-deno", "bare loop, toolwire-sized reply (Deno)", "bare",     "deno", "echo_bare_deno", ["--envelope"]],
  ["toolwire-deno",      "toolwire mcp serve (Deno)",              "toolwire", "deno", "echo_toolwire",  ["mcp", "serve"]],
  ["toolwire-deno-src",  "toolwire mcp serve (Deno, the sources)", "toolwire", "deno-src", "echo_toolwire", ["mcp", "serve"]],
];
/** The same echo tool from the `--toolwire-dir` checkout. */
// deno-fmt-ignore
const OTHER_BUILD_ROWS: typeof SERVER_ROWS = [
  ["toolwire-b",         "toolwire mcp serve, --toolwire-dir",        "toolwire", "node", "echo_toolwire", ["mcp", "serve"]],
  ["toolwire-b-deno",    "toolwire mcp serve, --toolwire-dir (Deno)", "toolwire", "deno", "echo_toolwire", ["mcp", "serve"]],
  ["toolwire-b-deno-src", "toolwire mcp serve, --toolwire-dir (Deno, the sources)", "toolwire", "deno-src", "echo_toolwire", ["mcp", "serve"]],
];

/** Every server in each of its eras. */
export const SERVERS: ServerSpec[] = [
  ...SERVER_ROWS.map((row) => [row, undefined] as const),
  ...(TOOLWIRE_DIR === undefined ? [] : OTHER_BUILD_ROWS.map((row) => [row, TOOLWIRE_DIR] as const)),
].flatMap(([[key, label, kind, runtime, file, args, eras], root]) =>
  (eras ?? ["modern", "legacy"]).map((era) => ({
    key: `${key}/${era}`,
    label,
    kind,
    era,
    runtime: runtime === "deno-src" ? "deno" : runtime,
    file,
    build: runtime !== "deno-src",
    args,
    envelope: kind === "toolwire" || args.includes("--envelope"),
    ...(root === undefined ? {} : { root }),
  }))
);

/** One server of the HTTP phase: it serves both eras on one endpoint, in one process. */
export interface HttpServerSpec {
  key: string;
  label: string;
  kind: Kind;
  runtime: Runtime;
  /** As {@linkcode ServerSpec.file}; the server names its URL on stderr. */
  file: string;
  args: string[];
  envelope: boolean;
}

const LISTEN = ["mcp", "listen", "http://127.0.0.1:0/mcp"];
// deno-fmt-ignore
const HTTP_ROWS: Array<[key: string, label: string, kind: Kind, runtime: Runtime, file: string, args: string[]]> = [
  ["http-bare",          "bare node:http echo",                 "bare",     "node", "http_bare",     []],
  ["http-toolwire",      "toolwire mcp listen http",            "toolwire", "node", "echo_toolwire", LISTEN],
  ["http-sdk-v2",        "server 2.4 createMcpHandler",         "sdk-v2",   "node", "http_sdk_v2",   []],
  ["http-bare-deno",     "bare node:http echo (Deno)",          "bare",     "deno", "http_bare",     []],
  ["http-toolwire-deno", "toolwire mcp listen http (Deno)",     "toolwire", "deno", "echo_toolwire", LISTEN],
];

/** The servers of the HTTP phase. */
export const HTTP_SERVERS: HttpServerSpec[] = HTTP_ROWS.map(([key, label, kind, runtime, file, args]) => ({
  key,
  label,
  kind,
  runtime,
  file,
  args,
  envelope: kind === "toolwire",
}));

/** One line of the HTTP ratio table: CPU per request of `of` ÷ that of `over`, per era and concurrency. */
export interface HttpRatioSpec {
  what: string;
  of: string;
  over: string;
  target?: number;
}

// deno-fmt-ignore
const HTTP_RATIO_ROWS: Array<[what: string, of: string, over: string, target?: number]> = [
  ["toolwire / bare",           "http-toolwire",      "http-bare",      1.5],
  ["toolwire / sdk-v2",         "http-toolwire",      "http-sdk-v2",    1 / 3],
  ["toolwire Deno / bare Deno", "http-toolwire-deno", "http-bare-deno", 1.5],
  ["sdk-v2 / bare",             "http-sdk-v2",        "http-bare"],
  ["toolwire Deno / Node",      "http-toolwire-deno", "http-toolwire"],
  ["bare Deno / Node",          "http-bare-deno",     "http-bare"],
];

/** The HTTP ratio lines, per era and concurrency ({@linkcode httpPhase} names the phase). */
export const HTTP_RATIOS: Array<HttpRatioSpec & { phase: string }> = (["modern", "legacy"] as const).flatMap(
  (era) =>
    HTTP_SETTINGS.concurrency.flatMap((clients) =>
      HTTP_RATIO_ROWS.map(([what, of, over, target]) => ({
        what: `HTTP ${era}, ${clients} client${clients === 1 ? "" : "s"}: ${what}, CPU per request`,
        of,
        over,
        phase: httpPhase(era, clients),
        ...(target === undefined ? {} : { target }),
      }))
    ),
);

/**
 * The name of an HTTP phase: its era and its number of clients.
 *
 * @example
 * ```ts
 * httpPhase("modern", 64); // "modern-c64"
 * ```
 */
export function httpPhase(era: Era, clients: number): string {
  return `${era}-c${clients}`;
}

/** The quantities a ratio compares; report.ts reads each from a server's results. */
export type Metric =
  | "pipelined"
  | "sequential"
  | "coldSequential"
  | "startup"
  | "startupCpu"
  | "big1"
  | "big8"
  | "rss"
  | "rssBig"
  | "session"
  | "sessionCpu";

/** One line of the ratio table: `metric` of server `of` ÷ `overMetric` (default `metric`) of server `over`. */
export interface RatioSpec {
  what: string;
  of: string;
  over: string;
  metric: Metric;
  overMetric?: Metric;
  /** The ratio must be at most this for a PASS; a line without one is information. */
  target?: number;
}

/**
 * The ratio table, once per era ({era} in `what`, `/<era>` after each server key). `metric` is one quantity
 * of both servers, or `a/b` for `a` of the first over `b` of the second. A line with a target gets a verdict.
 */
// deno-fmt-ignore
const ERA_RATIOS: Array<[what: string, of: string, over: string, metric: Metric | `${Metric}/${Metric}`, target?: number]> = [
  ["toolwire {era} / bare: pipelined CPU per request",                     "toolwire",      "bare",               "pipelined",      1.5],
  ["toolwire {era} / bare: sequential CPU per request",                    "toolwire",      "bare",               "sequential",     1.5],
  ["toolwire {era} / bare: startup (first response)",                      "toolwire",      "bare",               "startup",        1.25],
  ["toolwire {era} / bare: startup CPU (at first response)",               "toolwire",      "bare",               "startupCpu"],
  ["toolwire {era} / bare: 8 MiB CPU per MiB",                             "toolwire",      "bare",               "big8"],
  // The same floor answering with toolwire's reply (the envelope as structuredContent and as JSON text):
  // how much of the gap is the reply's bytes, and how much is the framework.
  ["toolwire {era} / bare, same reply: pipelined CPU per request",         "toolwire",      "bare-envelope",      "pipelined"],
  ["toolwire {era} / bare, same reply: sequential CPU per request",        "toolwire",      "bare-envelope",      "sequential"],
  ["toolwire/{era}: CPU per MiB, 8 MiB / 1 MiB (flat ≈ 1)",                "toolwire",      "toolwire",           "big8/big1",      1.25],
  ["toolwire {era} / sdk-v2/{era}: pipelined CPU per request",             "toolwire",      "sdk-v2",             "pipelined"],
  ["toolwire {era} / sdk-v2/{era}: sequential CPU per request",            "toolwire",      "sdk-v2",             "sequential"],
  ["toolwire {era} / sdk-v2/{era}: startup (first response)",              "toolwire",      "sdk-v2",             "startup"],
  ["toolwire {era} / sdk-v2/{era}: startup CPU (at first response)",       "toolwire",      "sdk-v2",             "startupCpu"],
  ["toolwire {era} / sdk-v2/{era}: 8 MiB CPU per MiB",                     "toolwire",      "sdk-v2",             "big8"],
  ["toolwire {era} / sdk-v2/{era}: peak RSS (all phases)",                 "toolwire",      "sdk-v2",             "rss"],
  ["toolwire {era} / sdk-v1/{era}: pipelined CPU per request",             "toolwire",      "sdk-v1",             "pipelined"],
  ["toolwire {era} / sdk-v1/{era}: sequential CPU per request",            "toolwire",      "sdk-v1",             "sequential"],
  ["toolwire {era} / sdk-v1/{era}: startup (first response)",              "toolwire",      "sdk-v1",             "startup"],
  ["toolwire {era} / sdk-v1/{era}: startup CPU (at first response)",       "toolwire",      "sdk-v1",             "startupCpu"],
  ["toolwire {era} / sdk-v1/{era}: 8 MiB CPU per MiB",                     "toolwire",      "sdk-v1",             "big8"],
  ["toolwire {era} / sdk-v1/{era}: peak RSS (all phases)",                 "toolwire",      "sdk-v1",             "rss"],
  // The cold path, and the same server on Deno.
  ["toolwire {era} / bare: sequential CPU per call, cold",                 "toolwire",      "bare",               "coldSequential", 1.5],
  ["toolwire {era} Deno / bare Deno: sequential CPU per call, cold",       "toolwire-deno", "bare-deno",          "coldSequential", 1.5],
  ["toolwire {era} / bare, same reply: 8 MiB CPU per MiB",                 "toolwire",      "bare-envelope",      "big8",           1.2],
  ["toolwire {era} Deno / bare Deno, same reply: 8 MiB CPU per MiB",       "toolwire-deno", "bare-envelope-deno", "big8",           1.2],
  ["toolwire {era} / bare: short session wall time",                       "toolwire",      "bare",               "session"],
  ["toolwire {era} / bare: short session CPU",                             "toolwire",      "bare",               "sessionCpu"],
  ["toolwire {era} Deno / bare Deno: short session wall time",             "toolwire-deno", "bare-deno",          "session"],
  ["toolwire {era} Deno / bare Deno: pipelined CPU per request",           "toolwire-deno", "bare-deno",          "pipelined"],
  ["toolwire {era} Deno / bare Deno: sequential CPU per request",          "toolwire-deno", "bare-deno",          "sequential"],
  ["toolwire-deno/{era}: CPU per MiB, 8 MiB / 1 MiB (flat ≈ 1)",           "toolwire-deno", "toolwire-deno",      "big8/big1"],
  ["toolwire {era} Deno / Node: pipelined CPU per request",                "toolwire-deno", "toolwire",           "pipelined",      1.2],
  ["toolwire {era} Deno / Node: sequential CPU per request",               "toolwire-deno", "toolwire",           "sequential",     1.5],
  ["toolwire {era} Deno / Node: sequential CPU per call, cold",            "toolwire-deno", "toolwire",           "coldSequential"],
  ["toolwire {era} Deno / Node: startup (first response)",                 "toolwire-deno", "toolwire",           "startup"],
  ["toolwire {era} Deno / Node: peak RSS with 8 MiB calls",                "toolwire-deno", "toolwire",           "rssBig",         1.2],
  ["toolwire {era} Deno / Node: short session wall time",                  "toolwire-deno", "toolwire",           "session",        1],
  ["bare {era} Deno / Node: short session wall time",                      "bare-deno",     "bare",               "session"],
  // The build on Deno loads a few files where the sources are ~100 TypeScript modules (docs/performance.md#deno).
  ["toolwire {era} Deno / Deno sources: startup (first response)",         "toolwire-deno", "toolwire-deno-src", "startup"],
  ["toolwire {era} Deno / Deno sources: startup CPU",                      "toolwire-deno", "toolwire-deno-src", "startupCpu"],
  ["toolwire {era} Deno / Deno sources: short session CPU",                "toolwire-deno", "toolwire-deno-src", "sessionCpu"],
  ["toolwire {era} Deno sources / bare Deno: startup (first response)",    "toolwire-deno-src", "bare-deno",     "startup"],
];

function ratioSpec(
  what: string,
  of: string,
  over: string,
  metrics: Metric | `${Metric}/${Metric}`,
  target?: number,
): RatioSpec {
  const [metric, overMetric] = metrics.split("/") as [Metric, Metric | undefined];
  return {
    what,
    of,
    over,
    metric,
    ...(overMetric === undefined ? {} : { overMetric }),
    ...(target === undefined ? {} : { target }),
  };
}

/**
 * With `--toolwire-dir`: the other build over the same floors (its lines are information), and this build
 * over the other one, the lower the better.
 */
const OTHER_BUILD_RATIOS: typeof ERA_RATIOS = [
  ...ERA_RATIOS.filter(([, of, over]) => of !== over && of.startsWith("toolwire") && over.startsWith("bare"))
    .map(([what, of, over, metrics]): (typeof ERA_RATIOS)[number] => [
      what.replace(/^toolwire/, "toolwire-b"),
      of.replace("toolwire", "toolwire-b"),
      over,
      metrics,
    ]),
  ...([
    "pipelined",
    "sequential",
    "coldSequential",
    "startup",
    "startupCpu",
    "session",
    "sessionCpu",
    "rss",
  ] as const)
    .flatMap((metric): typeof ERA_RATIOS => [
      [`toolwire {era} / toolwire-b: ${metric}`, "toolwire", "toolwire-b", metric],
      [`toolwire {era} Deno / toolwire-b Deno: ${metric}`, "toolwire-deno", "toolwire-b-deno", metric],
      // A checkout whose JSR package served its sources (every one before the build was published there):
      // what a JSR user's tool gets now over what it got then.
      [
        `toolwire {era} Deno / toolwire-b Deno sources: ${metric}`,
        "toolwire-deno",
        "toolwire-b-deno-src",
        metric,
      ],
      [
        `toolwire {era} Deno sources / toolwire-b Deno sources: ${metric}`,
        "toolwire-deno-src",
        "toolwire-b-deno-src",
        metric,
      ],
    ]),
];

/** Every ratio the report prints, in order; a line whose servers were not run is left out. */
export const RATIOS: RatioSpec[] = [
  ...(["modern", "legacy"] as const).flatMap((era) =>
    [...ERA_RATIOS, ...(TOOLWIRE_DIR === undefined ? [] : OTHER_BUILD_RATIOS)].map(
      ([what, of, over, metrics, target]) =>
        ratioSpec(what.replaceAll("{era}", era), `${of}/${era}`, `${over}/${era}`, metrics, target),
    )
  ),
  // Information: how flat the other servers' cost per MiB is.
  ...SERVERS.filter((spec) => spec.kind !== "toolwire").map((spec) =>
    ratioSpec(`${spec.key}: CPU per MiB, 8 MiB / 1 MiB (flat ≈ 1)`, spec.key, spec.key, "big8/big1")
  ),
];
