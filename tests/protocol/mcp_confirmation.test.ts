// The confirmation round trip of a destructive MCP tool (docs/confirmation.md), line by line: a modern client
// that declared `elicitation` gets an `input_required` result whose `requestState` is signed with HMAC-SHA256
// and bound to the tool, the arguments, an expiry and a nonce. The state travels through the client, so every
// way of altering or reusing it must be refused with nothing run: it confirms one execution. Expiry (5
// minutes) and the bound on open states are tested in-process with an injected clock.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CONFIRMATION_TTL_MS,
  ConfirmationStates,
  MAX_OPEN_CONFIRMATIONS,
} from "../../lib/command/mcp/confirmation_state.ts";
import { initialize, modern, WireSession } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, programArgv, tempDir } from "../helpers/run.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const ACCEPT = { confirm: { action: "accept", content: { confirm: true } } };

/** A notes `mcp serve` session in the modern era, with a NOTES_HOME of its own. */
class NotesServer {
  readonly session: WireSession;
  readonly #home = tempDir();
  #id = 0;

  constructor() {
    this.session = new WireSession([...NOTES, "--format", "json", "mcp", "serve"], {
      env: { NOTES_HOME: this.#home.path },
    });
  }

  /** A modern tools/call declaring these client capabilities (form elicitation by default). */
  async call(
    name: string,
    args: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    capabilities: Record<string, unknown> = { elicitation: {} },
  ): Promise<Loose> {
    const request = modern(++this.#id, "tools/call", { name, arguments: args, ...extra }, {
      [CAPABILITIES]: capabilities,
    });
    const reply = await this.session.request(request);
    assert.equal(reply.error, undefined, `unexpected protocol error: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  async add(title: string): Promise<number> {
    return (await this.call("add", { title })).structuredContent.data.note.id;
  }

  async titles(): Promise<string[]> {
    return (await this.call("list", {})).structuredContent.data.map((note: { title: string }) => note.title);
  }

  /** Asks to remove a note and returns the interim result's signed state. */
  async askToRemove(id: number, args: Record<string, unknown> = { id }): Promise<string> {
    const result = await this.call("remove", args);
    assert.equal(result.resultType, "input_required", JSON.stringify(result));
    assert.equal(typeof result.requestState, "string");
    return result.requestState;
  }

  async close(): Promise<void> {
    try {
      const result = await this.session.close();
      assert.equal(result.code, 0, result.stderr);
    } finally {
      this.#home.cleanup();
    }
  }
}

async function withServer(body: (server: NotesServer) => Promise<void>): Promise<void> {
  const server = new NotesServer();
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

/** Replaces the character at `index` with another base64url character. */
function flip(text: string, index: number): string {
  const replacement = text[index] === "A" ? "B" : "A";
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`;
}

function decodePayload(body: string): Record<string, unknown> {
  return JSON.parse(atob(body.replaceAll("-", "+").replaceAll("_", "/")));
}

function encodePayload(payload: Record<string, unknown>): string {
  return btoa(JSON.stringify(payload)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Asserts a refused confirmation: an isError tool result (not a protocol error) with this code. */
function assertRefused(result: Loose, code: string): void {
  assert.equal(result.resultType, "complete");
  assert.equal(result.isError, true, JSON.stringify(result));
  assert.equal(result.structuredContent.error.code, code, JSON.stringify(result.structuredContent.error));
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
}

describe("destructive tools over the wire: the input_required confirmation", () => {
  it("a modern client declaring elicitation gets input_required with inputRequests.confirm (elicitation/create) and a requestState; nothing is deleted yet", async () => {
    await withServer(async (server) => {
      const id = await server.add("doomed");
      const result = await server.call("remove", { id });
      assert.equal(result.resultType, "input_required");
      assert.deepEqual(Object.keys(result.inputRequests), ["confirm"]);
      const confirm = result.inputRequests.confirm;
      assert.equal(confirm.method, "elicitation/create");
      assert.equal(confirm.params.mode, "form");
      assert.match(confirm.params.message, /doomed/, "the question shows the preview");
      assert.equal(confirm.params.requestedSchema.type, "object");
      assert.equal(confirm.params.requestedSchema.properties.confirm.type, "boolean");
      assert.deepEqual(confirm.params.requestedSchema.required, ["confirm"]);
      assert.match(result.requestState, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      assert.equal(result.content, undefined, "an interim result is not a tool result");
      assert.deepEqual(await server.titles(), ["doomed"]);
    });
  });

  it("a destructive call whose preview fails answers at once: nothing to confirm", async () => {
    await withServer(async (server) => {
      const result = await server.call("remove", { id: 41 });
      assertRefused(result, "NOT_FOUND");
      assert.equal(result.requestState, undefined);
    });
  });

  it("retrying with that requestState and an accepting inputResponses runs the tool", async () => {
    await withServer(async (server) => {
      const id = await server.add("doomed");
      await server.add("kept");
      const requestState = await server.askToRemove(id);
      const result = await server.call("remove", { id }, { requestState, inputResponses: ACCEPT });
      assert.equal(result.resultType, "complete");
      assert.equal(result.isError, false, JSON.stringify(result));
      assert.equal(result.structuredContent.data.effect, "deleted");
      assert.equal(result.structuredContent.data.note.title, "doomed");
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a keyed destructive call that already ran is replayed with effect noop, not asked again", async () => {
    await withServer(async (server) => {
      const id = await server.add("doomed");
      const args = { id, idempotency_key: "remove-once" };
      const requestState = await server.askToRemove(id, args);
      const first = await server.call("remove", args, { requestState, inputResponses: ACCEPT });
      assert.equal(first.structuredContent.data.effect, "deleted");
      // The client lost the answer and repeats the call: the store answers, nothing runs, nothing to confirm.
      const again = await server.call("remove", args);
      assert.equal(again.resultType, "complete", JSON.stringify(again));
      assert.equal(again.isError, false, JSON.stringify(again.structuredContent));
      assert.equal(again.structuredContent.data.effect, "noop");
      assert.deepEqual(again.structuredContent.data.note, first.structuredContent.data.note);
      assert.equal(again.structuredContent.meta.idempotency_hit, true);
      // The same key on other arguments is still a conflict, not a question.
      const other = await server.call("remove", { id: id + 1, idempotency_key: "remove-once" });
      assertRefused(other, "IDEMPOTENCY_CONFLICT");
    });
  });

  it("declining, cancelling or accepting without confirm: true deletes nothing", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      const answers: unknown[] = [
        { confirm: { action: "decline" } },
        { confirm: { action: "cancel" } },
        { confirm: { action: "accept", content: { confirm: false } } },
        { confirm: { action: "accept" } },
        { other: { action: "accept", content: { confirm: true } } },
        {},
      ];
      for (const inputResponses of answers) {
        const requestState = await server.askToRemove(id);
        assertRefused(
          await server.call("remove", { id }, { requestState, inputResponses }),
          "CONFIRMATION_DECLINED",
        );
      }
      // No answers at all.
      assertRefused(
        await server.call("remove", { id }, { requestState: await server.askToRemove(id) }),
        "CONFIRMATION_DECLINED",
      );
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a requestState with one character of its signature flipped is refused with CONFIRMATION_INVALID and nothing runs", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      const state = await server.askToRemove(id);
      const dot = state.indexOf(".");
      for (const index of [dot + 1, dot + 10]) {
        assertRefused(
          await server.call("remove", { id }, { requestState: flip(state, index), inputResponses: ACCEPT }),
          "CONFIRMATION_INVALID",
        );
      }
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a requestState with one character of its payload flipped, or a rewritten payload, is refused and nothing runs", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      const state = await server.askToRemove(id);
      const [body, signature] = state.split(".") as [string, string];
      assertRefused(
        await server.call("remove", { id }, { requestState: flip(state, 10), inputResponses: ACCEPT }),
        "CONFIRMATION_INVALID",
      );
      // A well-formed payload with a later expiry, under the original signature.
      const payload = decodePayload(body);
      const extended = `${
        encodePayload({ ...payload, exp: (payload.exp as number) + 3_600_000 })
      }.${signature}`;
      assertRefused(
        await server.call("remove", { id }, { requestState: extended, inputResponses: ACCEPT }),
        "CONFIRMATION_INVALID",
      );
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a requestState replayed with different arguments is refused and nothing runs", async () => {
    await withServer(async (server) => {
      const first = await server.add("first");
      const second = await server.add("second");
      const state = await server.askToRemove(first);
      assertRefused(
        await server.call("remove", { id: second }, { requestState: state, inputResponses: ACCEPT }),
        "CONFIRMATION_INVALID",
      );
      assertRefused(
        await server.call("remove", { id: first, dry_run: false }, {
          requestState: state,
          inputResponses: ACCEPT,
        }),
        "CONFIRMATION_INVALID",
      );
      assert.deepEqual((await server.titles()).sort(), ["first", "second"]);
      // The state still confirms exactly the call it was issued for.
      const result = await server.call("remove", { id: first }, {
        requestState: state,
        inputResponses: ACCEPT,
      });
      assert.equal(result.structuredContent.data.effect, "deleted");
      assert.deepEqual(await server.titles(), ["second"]);
    });
  });

  it("a garbage requestState is refused and nothing runs", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      const garbage: unknown[] = [
        "garbage",
        "",
        ".",
        "a.b",
        "a.b.c",
        "!!!.???",
        "x".repeat(5000),
        42,
        null,
        {},
        ["a.b"],
      ];
      for (const requestState of garbage) {
        const result = await server.call("remove", { id }, { requestState, inputResponses: ACCEPT });
        assertRefused(result, "CONFIRMATION_INVALID");
      }
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a requestState issued by another server process is refused: the key is per process", async () => {
    const issuer = new NotesServer();
    let state: string;
    try {
      state = await issuer.askToRemove(await issuer.add("elsewhere"));
    } finally {
      await issuer.close();
    }
    await withServer(async (server) => {
      const id = await server.add("kept");
      assertRefused(
        await server.call("remove", { id }, { requestState: state, inputResponses: ACCEPT }),
        "CONFIRMATION_INVALID",
      );
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("only a client that can answer a form is asked: URL-mode-only elicitation gets CONFIRMATION_REQUIRED instead", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      // `{}` is form mode (the shape before URL mode existed); `form` may also be named beside `url`.
      for (const elicitation of [{}, { form: {} }, { form: {}, url: {} }]) {
        assert.equal(
          (await server.call("remove", { id }, {}, { elicitation })).resultType,
          "input_required",
          JSON.stringify(elicitation),
        );
      }
      // A URL-only client rejects a form request outright, so it gets the preview; so does a non-object.
      for (const elicitation of [{ url: {} }, null, true]) {
        const result = await server.call("remove", { id }, {}, { elicitation });
        assertRefused(result, "CONFIRMATION_REQUIRED");
        assert.equal(result.structuredContent.error.preview.effect, "would_delete");
      }
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a client without elicitation cannot confirm through requestState: it gets CONFIRMATION_REQUIRED and nothing runs", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      const state = await server.askToRemove(id);
      // Modern, without the capability on this request (capabilities are per request).
      const modernResult = await server.call("remove", { id }, {
        requestState: state,
        inputResponses: ACCEPT,
      }, {});
      assertRefused(modernResult, "CONFIRMATION_REQUIRED");
      assert.equal(modernResult.structuredContent.error.preview.effect, "would_delete");
      assert.deepEqual(await server.titles(), ["kept"]);
    });
    // Legacy: no input_required exists there; the preview comes back instead.
    const home = tempDir();
    try {
      const legacy = new WireSession([...NOTES, "--format", "json", "mcp", "serve"], {
        env: { NOTES_HOME: home.path },
      });
      await legacy.request(initialize(0));
      const call = (id: number, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        legacy.request({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "remove", arguments: args, ...extra },
        });
      const added = await legacy.request({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", arguments: { title: "kept" } },
      });
      const id = added.result.structuredContent.data.note.id;
      const refused = await call(2, { id }, { requestState: "forged.state", inputResponses: ACCEPT });
      assert.equal(refused.result.resultType, undefined, "legacy results carry no resultType");
      assert.equal(refused.result.isError, true);
      assert.equal(refused.result.structuredContent.error.code, "CONFIRMATION_REQUIRED");
      const listed = await legacy.request({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "list", arguments: {} },
      });
      assert.equal(listed.result.structuredContent.data.length, 1);
      assert.equal((await legacy.close()).code, 0);
    } finally {
      home.cleanup();
    }
  });
});

describe("a requestState confirms one execution", () => {
  it("accepted and sent again, it gets exactly the refusal a tampered state gets, and nothing runs", async () => {
    await withServer(async (server) => {
      const id = await server.add("doomed");
      await server.add("kept");
      const requestState = await server.askToRemove(id);
      const first = await server.call("remove", { id }, { requestState, inputResponses: ACCEPT });
      assert.equal(first.structuredContent.data.effect, "deleted");
      const replayed = await server.call("remove", { id }, { requestState, inputResponses: ACCEPT });
      assertRefused(replayed, "CONFIRMATION_INVALID");
      const tampered = await server.call("remove", { id }, {
        requestState: flip(requestState, requestState.indexOf(".") + 1),
        inputResponses: ACCEPT,
      });
      assert.deepEqual(replayed.structuredContent.error, tampered.structuredContent.error);
      assert.deepEqual(await server.titles(), ["kept"]);
    });
  });

  it("a declined state cannot be answered again with an accept: nothing is deleted", async () => {
    await withServer(async (server) => {
      const id = await server.add("kept");
      const requestState = await server.askToRemove(id);
      assertRefused(
        await server.call("remove", { id }, {
          requestState,
          inputResponses: { confirm: { action: "decline" } },
        }),
        "CONFIRMATION_DECLINED",
      );
      assertRefused(
        await server.call("remove", { id }, { requestState, inputResponses: ACCEPT }),
        "CONFIRMATION_INVALID",
      );
      assert.deepEqual(await server.titles(), ["kept"]);
      // Asking anew works as before.
      const fresh = await server.askToRemove(id);
      assert.equal(
        (await server.call("remove", { id }, { requestState: fresh, inputResponses: ACCEPT }))
          .structuredContent.data.effect,
        "deleted",
      );
    });
  });

  // lab's `wipe` reports "deleted" every time it runs, so a second execution cannot hide behind NOT_FOUND.
  const LAB = programArgv("tests/fixtures/lab.ts");
  const labServers: Array<[label: string, argv: string[]]> = [
    ["lab mcp serve", [...LAB, "--format", "json", "mcp", "serve"]],
    ["toolwire mcp serve --exec lab", [
      ...TOOLWIRE,
      "--format",
      "json",
      "mcp",
      "serve",
      "--exec",
      execLine(LAB),
    ]],
  ];
  for (const [label, argv] of labServers) {
    it(`${label}: replayed later or raced in the same instant, a state runs the destructive command once`, async () => {
      const session = new WireSession(argv);
      let id = 0;
      const wipe = (extra: Record<string, unknown> = {}) =>
        modern(++id, "tools/call", { name: "wipe", arguments: { target: "everything" }, ...extra }, {
          [CAPABILITIES]: { elicitation: {} },
        });
      try {
        const asked = (await session.request(wipe())).result;
        assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
        const confirmed = { requestState: asked.requestState, inputResponses: ACCEPT };
        const first = (await session.request(wipe(confirmed))).result;
        assert.equal(first.structuredContent.data.effect, "deleted", JSON.stringify(first));
        assertRefused((await session.request(wipe(confirmed))).result, "CONFIRMATION_INVALID");

        const raced = (await session.request(wipe())).result;
        const both = { requestState: raced.requestState, inputResponses: ACCEPT };
        const lines = [wipe(both), wipe(both)].map((message) => JSON.stringify(message)).join("\n");
        session.send(lines);
        const results = (await session.take(2, 20_000)).map((reply) => reply.result);
        const deleted = results.filter((result) => result.structuredContent.data?.effect === "deleted");
        assert.equal(deleted.length, 1, JSON.stringify(results));
        assertRefused(results.find((result) => result.isError), "CONFIRMATION_INVALID");
      } finally {
        const result = await session.close();
        assert.equal(result.code, 0, result.stderr);
      }
    });
  }
});

describe("ConfirmationStates (in-process, injected clock)", () => {
  const start = 1_800_000_000_000;

  function statesAt(): { states: ConfirmationStates; clock: { now: number } } {
    const clock = { now: start };
    return { states: new ConfirmationStates(() => clock.now), clock };
  }

  it("a state is valid until its expiry, five minutes after issue, and expired one millisecond later", async () => {
    const { states, clock } = statesAt();
    assert.equal(CONFIRMATION_TTL_MS, 5 * 60 * 1000);
    const early = await states.issue("remove", { id: 3 });
    const onTime = await states.issue("remove", { id: 3 });
    const late = await states.issue("remove", { id: 3 });
    assert.equal(await states.redeem(early, "remove", { id: 3 }), undefined);
    clock.now = start + CONFIRMATION_TTL_MS;
    assert.equal(await states.redeem(onTime, "remove", { id: 3 }), undefined);
    clock.now = start + CONFIRMATION_TTL_MS + 1;
    assert.equal(await states.redeem(late, "remove", { id: 3 }), "expired");
  });

  it("a state is bound to the tool and to the arguments, whatever their key order, but not to confirm_destructive", async () => {
    const { states } = statesAt();
    const args = { id: 3, note: { b: 1, a: 2 } };
    const state = await states.issue("remove", args);
    assert.equal(await states.redeem(state, "wipe", args), "wrong_call");
    assert.equal(await states.redeem(state, "remove", { id: 4, note: { b: 1, a: 2 } }), "wrong_call");
    assert.equal(await states.redeem(state, "remove", { id: 3 }), "wrong_call");
    assert.equal(await states.redeem(state, "remove", { ...args, dry_run: false }), "wrong_call");
    // A state offered for another call stays good for its own.
    assert.equal(await states.redeem(state, "remove", { note: { a: 2, b: 1 }, id: 3 }), undefined);
    const again = await states.issue("remove", args);
    assert.equal(await states.redeem(again, "remove", { ...args, confirm_destructive: true }), undefined);
  });

  it("a state confirms one execution: redeemed again it is spent, and of concurrent redemptions exactly one wins", async () => {
    const { states } = statesAt();
    const state = await states.issue("remove", { id: 3 });
    assert.equal(states.open, 1);
    assert.equal(await states.redeem(state, "remove", { id: 3 }), undefined);
    assert.equal(states.open, 0);
    assert.equal(await states.redeem(state, "remove", { id: 3 }), "spent");
    const raced = await states.issue("remove", { id: 3 });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => states.redeem(raced, "remove", { id: 3 })),
    );
    assert.deepEqual(outcomes.filter((outcome) => outcome === undefined).length, 1, JSON.stringify(outcomes));
    assert.deepEqual(outcomes.filter((outcome) => outcome === "spent").length, 7);
  });

  it(`open states are bounded: expired ones are dropped, and past ${MAX_OPEN_CONFIRMATIONS} the oldest is forgotten (then refused)`, async () => {
    const { states, clock } = statesAt();
    assert.equal(MAX_OPEN_CONFIRMATIONS, 1000);
    const first = await states.issue("remove", { id: 0 });
    for (let id = 1; id < MAX_OPEN_CONFIRMATIONS; id++) await states.issue("remove", { id });
    assert.equal(states.open, MAX_OPEN_CONFIRMATIONS);
    const newest = await states.issue("remove", { id: MAX_OPEN_CONFIRMATIONS });
    assert.equal(states.open, MAX_OPEN_CONFIRMATIONS);
    assert.equal(
      await states.redeem(first, "remove", { id: 0 }),
      "spent",
      "forgetting refuses, never admits",
    );
    assert.equal(await states.redeem(newest, "remove", { id: MAX_OPEN_CONFIRMATIONS }), undefined);
    clock.now = start + CONFIRMATION_TTL_MS + 1;
    const fresh = await states.issue("remove", { id: 1 });
    assert.equal(states.open, 1, "every expired state was dropped");
    assert.equal(await states.redeem(fresh, "remove", { id: 1 }), undefined);
  });

  it("an altered state is tampered; one from another key is tampered; a malformed one is malformed", async () => {
    const { states } = statesAt();
    const other = new ConfirmationStates(() => start);
    const state = await states.issue("remove", { id: 3 });
    const dot = state.indexOf(".");
    assert.equal(await states.redeem(flip(state, dot + 1), "remove", { id: 3 }), "tampered");
    assert.equal(await states.redeem(flip(state, 5), "remove", { id: 3 }), "tampered");
    const [body, signature] = state.split(".") as [string, string];
    const payload = decodePayload(body);
    const extended = `${encodePayload({ ...payload, exp: (payload.exp as number) + 1 })}.${signature}`;
    assert.equal(await states.redeem(extended, "remove", { id: 3 }), "tampered");
    assert.equal(await other.redeem(state, "remove", { id: 3 }), "tampered");
    for (
      const garbage of [
        42,
        null,
        undefined,
        "no-dot",
        "a.b.c",
        "!!.??",
        "x".repeat(3000),
        `${body}.${signature}.`,
      ]
    ) {
      assert.equal(await states.redeem(garbage, "remove", { id: 3 }), "malformed", String(garbage));
    }
    // None of those refusals used the state up.
    assert.equal(await states.redeem(state, "remove", { id: 3 }), undefined);
  });
});
