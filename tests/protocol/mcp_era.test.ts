// The era rules and tools/list paging as pure functions, case by case — the real server runs them on every
// request (the wire tests check the same rules end to end).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Era, routeRequest } from "../../lib/protocol/mcp/era.ts";
import { toolsPage } from "../../lib/protocol/mcp/tools_page.ts";
import type { McpTool } from "../../lib/protocol/mcp/tool_catalog.ts";
import { modernMeta } from "../helpers/mcp_wire.ts";

const OPENING: Era = { kind: "opening" };
const MODERN: Era = { kind: "modern" };
const LEGACY: Era = { kind: "legacy", version: "2025-11-25", initialized: true, capabilities: {} };
const claim = { _meta: modernMeta() };

describe("routeRequest", () => {
  it("the opening message decides: initialize, a version claim, discover and ping", () => {
    assert.deepEqual(routeRequest(OPENING, "initialize", {}), { kind: "initialize" });
    const claimed = routeRequest(OPENING, "tools/list", claim);
    assert.equal(claimed.kind, "modern");
    assert.equal(claimed.kind === "modern" && claimed.pins, true, "a modern request pins the era");
    const discover = routeRequest(OPENING, "server/discover", claim);
    assert.equal(
      discover.kind === "modern" && discover.pins,
      false,
      "server/discover is answered without pinning",
    );
    assert.deepEqual(routeRequest(OPENING, "ping", undefined), { kind: "ping" });
    const claimless = routeRequest(OPENING, "tools/list", undefined);
    assert.equal(claimless.kind, "legacy");
    assert.equal(claimless.kind === "legacy" && claimless.pins, true, "a claim-less request pins legacy");
  });

  it("a modern connection validates every request's _meta and refuses initialize naming its versions", () => {
    const missing = routeRequest(MODERN, "tools/list", {});
    assert.equal(missing.kind === "error" && missing.error.code, -32602);
    const old = routeRequest(MODERN, "tools/list", {
      _meta: modernMeta({ "io.modelcontextprotocol/protocolVersion": "2020-01-01" }),
    });
    assert.equal(old.kind === "error" && old.error.code, -32022);
    const initialize = routeRequest(MODERN, "initialize", { protocolVersion: "2025-11-25" });
    assert.equal(initialize.kind === "error" && initialize.error.code, -32022);
    const fine = routeRequest(MODERN, "tools/call", claim);
    assert.equal(fine.kind === "modern" && fine.pins, false);
  });

  it("a legacy connection serves everything in its era, claims or not", () => {
    for (const method of ["tools/list", "initialize", "ping", "server/discover"]) {
      const route = routeRequest(LEGACY, method, claim);
      assert.equal(route.kind, "legacy", method);
      assert.equal(route.kind === "legacy" && route.era, LEGACY);
    }
  });
});

describe("toolsPage", () => {
  const tools: McpTool[] = Array.from(
    { length: 5 },
    (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" } }),
  );

  it("pages through every tool once, in order, by opaque cursors", () => {
    const names: string[] = [];
    let cursor: unknown = undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = toolsPage(tools, cursor, 2);
      assert.ok(!("error" in page));
      names.push(...page.tools.map((tool) => tool.name));
      if (page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
    assert.deepEqual(names, ["t0", "t1", "t2", "t3", "t4"]);
  });

  it("refuses a cursor it did not make, or one past the end of the list", () => {
    for (
      const cursor of [
        "nonsense",
        7,
        btoa(JSON.stringify({ offset: 9 })),
        btoa(JSON.stringify({ offset: -1 })),
        "x".repeat(500),
      ]
    ) {
      const page = toolsPage(tools, cursor, 2);
      assert.equal("error" in page && page.error.code, -32602, String(cursor));
    }
  });
});
