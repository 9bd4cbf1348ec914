/**
 * Keyed adds while the links between the instances and Redis misbehave, chosen at random from the soak's
 * seed: stalls (every byte held back for a few seconds, sometimes longer than a key's 10 s lease), short
 * pauses, resets, and lost replies (a reservation reaches Redis, its reply does not come back). Each fault
 * hits one instance's {@linkcode StoreLink}. Every answer is checked: a refusal must be retryable, and honest
 * — when every answer a client got was a refusal saying nothing ran, the key must not turn out to have run
 * (a replay with no "created" answer), nor be burned (IDEMPOTENCY_OUTCOME_UNKNOWN) by a refusal that did not
 * warn of it.
 */
import { type Fleet, sleep } from "./fleet_parts.ts";
import { keyedAdd, type KeyedOutcome } from "./fleet_calls.ts";
import type { Ledger } from "./fleet_run.ts";

/** A reservation's record as the instances write it: where a lost reply is aimed. */
const RESERVATION = '"state":"pending"';

/** The kinds of fault, and how many of each were injected. */
export interface FaultCounts {
  stalls: number;
  /** Stalls longer than a key's lease. */
  longStalls: number;
  pauses: number;
  resets: number;
  /** Lost replies armed, and how many of them a reservation met before the links were calmed. */
  lostReplies: number;
  lostRepliesHit: number;
}

/** What the answers of one key's tries say about its refusals. */
export interface RefusalCheck {
  refusals: number;
  /** Refusals that were not retryable. */
  notRetryable: number;
  /** Keys whose refusals said nothing ran, though the key ran, or was burned without warning. */
  dishonest: number;
  findings: string[];
}

/** Checks the refusals among one key's answers; see the module's description. */
export function checkRefusals(key: string, outcome: KeyedOutcome, check: RefusalCheck): void {
  const refusals = outcome.answers.filter((answer) => answer.envelope?.ok === false);
  const unknown = refusals.filter((answer) => answer.envelope?.error?.code === "IDEMPOTENCY_OUTCOME_UNKNOWN");
  const others = refusals.filter((answer) => !unknown.includes(answer));
  check.refusals += others.length;
  for (const answer of others) {
    if (answer.envelope?.error?.retryable !== true) {
      check.notRetryable++;
      check.findings.push(`key ${key}: a refusal not retryable: ${JSON.stringify(answer.envelope?.error)}`);
    }
  }
  // A try without an answer may have run: then nothing can be said of the refusals around it.
  if (outcome.answers.some((answer) => answer.envelope === undefined)) return;
  const last = outcome.answers.at(-1)?.envelope;
  if (outcome.kind === "acknowledged" && outcome.created === 0 && last?.data?.effect === "noop") {
    check.dishonest++;
    check.findings.push(`key ${key}: every try was refused as not run, yet the key replays a result`);
  }
  const warned = others.some((answer) =>
    answer.envelope?.error?.message.includes("IDEMPOTENCY_OUTCOME_UNKNOWN") === true
  );
  if (outcome.kind === "unknown" && outcome.created === 0 && !warned) {
    check.dishonest++;
    check.findings.push(`key ${key}: burned (outcome unknown) though every refusal said nothing ran`);
  }
}

/**
 * Keyed adds through the balancer for `seconds`, `width` at a time, each retried with its key until it
 * succeeds, while faults are injected at random into the instances' links; then every link is calmed and
 * the adds still running finish.
 */
export async function linkFaults(
  fleet: Fleet,
  ledger: Ledger,
  random: () => number,
  options: { seconds: number; width: number; tag: string; faults: FaultCounts; refusals: RefusalCheck },
): Promise<void> {
  const until = Date.now() + options.seconds * 1000;
  const injector = (async () => {
    while (Date.now() < until) {
      await sleep(200 + random() * 1_500);
      if (Date.now() < until) await injectFault(fleet, random, options.faults);
    }
    for (let index = 0; index < fleet.size; index++) fleet.link(index)?.calm();
  })();
  const hitBefore = lostRepliesHit(fleet);
  let next = 0;
  const lane = async () => {
    while (Date.now() < until) {
      const key = `${options.tag}-link-${next++}`;
      const outcome = await keyedAdd(fleet.url, key, key, { deadlineMs: 90_000 });
      ledger.note(key, key, outcome);
      checkRefusals(key, outcome, options.refusals);
    }
  };
  await Promise.all([injector, ...Array.from({ length: options.width }, lane)]);
  options.faults.lostRepliesHit += lostRepliesHit(fleet) - hitBefore;
}

function lostRepliesHit(fleet: Fleet): number {
  let hit = 0;
  for (let index = 0; index < fleet.size; index++) hit += fleet.link(index)?.seen.lostReplies ?? 0;
  return hit;
}

/** One fault on one instance's link, picked at random. */
async function injectFault(fleet: Fleet, random: () => number, faults: FaultCounts): Promise<void> {
  const link = fleet.link(Math.floor(random() * fleet.size));
  if (link === undefined) return;
  const pick = random();
  if (pick < 0.3) {
    // A stall from the next reservation on (the case), or from now on; now and then past the lease.
    const long = random() < 0.3;
    const ms = long ? 10_500 + random() * 4_000 : 2_500 + random() * 5_000;
    if (random() < 0.5) link.holdOn(RESERVATION);
    else link.hold();
    faults.stalls++;
    if (long) faults.longStalls++;
    await sleep(ms);
    link.release();
  } else if (pick < 0.55) {
    link.hold();
    faults.pauses++;
    await sleep(200 + random() * 1_300);
    link.release();
  } else if (pick < 0.75) {
    link.cut();
    faults.resets++;
  } else {
    link.loseReplyOn(RESERVATION);
    faults.lostReplies++;
  }
}
