/**
 * `npm run demo`: serves the `notes` example over MCP to the official SDK client (auto era negotiation, so
 * the modern 2026-07-28 protocol) and prints the session as it happens: discovery, the tool list, a few
 * calls, and a refused call to a command marked `mcp: false`. Notes go to a temporary directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const notesMain = fileURLToPath(new URL("../examples/notes/main.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "notes-demo-"));

const say = (text = "") => console.log(text);
const show = (label: string, value: unknown) =>
  say(`  ${label.padEnd(12)} ${typeof value === "string" ? value : JSON.stringify(value)}`);

try {
  say(`$ node ${"dist/examples/notes/main.js"} mcp serve      (NOTES_HOME=${home})`);
  say();
  const client = new Client({ name: "toolwire-demo", version: "1.0.0" }, {
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [notesMain, "mcp", "serve"],
      env: { NOTES_HOME: home },
      stderr: "inherit",
    }),
  );
  const discovered = client.getDiscoverResult();
  say("→ server/discover");
  show("era", client.getProtocolEra() ?? "?");
  show("versions", discovered?.supportedVersions ?? []);
  show("server", client.getServerVersion() ?? {});
  show("instructions", client.getInstructions() ?? "");
  say();

  say("→ tools/list");
  const { tools } = await client.listTools();
  for (const tool of tools) {
    const hints = tool.annotations ?? {};
    const kind = hints.readOnlyHint ? "read-only" : hints.destructiveHint ? "destructive" : "mutating";
    say(`  ${tool.name.padEnd(10)} ${kind.padEnd(12)} ${tool.description ?? ""}`);
  }
  say("  (init is not listed: it is marked mcp: false)");
  say();

  const call = async (name: string, args: Record<string, unknown>) => {
    say(`→ tools/call ${name} ${JSON.stringify(args)}`);
    const result = await client.callTool({ name, arguments: args });
    const envelope = result.structuredContent as {
      ok: boolean;
      data: unknown;
      error: { code: string; message: string } | null;
    };
    show(
      result.isError ? "isError" : "ok",
      envelope.ok ? envelope.data : `${envelope.error?.code}: ${envelope.error?.message}`,
    );
    say();
  };
  await call("add", { title: "Buy milk", tag: ["home"] });
  await call("add", { title: "Call the plumber", body: "before Friday", tag: ["home", "urgent"] });
  await call("list", { tag: "urgent" });
  await call("show", { id: 42 });
  await call("remove", { id: 1 });
  await call("remove", { id: 1, confirm_destructive: true });

  say("→ tools/call init {}");
  try {
    await client.callTool({ name: "init", arguments: {} });
    show("unexpected", "init ran");
  } catch (error) {
    const { code, message } = error as { code?: number; message?: string };
    show("refused", `${code} ${message}`);
  }
  say();
  await client.close();
  say("stdin closed; the server exited cleanly.");
} finally {
  rmSync(home, { recursive: true, force: true });
}
