// JSON-RPC decoding and classification, in-process.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyMessage, decodeJson, RpcErrorCode } from "../../lib/protocol/json_rpc.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("decodeJson", () => {
  it("accepts valid UTF-8, a real U+FFFD character included", () => {
    const decoded = decodeJson(bytes('{"text":"a\uFFFDb é"}'));
    assert.deepEqual(decoded, { ok: true, value: { text: "a\uFFFDb é" } });
  });

  it("refuses invalid UTF-8 with -32700, whether or not a real U+FFFD is also present", () => {
    for (const raw of [[0x22, 0xff, 0x22], [0x22, 0xef, 0xbf, 0xbd, 0xc3, 0x22], [0x22, 0xe2, 0x82, 0x22]]) {
      const decoded = decodeJson(Uint8Array.from(raw));
      assert.equal(decoded.ok, false);
      if (!decoded.ok) {
        assert.equal(decoded.error.code, RpcErrorCode.PARSE_ERROR);
        assert.match(decoded.error.message, /UTF-8/);
      }
    }
  });

  it("refuses text that is not JSON with -32700", () => {
    const decoded = decodeJson(bytes("{nope"));
    assert.equal(decoded.ok, false);
  });
});

describe("classifyMessage", () => {
  it("sorts requests, notifications, responses, batches and invalid shapes", () => {
    assert.equal(classifyMessage({ jsonrpc: "2.0", id: 1, method: "m" }).kind, "request");
    assert.equal(classifyMessage({ jsonrpc: "2.0", method: "m" }).kind, "notification");
    assert.equal(classifyMessage({ jsonrpc: "2.0", id: 1, result: {} }).kind, "response");
    assert.equal(classifyMessage([]).kind, "batch");
    assert.deepEqual(classifyMessage({ jsonrpc: "2.0", id: 1.5, method: "m" }), {
      kind: "invalid",
      id: null,
      reason: "id must be a string or an integer from -(2^53 - 1) to 2^53 - 1",
    });
    for (const id of [2 ** 53, -(2 ** 53), 1e309, -0.5]) {
      const refused = classifyMessage({ jsonrpc: "2.0", id, method: "m" });
      assert.equal(refused.kind, "invalid", String(id));
    }
    for (const id of [2 ** 53 - 1, -(2 ** 53 - 1), 0, ""]) {
      assert.equal(classifyMessage({ jsonrpc: "2.0", id, method: "m" }).kind, "request", String(id));
    }
    assert.equal(classifyMessage({ jsonrpc: "1.0", id: 1, method: "m" }).kind, "invalid");
    assert.equal(classifyMessage({ jsonrpc: "2.0", id: 1, method: "m", params: [1] }).kind, "invalid");
    assert.equal(classifyMessage("text").kind, "invalid");
  });
});
