/**
 * `toolwire`: the binary, built with the library itself (started by cmd/toolwire.ts).
 *
 *   toolwire manifest                                  its own contract
 *   toolwire mcp serve --exec "python3 tools/cli.py"   any manifest-printing CLI as an MCP server
 *   toolwire mcp install --client claude-desktop --exec "python3 tools/cli.py"   registered with a client
 *   toolwire mcp listen --exec "python3 tools/cli.py" http://127.0.0.1:7010/mcp the same over HTTP or a socket
 *   toolwire check -- python3 tools/cli.py             any CLI against the contract, from outside
 *   toolwire mcp snapshot --exec "<cli>" --output f    the tools it would serve, saved
 *   toolwire mcp diff --exec "<cli>" --snapshot f      drift between those tools and a saved or live list
 */
import { createTool, FRAMEWORK_VERSION, type Tool } from "../mod.ts";
import { registerCheck } from "./check/check_command.ts";
import { registerMcpDiff } from "./mcp_diff.ts";
import { TOOLWIRE_DENO_PERMISSIONS, withExecInstall } from "./mcp_install_exec.ts";
import { withExecListen } from "./mcp_listen.ts";
import { withExec } from "./mcp_serve_exec.ts";
import { registerMcpSnapshot } from "./mcp_snapshot.ts";

const tool: Tool = createTool({
  name: "toolwire",
  version: FRAMEWORK_VERSION,
  description:
    "Serve any manifest-printing CLI over MCP, check any CLI against the protocol-command contract, and catch MCP tool drift",
  extendMcpServe: withExec,
  extendMcpInstall: withExecInstall,
  // Read when a listener starts, long after `tool` is defined.
  extendMcpListen: (builtin) => withExecListen(builtin, () => tool.stateDir()),
  denoPermissions: TOOLWIRE_DENO_PERMISSIONS,
});
registerCheck(tool);
registerMcpSnapshot(tool);
registerMcpDiff(tool);

await tool.main();
