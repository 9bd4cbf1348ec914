// Lone surrogates: a JavaScript string (and so a JSON string, `"\ud800"`) can hold half of a UTF-16 pair,
// which no UTF-8 can; `TextEncoder` turns every one into U+FFFD. Texts that differ only there must never be
// taken for one another: not as idempotency keys (the second call would replay the first call's data and its
// own write would be lost), not in a call's fingerprint, not in a confirmation's digest. A bridged CLI can
// only get well-formed text on its command line, so such an argument is refused there.
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { sha256Tag } from "../../lib/json.ts";
import { ConfirmationStates } from "../../lib/command/mcp/confirmation_state.ts";
import { initialize, WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, tempDir } from "../helpers/run.ts";
import { execLine, pyfix, TOOLWIRE } from "../helpers/toolwire.ts";

/** Three texts TextEncoder makes one: a lone high surrogate, a lone low one, and U+FFFD itself. */
const LOOKALIKES = ["\ud800", "\udc00", "\ufffd"] as const;

/** A legacy session with `argv`'s MCP server, initialized. */
async function session(argv: readonly string[], env: Record<string, string> = {}): Promise<WireSession> {
  const s = new WireSession(argv, { env });
  await s.request(initialize(0));
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return s;
}

let nextId = 1;

/** A `tools/call`, sent as one JSON line (JSON.stringify writes a lone surrogate as its `\u` escape). */
async function call(s: WireSession, name: string, args: Record<string, unknown>): Promise<Loose> {
  const reply = await s.request({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name, arguments: args },
  });
  assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  return reply.result.structuredContent;
}

describe("lone surrogates", () => {
  it("sha256Tag: each of the three has a digest of its own; well-formed text keeps its UTF-8 digest", async () => {
    const digests = await Promise.all(LOOKALIKES.map((text) => sha256Tag(text)));
    assert.equal(new Set(digests).size, 3, digests.join(" "));
    for (const text of ["abc", "\ufffd", "a\ud83d\ude00b", ""]) {
      const expected = createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
      assert.equal(await sha256Tag(text), `sha256:${expected}`, JSON.stringify(text));
    }
  });

  it("idempotency keys '\\ud800', '\\udc00' and '\\ufffd' are three keys: three notes, no replay of another's", async () => {
    const home = tempDir();
    try {
      const s = await session([...NOTES, "mcp", "serve"], { NOTES_HOME: home.path });
      const ids: number[] = [];
      for (const key of LOOKALIKES) {
        const envelope = await call(s, "add", { title: `key ${key.charCodeAt(0)}`, idempotency_key: key });
        assert.equal(envelope.ok, true, JSON.stringify(envelope));
        assert.equal(envelope.data.effect, "created", `key U+${key.charCodeAt(0).toString(16)}`);
        ids.push(envelope.data.note.id);
      }
      assert.equal(new Set(ids).size, 3);
      // Each key still replays its own call.
      const again = await call(s, "add", { title: `key ${0xd800}`, idempotency_key: "\ud800" });
      assert.equal(again.data.effect, "noop");
      assert.equal(again.data.note.id, ids[0]);
      const listed = await call(s, "list", {});
      assert.equal(listed.data.length, 3);
      await s.close();
    } finally {
      home.cleanup();
    }
  });

  it("the call fingerprint tells them apart: one key with a title of each is a CONFLICT, not a replay", async () => {
    const home = tempDir();
    try {
      const s = await session([...NOTES, "mcp", "serve"], { NOTES_HOME: home.path });
      const first = await call(s, "add", { title: "\ud800", idempotency_key: "same" });
      assert.equal(first.data.effect, "created");
      for (const title of ["\udc00", "\ufffd"]) {
        const other = await call(s, "add", { title, idempotency_key: "same" });
        assert.equal(other.ok, false, JSON.stringify(other));
        assert.equal(other.meta.exit_code, 6);
        assert.equal(other.error.code, "IDEMPOTENCY_CONFLICT");
      }
      await s.close();
    } finally {
      home.cleanup();
    }
  });

  it("a confirmation for one is no confirmation for another", async () => {
    const states = new ConfirmationStates();
    for (const [issued, redeemed] of [["\ud800", "\ufffd"], ["\udc00", "\ud800"], ["\ufffd", "\udc00"]]) {
      const state = await states.issue("notes_remove", { name: issued });
      assert.equal(await states.redeem(state, "notes_remove", { name: redeemed }), "wrong_call");
      assert.equal(await states.redeem(state, "notes_remove", { name: issued }), undefined);
    }
  });

  it("the bridge refuses a lone surrogate in an argument or a key (ARG_ERROR): the CLI would get U+FFFD", async () => {
    const dir = tempDir();
    try {
      const s = await session([...TOOLWIRE, "mcp", "serve", "--exec", execLine(pyfix()), "--cwd", dir.path]);
      for (
        const [tool, args, field] of [
          ["store_put", { key: "a\ud800", value: "v" }, "key"],
          ["echo", { text: "t", tag: ["x", "\udc00"] }, "tag"],
          ["echo", { text: "t", words: ["\ud800"] }, "words"],
          ["store_put", { key: "k", value: "v", idempotency_key: "\udc00" }, "idempotency_key"],
        ] as const
      ) {
        const envelope = await call(s, tool, args);
        assert.equal(envelope.ok, false, JSON.stringify(envelope));
        assert.equal(envelope.error.code, "ARG_ERROR");
        assert.match(
          envelope.error.message,
          new RegExp(
            `^${field} contains a lone surrogate \\(half of a UTF-16 pair\\), which a command line cannot carry`,
          ),
        );
      }
      // Well-formed text, a pair included, goes through.
      const ok = await call(s, "store_put", { key: "k", value: "a\ud83d\ude00b" });
      assert.equal(ok.ok, true, JSON.stringify(ok));
      await s.close();
    } finally {
      dir.cleanup();
    }
  });
});
