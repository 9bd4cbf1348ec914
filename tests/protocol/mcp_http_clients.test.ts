// MCP over Streamable HTTP against clients nobody here wrote: @modelcontextprotocol/client (SDK v2) with its
// StreamableHTTPClientTransport pinned to 2026-07-28, in auto mode (which must settle on the modern era) and
// in legacy mode, and @modelcontextprotocol/sdk (SDK v1, legacy), each through list, add, show and a
// confirmed remove against `notes mcp listen http://…` and `toolwire mcp listen --exec <notes> http://…`,
// spawned for real. Every response the client saw is recorded: none may mint a session id. And the SDK v2
// client in auto mode hears a bridged CLI's tools change through its own subscriptions/listen stream.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.d.ts", so "client/streamableHttp.js" has no types under Deno's
// resolver; tsc finds them beside the .js file. This pragma (a comment to tsc) names the file for Deno.
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { changingCli } from "../helpers/changing_cli.ts";
import { type Loose, tempDir } from "../helpers/run.ts";
import { HTTP_SERVERS, startHttpListener } from "../helpers/http_listener.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

const KINDS = ["v2 pin", "v2 auto", "v2 legacy", "v1"] as const;
type Kind = (typeof KINDS)[number];

const NOTES_TOOLS = ["add", "list", "manifest", "remove", "show"];

interface Session {
  listTools(): Promise<Loose>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Loose>;
  close(): Promise<void>;
  /** The era a v2 client settled on. */
  era(): string | undefined;
  /** How often the client was asked to confirm. */
  asked: number;
}

/** A fetch that records the headers of every response. */
function recordingFetch(seen: Headers[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    seen.push(response.headers);
    return response;
  };
}

async function connect(kind: Kind, url: string, seen: Headers[]): Promise<Session> {
  const endpoint = new URL(url);
  if (kind === "v1") {
    const client = new V1Client({ name: "toolwire-http-v1", version: "1.0.0" });
    await client.connect(new V1HttpTransport(endpoint, { fetch: recordingFetch(seen) }));
    return {
      listTools: () => client.listTools(),
      callTool: (params) => client.callTool(params) as Promise<Loose>,
      close: () => client.close(),
      era: () => undefined,
      asked: 0,
    };
  }
  const mode = kind === "v2 pin" ? { pin: "2026-07-28" } : kind === "v2 auto" ? "auto" : "legacy";
  const client = new Client({ name: "toolwire-http-v2", version: "1.0.0" }, {
    versionNegotiation: { mode },
    capabilities: { elicitation: {} },
  });
  const session: Session = {
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params) as Promise<Loose>,
    close: () => client.close(),
    era: () => client.getProtocolEra(),
    asked: 0,
  };
  client.setRequestHandler("elicitation/create", () => {
    session.asked++;
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { fetch: recordingFetch(seen) }));
  return session;
}

/** A tool result's envelope, checked to be the same in structuredContent and the text content. */
function envelopeOf(result: Loose): Loose {
  const envelope = result.structuredContent;
  assert.deepEqual(Object.keys(envelope), ["ok", "data", "error", "warnings", "meta"]);
  assert.deepEqual(JSON.parse(result.content[0].text), envelope);
  assert.equal(result.isError, !envelope.ok);
  return envelope;
}

for (const server of HTTP_SERVERS) {
  describe(`${server.name} http://127.0.0.1:0/mcp with real SDK clients`, () => {
    for (const kind of KINDS) {
      it(`${kind}: list, add, show, a confirmed remove; no session id is ever minted`, async () => {
        const listener = await startHttpListener(server.argv);
        const seen: Headers[] = [];
        try {
          const session = await connect(kind, listener.url, seen);
          const modern = kind === "v2 pin" || kind === "v2 auto";
          if (kind !== "v1") assert.equal(session.era(), modern ? "modern" : "legacy");
          const { tools } = await session.listTools();
          assert.deepEqual(tools.map((tool: { name: string }) => tool.name), NOTES_TOOLS);

          const added = envelopeOf(await session.callTool({ name: "add", arguments: { title: "milk" } }));
          assert.equal(added.data.effect, "created");
          const id = added.data.note.id;
          const kept = envelopeOf(await session.callTool({ name: "add", arguments: { title: "bread" } }));
          assert.deepEqual(
            envelopeOf(await session.callTool({ name: "show", arguments: { id } })).data,
            added.data.note,
          );

          if (modern) {
            // The client declared elicitation: the server asks (input_required), the SDK answers, the note goes.
            const removed = envelopeOf(await session.callTool({ name: "remove", arguments: { id } }));
            assert.equal(session.asked, 1, "asked once");
            assert.equal(removed.data.effect, "deleted");
          } else {
            // A legacy client is never asked: the unconfirmed call previews, confirm_destructive deletes.
            const previewed = envelopeOf(await session.callTool({ name: "remove", arguments: { id } }));
            assert.equal(previewed.error.code, "CONFIRMATION_REQUIRED");
            assert.deepEqual(await listener.titles(), ["bread", "milk"], "a preview deletes nothing");
            const removed = envelopeOf(
              await session.callTool({ name: "remove", arguments: { id, confirm_destructive: true } }),
            );
            assert.equal(removed.data.effect, "deleted");
          }
          const shown = envelopeOf(await session.callTool({ name: "show", arguments: { id } }));
          assert.equal(shown.error.code, "NOT_FOUND");
          const listed = envelopeOf(await session.callTool({ name: "list", arguments: {} }));
          assert.deepEqual(listed.data.map((note: { id: number }) => note.id), [kept.data.note.id]);
          await session.close();
          assert.deepEqual(await listener.titles(), ["bread"], "each call ran exactly once");
          assert.ok(seen.length >= 8, `the client's responses were recorded (${seen.length})`);
          for (const headers of seen) assert.equal(headers.get("mcp-session-id"), null);
        } finally {
          const result = await listener.stop();
          assert.equal(result.code, 143, result.stderr);
          assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
        }
      });
    }
  });
}

describe("toolwire mcp listen --exec over HTTP: the SDK v2 client hears a CLI's tools change", () => {
  it("auto mode: list_changed through subscriptions/listen, then the new tools are listed and called", async () => {
    const dir = tempDir("toolwire-http-live-");
    const cli = changingCli(dir.path, ["alpha"]);
    const listener = await startHttpListener(
      (
        flags,
      ) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(cli.argv), "--watch-interval", "0.1", ...flags],
    );
    const seen: string[][] = [];
    const client = new Client({ name: "toolwire-http-live", version: "1.0.0" }, {
      versionNegotiation: { mode: "auto" },
      listChanged: {
        tools: {
          onChanged: (error, tools) =>
            void (error ? undefined : seen.push((tools ?? []).map((tool) => tool.name))),
        },
      },
    });
    try {
      // Only a stream the server has begun hears a change: wait for its headers before changing the CLI.
      let listening = false;
      const watching: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (new Headers(init?.headers).get("mcp-method") === "subscriptions/listen") listening = true;
        return response;
      };
      await client.connect(new StreamableHTTPClientTransport(new URL(listener.url), { fetch: watching }));
      assert.equal(client.getProtocolEra(), "modern");
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), [
        "alpha",
        "manifest",
      ]);
      const opened = Date.now() + 15_000;
      while (!listening) {
        if (Date.now() > opened) assert.fail("the client opened no subscriptions/listen stream");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      cli.set(["alpha", "beta"]);
      cli.rewrite();
      const deadline = Date.now() + 15_000;
      while (!seen.some((names) => names.includes("beta"))) {
        if (Date.now() > deadline) assert.fail(`no list_changed with beta; seen ${JSON.stringify(seen)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const beta = await client.callTool({ name: "beta", arguments: {} }) as Loose;
      assert.equal(beta.structuredContent.data.name, "beta");
    } finally {
      await client.close();
      const result = await listener.stop();
      dir.cleanup();
      assert.equal(result.code, 143, result.stderr);
    }
  });
});
