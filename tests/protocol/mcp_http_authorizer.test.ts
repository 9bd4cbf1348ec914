// The `authorizer` seam of the HTTP endpoint, with an authorizer and a catalog of this test's own, called with
// web `Request`s: the metadata's CORS and methods, a catalog's `requiredScopes` filtering the list and
// refusing calls (a 2026-07-28 call 403, a refused call inside a legacy 2025-03-26 batch a JSON-RPC error
// beside the others' answers), the caller reaching `ToolCallContext.caller`, 503 while tokens cannot be
// checked, and an endpoint without an authorizer left as it was.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type HttpAuthorizer,
  type McpCaller,
  McpHttpEndpoint,
  type ToolCatalog,
} from "../../lib/protocol/mcp/mod.ts";
import { legacyHeaders, modernHeaders } from "../helpers/http_listener.ts";
import { modern } from "../helpers/mcp_wire.ts";
import type { Loose } from "../helpers/run.ts";

const URL_ = "http://127.0.0.1:7010/mcp";

/** `peek` needs nothing, `poke` needs `box:write`; each call records who made it. */
function catalog(ran: Array<{ tool: string; caller: McpCaller | undefined }>): ToolCatalog {
  const scopes: Record<string, string[]> = { peek: [], poke: ["box:write"] };
  return {
    tools: () => Object.keys(scopes).map((name) => ({ name, inputSchema: { type: "object" } })),
    requiredScopes: (name) => scopes[name],
    call: (call, context) => {
      ran.push({ tool: call.name, caller: context.caller });
      return Promise.resolve({ kind: "result", result: { content: [{ type: "text", text: call.name }] } });
    },
  };
}

/** Tokens are caller names: `reader` holds no scope, `writer` holds `box:write`; `down` cannot be checked. */
const authorizer: HttpAuthorizer = {
  resource: URL_,
  authorizationServers: ["https://auth.example.com"],
  authenticate: (authorization) => {
    const token = authorization?.replace(/^Bearer /, "");
    if (token === "reader" || token === "writer") {
      const scopes = token === "writer" ? ["box:write"] : [];
      return Promise.resolve({ caller: { subject: token, clientId: `${token}-app`, scopes, claims: {} } });
    }
    if (token === "down") return Promise.resolve({ refused: "unavailable", description: "keys unreachable" });
    return Promise.resolve({
      refused: token === undefined ? "no_token" : "invalid_token",
      description: "unknown token",
    });
  },
};

function endpoint(ran: Array<{ tool: string; caller: McpCaller | undefined }>, log: string[] = []) {
  return new McpHttpEndpoint({
    serverInfo: { name: "box", version: "1.0.0" },
    catalog: catalog(ran),
    authorizer,
    log: (line) => log.push(line),
  });
}

function request(body: unknown, headers: Record<string, string>, token?: string): Request {
  return new Request(URL_, {
    method: "POST",
    headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
}

describe("the HTTP endpoint's authorizer", () => {
  it("the metadata answers GET and the CORS preflight to any origin, and 405 to anything else", async () => {
    const served = endpoint([]);
    const url = "http://127.0.0.1:7010/.well-known/oauth-protected-resource/mcp";
    const got = await served.fetch(new Request(url, { headers: { origin: "https://elsewhere.example" } }));
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await got.json(), {
      resource: URL_,
      authorization_servers: ["https://auth.example.com"],
      scopes_supported: ["box:write"],
      bearer_methods_supported: ["header"],
      resource_name: "box",
    });
    assert.equal((await served.fetch(new Request(url, { method: "OPTIONS" }))).status, 204);
    const posted = await served.fetch(new Request(url, { method: "POST", body: "{}" }));
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get("allow"), "GET, OPTIONS");
    await served.close();
  });

  it("a caller lists the tools its scopes cover; a call of another is 403 and runs nothing", async () => {
    const ran: Array<{ tool: string; caller: McpCaller | undefined }> = [];
    const log: string[] = [];
    const served = endpoint(ran, log);
    const listed = await served.fetch(
      request(modern(1, "tools/list"), modernHeaders("tools/list"), "reader"),
    );
    assert.deepEqual(
      ((await listed.json()) as Loose).result.tools.map((tool: { name: string }) => tool.name),
      ["peek"],
    );
    const refused = await served.fetch(
      request(
        modern(2, "tools/call", { name: "poke", arguments: {} }),
        modernHeaders("tools/call", "poke"),
        "reader",
      ),
    );
    assert.equal(refused.status, 403);
    assert.match(
      refused.headers.get("www-authenticate")!,
      /^Bearer error="insufficient_scope", scope="box:write"/,
    );
    assert.deepEqual(((await refused.json()) as Loose).error.data, { required_scopes: ["box:write"] });
    assert.deepEqual(ran, []);
    const poked = await served.fetch(
      request(
        modern(3, "tools/call", { name: "poke", arguments: {} }),
        modernHeaders("tools/call", "poke"),
        "writer",
      ),
    );
    assert.equal(poked.status, 200);
    assert.deepEqual(ran, [{
      tool: "poke",
      caller: { subject: "writer", clientId: "writer-app", scopes: ["box:write"], claims: {} },
    }]);
    assert.deepEqual(log.map((line) => JSON.parse(line.replace(/^mcp audit: /, "")).outcome), [
      "denied",
      "ok",
    ]);
    await served.close();
  });

  it("in a legacy 2025-03-26 batch, the refused call is a JSON-RPC error beside the other answers", async () => {
    const ran: Array<{ tool: string; caller: McpCaller | undefined }> = [];
    const served = endpoint(ran);
    const answer = await served.fetch(request(
      [
        { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "peek", arguments: {} } },
        { jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "poke", arguments: {} } },
      ],
      legacyHeaders(),
      "reader",
    ));
    assert.equal(answer.status, 200);
    const [peeked, poked] = (await answer.json()) as Loose[];
    assert.deepEqual(peeked.result.content, [{ type: "text", text: "peek" }]);
    assert.equal(poked.id, "b");
    assert.deepEqual(poked.error.data, { required_scopes: ["box:write"] });
    assert.deepEqual(ran.map((call) => call.tool), ["peek"]);
    await served.close();
  });

  it("no token is 401 naming the metadata; tokens that cannot be checked now are 503", async () => {
    const served = endpoint([]);
    const none = await served.fetch(request(modern(1, "tools/list"), modernHeaders("tools/list")));
    assert.equal(none.status, 401);
    assert.equal(
      none.headers.get("www-authenticate"),
      'Bearer resource_metadata="http://127.0.0.1:7010/.well-known/oauth-protected-resource/mcp", scope="box:write"',
    );
    const down = await served.fetch(request(modern(1, "tools/list"), modernHeaders("tools/list"), "down"));
    assert.equal(down.status, 503);
    assert.equal(down.headers.get("retry-after"), "5");
    await served.close();
  });

  it("without an authorizer nothing changes: no metadata, every tool for anyone, no caller", async () => {
    const ran: Array<{ tool: string; caller: McpCaller | undefined }> = [];
    const served = new McpHttpEndpoint({
      serverInfo: { name: "box", version: "1.0.0" },
      catalog: catalog(ran),
    });
    const metadata = await served.fetch(
      new Request("http://127.0.0.1:7010/.well-known/oauth-protected-resource"),
    );
    assert.equal(metadata.status, 404);
    const poked = await served.fetch(
      request(modern(1, "tools/call", { name: "poke", arguments: {} }), modernHeaders("tools/call", "poke")),
    );
    assert.equal(poked.status, 200);
    assert.deepEqual(ran, [{ tool: "poke", caller: undefined }]);
    await served.close();
  });
});
