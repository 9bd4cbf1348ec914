/**
 * Benchmark server: a toolwire tool with one command, `echo --text`, served by its built-in `mcp serve`.
 *
 *   node dist/scripts/bench/echo_toolwire.js mcp serve
 */
import { createTool } from "../../mod.ts";

const tool = createTool({ name: "echo-bench", version: "1.0.0", description: "Echo text back (benchmark)" });

tool.command("echo", {
  description: "Answer with the given text",
  danger_level: "safe",
  required_scopes: [],
  flags: { text: { type: "string", required: true, description: "What to echo" } },
  exit_codes: { "0": { name: "SUCCESS", description: "Echoed", retryable: false, side_effects: "none" } },
  run: (ctx) => ({ text: ctx.flags.text }),
});

await tool.main();
