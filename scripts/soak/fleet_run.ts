/**
 * The fleet scenario, step by step, behind the fleet test and `npm run soak -- --fleet`: keyed adds sent
 * twice so the copies land on different instances, an instance killed with SIGKILL in the middle of keyed
 * adds that clients retry, Redis stopped and started again under keyed calls, and a confirmation asked for on
 * one instance and given on another. A {@linkcode Ledger} remembers every key; at the end the shared notes
 * must hold each acknowledged add once and no add twice.
 *
 * Randomness (which instance is killed, after how many adds) comes from the seed; the timing of processes on
 * a loaded machine does not, so a seed repeats the plan, not the interleaving.
 */
import { type Balancer, BALANCERS, Fleet, sleep } from "./fleet_parts.ts";
import { type CallAnswer, callTool, inParallel, keyedAdd, type KeyedOutcome } from "./fleet_calls.ts";
import { type FaultCounts, linkFaults, type RefusalCheck } from "./fleet_faults.ts";

/** What became of every keyed add of a run, by key. */
export class Ledger {
  readonly #keys = new Map<string, { title: string; acknowledged: boolean; created: number }>();
  /** Answers that were the retryable refusal of a store that could not be reached. */
  storeRefusals = 0;
  /** Keys whose try died with its instance: the fleet says it cannot know whether the add happened. */
  unknown = 0;
  /** Keys still failing when the client gave up. */
  failed = 0;

  /** Notes one keyed add's outcome (a key may be added several times: each copy is noted). */
  note(key: string, title: string, outcome: KeyedOutcome): void {
    const entry = this.#keys.get(key) ?? { title, acknowledged: false, created: 0 };
    entry.acknowledged ||= outcome.kind === "acknowledged";
    entry.created += outcome.created;
    this.#keys.set(key, entry);
    this.storeRefusals += outcome.storeRefusals;
    if (outcome.kind === "unknown") this.unknown++;
    if (outcome.kind === "failed") this.failed++;
  }

  /** The ledger held against the notes the fleet kept. */
  tally(notes: readonly { title: string }[]): Tally {
    const count = new Map<string, number>();
    for (const { title } of notes) count.set(title, (count.get(title) ?? 0) + 1);
    let acknowledged = 0;
    let lost = 0;
    let executedTwice = 0;
    let answeredTwice = 0;
    const findings: string[] = [];
    for (const [key, entry] of this.#keys) {
      const kept = count.get(entry.title) ?? 0;
      if (entry.acknowledged) acknowledged++;
      if (entry.acknowledged && kept === 0) {
        lost++;
        findings.push(`key ${key} was acknowledged and its note is missing`);
      }
      if (kept > 1) {
        executedTwice++;
        findings.push(`key ${key} left ${kept} notes`);
      }
      if (entry.created > 1) {
        answeredTwice++;
        findings.push(`key ${key} was answered "created" ${entry.created} times`);
      }
    }
    return {
      keys: this.#keys.size,
      acknowledged,
      lost,
      executedTwice,
      answeredTwice,
      refusedWhileDown: this.storeRefusals,
      unknown: this.unknown,
      failed: this.failed,
      findings: findings.slice(0, 5),
    };
  }
}

/** The ledger against the notes. */
export interface Tally {
  keys: number;
  acknowledged: number;
  lost: number;
  executedTwice: number;
  answeredTwice: number;
  refusedWhileDown: number;
  unknown: number;
  failed: number;
  findings: string[];
}

/** A small seeded generator (mulberry32): a seed repeats the plan. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One key sent twice, one copy after the other. */
export interface KeyedPair {
  key: string;
  first: KeyedOutcome;
  second: KeyedOutcome;
}

/**
 * `count` adds with distinct keys, each sent twice in a row: through a round-robin balancer the copies land
 * on different instances; the second must replay the first.
 */
export async function keyedPairs(
  fleet: Fleet,
  ledger: Ledger,
  count: number,
  tag: string,
): Promise<KeyedPair[]> {
  const pairs: KeyedPair[] = [];
  for (let index = 0; index < count; index++) {
    const key = `${tag}-pair-${index}`;
    const first = await keyedAdd(fleet.url, key, key);
    ledger.note(key, key, first);
    const second = await keyedAdd(fleet.url, key, key);
    ledger.note(key, key, second);
    pairs.push({ key, first, second });
  }
  return pairs;
}

/** What {@linkcode killDuringAdds} did. */
export interface KillRun {
  victim: number;
  /** The kill came after this many acknowledged adds. */
  killAfter: number;
  /** Adds acknowledged after the kill, by the instances left. */
  afterKill: number;
  outcomes: KeyedOutcome[];
}

/**
 * `count` keyed adds, `width` at a time, each retried with its key until it succeeds; after a random number
 * of them succeeded, a random instance gets SIGKILL. It is started again once every add has ended.
 */
export async function killDuringAdds(
  fleet: Fleet,
  ledger: Ledger,
  random: () => number,
  options: { count: number; width: number; tag: string },
): Promise<KillRun> {
  const victim = Math.floor(random() * fleet.size);
  const killAfter = Math.floor(options.count * (0.2 + 0.4 * random()));
  let acknowledged = 0;
  let afterKill = 0;
  let killed: Promise<void> | undefined;
  const keys = Array.from({ length: options.count }, (_, index) => `${options.tag}-kill-${index}`);
  const outcomes = await inParallel(keys, options.width, async (key) => {
    const outcome = await keyedAdd(fleet.url, key, key);
    ledger.note(key, key, outcome);
    if (outcome.kind === "acknowledged" && killed !== undefined) afterKill++;
    if (outcome.kind === "acknowledged" && ++acknowledged === killAfter) killed = fleet.killInstance(victim);
    return outcome;
  });
  await killed;
  await fleet.startInstance(victim);
  return { victim, killAfter, afterKill, outcomes };
}

/** What {@linkcode storeOutage} saw. */
export interface OutageRun {
  /** Notes kept before Redis stopped, and once every keyed add had been refused at least once. */
  notesBefore: number;
  notesWhileDown: number;
  /** How many of the keyed adds had been refused before Redis came back. */
  refusedBeforeBack: number;
  /** An unkeyed `list` while Redis was down. */
  listWhileDown: CallAnswer;
  /** A confirmed `remove` while Redis was down, and the same state and answer once it was back. */
  confirmWhileDown: CallAnswer;
  /** A `remove` with `confirm_destructive: true` (no state to redeem) while Redis was down. */
  removeWhileDown: CallAnswer;
  confirmAfter: CallAnswer;
  outcomes: KeyedOutcome[];
}

/**
 * Stops Redis, then sends `count` keyed adds whose clients retry: each is refused (retryable) while it is
 * down, an unkeyed `list` still runs, a confirmed `remove` is refused with its state left unused (and one
 * confirmed by `confirm_destructive` is refused too: nothing destructive runs without the store); Redis is
 * started again, and every add then succeeds once, and the same confirmation removes its note.
 */
export async function storeOutage(
  fleet: Fleet,
  ledger: Ledger,
  options: { count: number; tag: string },
): Promise<OutageRun> {
  const doomed = `${options.tag}-outage-doomed`;
  const { id, state } = await askToRemove(fleet, doomed);
  await fleet.stopRedis();
  const notesBefore = fleet.notes().length;
  const keys = Array.from({ length: options.count }, (_, index) => `${options.tag}-outage-${index}`);
  const refused = new Set<string>();
  const adds = inParallel(keys, options.count, async (key) => {
    const outcome = await keyedAdd(fleet.url, key, key, {
      pauseMs: 200,
      onAnswer: (answer) => {
        if (answer.envelope?.error?.code === "STATE_STORE_UNAVAILABLE") refused.add(key);
      },
    });
    ledger.note(key, key, outcome);
    return outcome;
  });
  // Redis comes back once every add was refused at least once (or after 15 s, which the caller sees).
  const deadline = Date.now() + 15_000;
  while (refused.size < keys.length && Date.now() < deadline) await sleep(50);
  const refusedBeforeBack = refused.size;
  const listWhileDown = await callTool(fleet.url, "list", { limit: 1 });
  const confirmWhileDown = await confirm(fleet, id, state);
  const removeWhileDown = await callTool(fleet.url, "remove", { id, confirm_destructive: true });
  const notesWhileDown = fleet.notes().length;
  await fleet.startRedis();
  const outcomes = await adds;
  const confirmAfter = await confirm(fleet, id, state);
  return {
    notesBefore,
    notesWhileDown,
    refusedBeforeBack,
    listWhileDown,
    confirmWhileDown,
    removeWhileDown,
    confirmAfter,
    outcomes,
  };
}

/** A confirmation asked for through one instance and given through others. */
export interface ConfirmRun {
  askedOn: string | undefined;
  confirmedOn: string | undefined;
  confirmed: CallAnswer;
  /** The same state and answer sent again, once to every instance. */
  replays: CallAnswer[];
  /** Whether the note is gone. */
  removed: boolean;
}

/**
 * Adds a note, asks to remove it (an `input_required` result with a signed `requestState`), gives the
 * confirmation through the next instance, then sends it again to every instance.
 */
export async function confirmAcross(fleet: Fleet, tag: string): Promise<ConfirmRun> {
  const title = `${tag}-confirm`;
  const { id, state, askedOn } = await askToRemove(fleet, title);
  const confirmed = await confirm(fleet, id, state);
  const replays: CallAnswer[] = [];
  for (let index = 0; index < fleet.size; index++) replays.push(await confirm(fleet, id, state));
  const removed = !fleet.notes().some((note) => note.id === id);
  return { askedOn, confirmedOn: confirmed.instance, confirmed, replays, removed };
}

async function askToRemove(
  fleet: Fleet,
  title: string,
): Promise<{ id: number; state: string; askedOn: string | undefined }> {
  const added = await callTool(fleet.url, "add", { title });
  const id = added.envelope?.data?.note?.id;
  if (typeof id !== "number") throw new Error(`the add of ${title} failed: ${JSON.stringify(added)}`);
  const asked = await callTool(fleet.url, "remove", { id });
  if (asked.result?.resultType !== "input_required") {
    throw new Error(`remove ${id} was not asked about: ${JSON.stringify(asked)}`);
  }
  return { id, state: asked.result.requestState, askedOn: asked.instance };
}

function confirm(fleet: Fleet, id: number, state: string): Promise<CallAnswer> {
  return callTool(fleet.url, "remove", { id }, {
    requestState: state,
    inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
  });
}

/** What a fleet soak is run with. */
export interface FleetSoakOptions {
  seconds: number;
  seed: number;
  notes: readonly string[];
  balancer?: Balancer;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** What a fleet soak saw. */
export interface FleetSoakReport extends Tally {
  seed: number;
  seconds: number;
  balancer: Balancer;
  elapsedMs: number;
  rounds: number;
  /** Instances killed with SIGKILL, and Redis stops. */
  kills: number;
  outages: number;
  /** Confirmations accepted on another instance than the one that asked, and replays refused. */
  confirmationsAcross: number;
  replaysRefused: number;
  /** Adds run while Redis was down, or confirmations gone wrong (accepted twice, or not once). */
  ranWhileDown: number;
  confirmationFaults: number;
  /** Faults injected into the links between the instances and Redis. */
  faults: FaultCounts;
  /** Refusals answered during those faults, and whether each was retryable and honest. */
  refusals: RefusalCheck;
}

/**
 * Rounds of the scenario on one fleet until `seconds` have passed: keyed pairs, a SIGKILL during keyed
 * adds, a Redis outage, a confirmation across instances, and keyed adds while the links between the
 * instances and Redis stall, pause, reset and lose replies (each instance reaches Redis through a
 * StoreLink of its own).
 */
export async function runFleetSoak(options: FleetSoakOptions): Promise<FleetSoakReport> {
  const balancer = options.balancer ?? BALANCERS[0];
  const random = seededRandom(options.seed);
  const started = Date.now();
  const fleet = await Fleet.start({
    notes: options.notes,
    balancer,
    linked: [0, 1, 2],
    ...(options.log ? { log: options.log } : {}),
  });
  const faults: FaultCounts = {
    stalls: 0,
    longStalls: 0,
    pauses: 0,
    resets: 0,
    lostReplies: 0,
    lostRepliesHit: 0,
  };
  const refusals: RefusalCheck = { refusals: 0, notRetryable: 0, dishonest: 0, findings: [] };
  const ledger = new Ledger();
  let rounds = 0;
  let kills = 0;
  let outages = 0;
  let confirmationsAcross = 0;
  let replaysRefused = 0;
  let ranWhileDown = 0;
  let confirmationFaults = 0;
  try {
    while (Date.now() - started < options.seconds * 1000 && !options.signal?.aborted) {
      const tag = `r${++rounds}`;
      await keyedPairs(fleet, ledger, 10, tag);
      const kill = await killDuringAdds(fleet, ledger, random, { count: 60, width: 6, tag });
      kills++;
      const outage = await storeOutage(fleet, ledger, { count: 8, tag });
      outages++;
      if (outage.notesWhileDown !== outage.notesBefore) ranWhileDown++;
      if (
        outage.confirmWhileDown.envelope?.ok !== false || outage.removeWhileDown.envelope?.ok !== false ||
        outage.confirmAfter.envelope?.ok !== true
      ) {
        confirmationFaults++;
      }
      const across = await confirmAcross(fleet, tag);
      if (across.confirmed.envelope?.ok === true && across.askedOn !== across.confirmedOn) {
        confirmationsAcross++;
      }
      if (across.confirmed.envelope?.ok !== true || !across.removed) confirmationFaults++;
      for (const replay of across.replays) {
        if (replay.envelope?.error?.code === "CONFIRMATION_INVALID") replaysRefused++;
        else confirmationFaults++;
      }
      await linkFaults(fleet, ledger, random, { seconds: 30, width: 6, tag, faults, refusals });
      options.log?.(
        `round ${rounds}: killed instance ${
          kill.victim + 1
        } after ${kill.killAfter} adds, Redis stopped and back, links faulted; ` +
          `${fleet.notes().length} notes`,
      );
    }
    return {
      ...ledger.tally(fleet.notes()),
      seed: options.seed,
      seconds: options.seconds,
      balancer,
      elapsedMs: Date.now() - started,
      rounds,
      kills,
      outages,
      confirmationsAcross,
      replaysRefused,
      ranWhileDown,
      confirmationFaults,
      faults,
      refusals,
    };
  } finally {
    await fleet.stop();
  }
}

/** Whether the soak found anything that breaks a promise. */
export function fleetSoakFailed(report: FleetSoakReport): boolean {
  return report.lost + report.executedTwice + report.answeredTwice + report.ranWhileDown +
          report.confirmationFaults + report.failed + report.refusals.notRetryable +
          report.refusals.dishonest > 0 || report.acknowledged === 0;
}

/** The soak table. */
export function fleetSoakTable(report: FleetSoakReport): string {
  const rows: Array<[string, number, string?]> = [
    ["calls acknowledged", report.acknowledged, `of ${report.keys} keys`],
    ["acknowledged but lost", report.lost],
    ["executed twice", report.executedTwice, "keys with more than one note"],
    ["answered twice", report.answeredTwice, 'keys answered "created" more than once'],
    ["refused, store down", report.refusedWhileDown, "STATE_STORE_UNAVAILABLE answers (retryable)"],
    ["ran while store down", report.ranWhileDown, "outages during which a note appeared"],
    ["outcome unknown", report.unknown, "keys whose try died with its instance (reported, not failed)"],
    ["gave up", report.failed, "keys still failing after 60 s of retries"],
    ["confirmed across", report.confirmationsAcross, `replays refused: ${report.replaysRefused}`],
    ["confirmation faults", report.confirmationFaults],
    [
      "link faults",
      report.faults.stalls + report.faults.pauses + report.faults.resets + report.faults.lostReplies,
      `stalls ${report.faults.stalls} (${report.faults.longStalls} past the lease), pauses ${report.faults.pauses}, ` +
      `resets ${report.faults.resets}, lost replies ${report.faults.lostReplies} (${report.faults.lostRepliesHit} met)`,
    ],
    ["refusals", report.refusals.refusals, "STATE_STORE_UNAVAILABLE or IDEMPOTENCY_IN_PROGRESS answers"],
    ["refusals not retryable", report.refusals.notRetryable],
    ["refusals not honest", report.refusals.dishonest, "said nothing ran, yet the key ran or was burned"],
  ];
  const lines = [
    `fleet soak: seed ${report.seed}, ${report.balancer}, ${report.rounds} rounds in ${
      (report.elapsedMs / 1000).toFixed(1)
    } s (asked: ${report.seconds} s), ${report.kills} SIGKILLs, ${report.outages} Redis stops`,
    ...rows.map(([name, value, note]) =>
      `  ${name.padEnd(24)} ${String(value).padStart(7)}${note ? `   ${note}` : ""}`
    ),
  ];
  const findings = [...report.findings, ...report.refusals.findings.slice(0, 5)];
  if (findings.length > 0) {
    lines.push(
      "findings:",
      ...findings.map((finding) => `  - ${finding}`),
    );
  }
  lines.push(fleetSoakFailed(report) ? "FAIL" : "PASS");
  return lines.join("\n");
}
