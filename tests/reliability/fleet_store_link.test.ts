// Exactly once when one instance's link to Redis stalls or loses a reply (docs/scaling.md): two real
// `notes mcp listen` instances share one Redis; instance 1 reaches it through a proxy (StoreLink) that holds
// its bytes back without a reset, or passes a command on and loses its reply; instance 2 reaches it directly.
// Skipped, saying why, without redis-server and haproxy (installed with apt-get when missing and run as root).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ensurePrograms, Fleet, sleep } from "../../scripts/soak/fleet_parts.ts";
import { type CallAnswer, callTool } from "../../scripts/soak/fleet_calls.ts";
import { NOTES } from "../helpers/run.ts";

/** A reservation's record, as the instances write it: what the link stalls or loses the reply of. */
const RESERVATION = '"state":"pending"';
/** The store's bound on one command is 2 s; a refusal must come well before the 10 s lease lapses. */
const REFUSED_WITHIN_MS = 6_000;

/** `answer` if it settles within `ms`, else a marker saying it did not (the call is still running). */
async function within(ms: number, answer: Promise<CallAnswer>): Promise<CallAnswer | "no answer"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"no answer">((resolve) => timer = setTimeout(() => resolve("no answer"), ms));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `answer` is the refusal of a store that did not answer: exit 12, retryable; `log` is the instance's stderr. */
function assertRefusedRetryable(answer: CallAnswer | "no answer", what: string, log: string): void {
  assert.notEqual(answer, "no answer", `${what}: no answer within ${REFUSED_WITHIN_MS} ms`);
  const envelope = (answer as CallAnswer).envelope;
  assert.equal(
    envelope?.error?.code,
    "STATE_STORE_UNAVAILABLE",
    `${what}: ${JSON.stringify(answer)}\n${log}`,
  );
  assert.equal(envelope?.error?.retryable, true);
  assert.equal(envelope?.meta.exit_code, 12);
}

const parts = ensurePrograms(["redis-server", "haproxy"], (line) => console.log(line));
describe("two notes instances on one Redis, instance 1 through a link that stalls or loses replies", {
  skip: parts.ok ? false : `needs Redis and haproxy: ${parts.reason}`,
}, () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await Fleet.start({ notes: NOTES, balancer: "haproxy", instances: 2, linked: [0] });
  });
  after(async () => {
    fleet.link(0)?.release();
    await fleet?.stop();
  });
  const [a, b] = [0, 1];
  const titled = (title: string) => fleet.notes().filter((note) => note.title === title).length;

  it("the link stalls at A's reservation: A refuses within the bound and runs nothing, B runs the key once, and after the link recovers there is one note", async () => {
    const key = "stall-1";
    fleet.link(a)!.holdOn(RESERVATION);
    const first = await within(
      REFUSED_WITHIN_MS,
      callTool(fleet.instanceUrl(a), "add", { title: key, idempotency_key: key }),
    );
    assertRefusedRetryable(first, "A's keyed add", fleet.instanceOutput(a));
    assert.ok(fleet.link(a)!.holding, "the stall began at A's reservation");
    // While the link is stalled: another keyed call, and a destructive call confirmed by its flag.
    const other = callTool(fleet.instanceUrl(a), "add", {
      title: "stall-other",
      idempotency_key: "stall-other",
    });
    assertRefusedRetryable(
      await within(REFUSED_WITHIN_MS, other),
      "another keyed add on A",
      fleet.instanceOutput(a),
    );
    const remove = callTool(fleet.instanceUrl(a), "remove", { id: 1, confirm_destructive: true });
    assertRefusedRetryable(
      await within(REFUSED_WITHIN_MS, remove),
      "a confirmed remove on A",
      fleet.instanceOutput(a),
    );
    // B takes the key once A's lease has lapsed, and runs it.
    const second = await callTool(fleet.instanceUrl(b), "add", { title: key, idempotency_key: key });
    assert.equal(second.envelope?.data?.effect, "created", JSON.stringify(second));
    // The link recovers: whatever A sent lands now, and must change nothing.
    fleet.link(a)!.release();
    await sleep(1_500);
    const third = await callTool(fleet.instanceUrl(a), "add", { title: key, idempotency_key: key });
    assert.equal(third.envelope?.data?.effect, "noop", JSON.stringify(third));
    assert.deepEqual(third.envelope?.data?.note, second.envelope?.data?.note);
    assert.equal(titled(key), 1, "one note for the key");
    assert.equal(titled("stall-other"), 0, "the refused add ran nowhere");
  });

  it("A's reservation reaches Redis and its reply is lost: A refuses honestly, and a retry with the key on B, then on A, runs it exactly once", async () => {
    const key = "lost-reply-1";
    fleet.link(a)!.loseReplyOn(RESERVATION);
    const first = await within(
      REFUSED_WITHIN_MS,
      callTool(fleet.instanceUrl(a), "add", { title: key, idempotency_key: key }),
    );
    assertRefusedRetryable(first, "A's keyed add", fleet.instanceOutput(a));
    assert.equal(fleet.link(a)!.seen.lostReplies, 1, "the reservation's reply was lost");
    const message = (first as CallAnswer).envelope!.error!.message;
    assert.match(message, /reservation/);
    assert.doesNotMatch(message, /record a result/);
    const retry = await callTool(fleet.instanceUrl(b), "add", { title: key, idempotency_key: key });
    assert.equal(retry.envelope?.data?.effect, "created", JSON.stringify(retry));
    const again = await callTool(fleet.instanceUrl(a), "add", { title: key, idempotency_key: key });
    assert.equal(again.envelope?.data?.effect, "noop", JSON.stringify(again));
    assert.equal(titled(key), 1, "one note for the key");
  });
});
