#!/usr/bin/env node
// Sets up the Python side of tests/interop/python_client.test.ts: a project-local virtual environment,
// .venv-interop/ (git-ignored), holding the Python MCP SDK at the pinned version. Run by `npm test` and CI;
// on its own:
//
//   node scripts/python_interop_setup.mjs
//
// Exit 0 when the environment is ready, or when there is no python3 at all (the test then skips, and this
// says so); exit 1 when python3 exists but the environment cannot be made (no venv module, no package
// index): the test would fail too, so this fails first, with the reason.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

// The test accepts any mcp 2.x; this pins the one `npm test` and CI run against.
const MCP_REQUIREMENT = "mcp==2.3.*";
const PINNED_PREFIX = "2.3.";

// The interpreter the test prefers when it exists.
const VENV_PYTHON = join(root, ".venv-interop", "bin", "python");

const PROBE = "import importlib.metadata as m, mcp.client.stdio; print(m.version('mcp'))";
// One retry and a short connect timeout: an index that cannot be reached at all (an extra index in the
// machine's pip configuration, say) then costs seconds, not minutes of back-off per package.
const PIP_INSTALL = [
  "-m",
  "pip",
  "install",
  "--disable-pip-version-check",
  "--no-input",
  "--retries",
  "1",
  "--timeout",
  "15",
  MCP_REQUIREMENT,
];

// The installed mcp version for `python`, or null when it cannot be imported.
function mcpVersion(python) {
  const probe = spawnSync(python, ["-c", PROBE], { encoding: "utf8", timeout: 60_000 });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

function runStep(command, args, timeoutMs) {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    timeout: timeoutMs,
  });
  if (result.error !== undefined) return result.error.message;
  return result.status === 0 ? null : `exit ${result.status ?? result.signal}`;
}

/** Makes .venv-interop/ hold the pinned SDK unless it already does: "ready", "no-python", or why not. */
function setupPythonInterop() {
  const present = existsSync(VENV_PYTHON) ? mcpVersion(VENV_PYTHON) : null;
  if (present?.startsWith(PINNED_PREFIX)) {
    console.log(`python interop: .venv-interop has mcp ${present}`);
    return "ready";
  }
  const python3 = spawnSync("python3", ["--version"], { encoding: "utf8", timeout: 60_000 });
  if (python3.error?.code === "ENOENT") {
    console.log(
      "python interop: no python3 on PATH; skipping the setup (the Python MCP SDK interop test will be skipped)",
    );
    return "no-python";
  }
  if (!existsSync(VENV_PYTHON)) {
    const failed = runStep("python3", ["-m", "venv", "--clear", ".venv-interop"], 5 * 60_000);
    if (failed !== null) {
      return `python3 -m venv failed (${failed}); install Python's venv module (Debian/Ubuntu: apt-get install python3-venv), then run node scripts/python_interop_setup.mjs`;
    }
  }
  const failed = runStep(VENV_PYTHON, PIP_INSTALL, 20 * 60_000);
  if (failed !== null) {
    return `pip install '${MCP_REQUIREMENT}' into .venv-interop failed (${failed}); is the package index reachable?`;
  }
  const installed = mcpVersion(VENV_PYTHON);
  if (!installed?.startsWith(PINNED_PREFIX)) {
    return `.venv-interop still has no importable '${MCP_REQUIREMENT}' (found ${installed ?? "none"})`;
  }
  console.log(`python interop: .venv-interop now has mcp ${installed}`);
  return "ready";
}

const outcome = setupPythonInterop();
if (outcome !== "ready" && outcome !== "no-python") {
  console.error(`python interop setup: ${outcome}`);
  process.exit(1);
}
