// The Python fixtures must lose no signal: `toolwire check` fails a server that is still running after
// SIGTERM, and a fixture with a gap made the suite fail now and then. A `signal.signal` handler has one: it
// runs only between bytecodes of the main thread, so a SIGTERM landing just before that thread blocks in
// read() waits for the next input. The fixtures block the signals and take them with sigwait in a thread
// of their own; this checks that they do (in /proc, so on Linux), and that SIGTERM then ends them with 143.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lastLine } from "../helpers/run.ts";
import { pyfix } from "../helpers/toolwire.ts";

/** SIGHUP (1), SIGINT (2) and SIGTERM (15) as bits of a /proc signal mask. */
const TAKEN_SIGNALS = (1n << 0n) | (1n << 1n) | (1n << 14n);

/** The fields of /proc/<pid>/status, or `undefined` once the process is gone. */
function status(pid: number): Map<string, string> | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    return new Map(text.split("\n").map((line) => line.split(":\t") as [string, string]));
  } catch {
    return undefined;
  }
}

async function serving(
  argv: readonly string[],
): Promise<{ signalMask: bigint; exit: number; envelope: string }> {
  const [command, ...args] = argv;
  const child = spawn(command!, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdout!.resume();
  const exited = new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? -1)));
  try {
    // The signal thread is the fixture's second thread; it exists once the fixture is ready to serve.
    const deadline = Date.now() + 10_000;
    let fields = status(child.pid!);
    while (fields?.get("Threads") !== "2" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      fields = status(child.pid!);
    }
    assert.equal(fields?.get("Threads"), "2", `${argv.join(" ")}: no signal thread`);
    const signalMask = BigInt(`0x${fields!.get("SigBlk")!.trim()}`);
    // Not child.kill: Deno's ChildProcess then reports the exit as by SIGTERM, whatever the code was.
    process.kill(child.pid!, "SIGTERM");
    const exit = await exited;
    return { signalMask, exit, envelope: lastLine(stderr) };
  } finally {
    child.kill("SIGKILL");
  }
}

describe("the Python fixtures lose no signal", { concurrency: true }, () => {
  const servers: Array<[name: string, argv: string[]]> = [
    ["pyfix mcp serve", [...pyfix(), "--format", "json", "mcp", "serve"]],
    ["pywire lsp", [...pyfix("wire"), "--format", "json", "lsp"]],
    ["pywire debug-adapter", [...pyfix("wire"), "--format", "json", "debug-adapter"]],
  ];
  for (const [name, argv] of servers) {
    it(`${name}: SIGHUP, SIGINT and SIGTERM are blocked for a sigwait thread; SIGTERM ends it with 143`, {
      skip: process.platform === "linux" ? false : "reads /proc",
    }, async () => {
      const { signalMask, exit, envelope } = await serving(argv);
      assert.equal(signalMask & TAKEN_SIGNALS, TAKEN_SIGNALS, `blocked: 0x${signalMask.toString(16)}`);
      assert.equal(exit, 143);
      assert.equal(JSON.parse(envelope).meta.exit_code, 143, envelope);
    });
  }
});
