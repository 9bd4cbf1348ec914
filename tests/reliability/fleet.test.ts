// Many instances, exactly once, with real parts (docs/scaling.md): Redis, three `notes mcp listen http://…`
// instances sharing one NOTES_HOME, one Redis and one confirmation secret, and haproxy, then nginx, in front,
// round-robin with no affinity (the configurations docs/scaling.md shows, checked here to be the same). Debian's
// redis-server, haproxy and nginx are installed with apt-get when missing and this runs as root; without them the
// fleet tests are skipped, saying why. The steps are scripts/soak/fleet_run.ts, which `npm run soak -- --fleet`
// runs for longer. TOOLWIRE_FLEET_SEED replays the plan (which instance is killed, and when).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.d.ts", so "client/streamableHttp.js" has no types under Deno's
// resolver; tsc finds them beside the .js file. This pragma (a comment to tsc) names the file for Deno.
// @ts-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  BALANCERS,
  ensurePrograms,
  Fleet,
  haproxyConfig,
  INSTANCE_HEADER,
  nginxConfig,
} from "../../scripts/soak/fleet_parts.ts";
import {
  confirmAcross,
  keyedPairs,
  killDuringAdds,
  Ledger,
  seededRandom,
  storeOutage,
} from "../../scripts/soak/fleet_run.ts";
import { type Loose, NOTES, ROOT } from "../helpers/run.ts";

const SEED = Number(process.env.TOOLWIRE_FLEET_SEED || Date.now() % 100_000);

describe("docs/scaling.md shows the balancer configurations the fleet test runs", () => {
  const docs = readFileSync(join(ROOT, "docs", "scaling.md"), "utf8");
  const ports = { listen: 7010, instances: [7011, 7012, 7013] };
  for (const [name, config] of [["haproxy", haproxyConfig(ports)], ["nginx", nginxConfig(ports)]] as const) {
    it(`the ${name} configuration, line for line`, () => {
      const block = new RegExp("```" + name + "\\n([\\s\\S]*?)```").exec(docs)?.[1];
      assert.equal(block, config);
    });
  }
});

/** A fetch that keeps the instance each response came from. */
function recordingFetch(instances: string[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    instances.push(response.headers.get(INSTANCE_HEADER) ?? "?");
    return response;
  };
}

/** 30 calls of an SDK client session: 10 rounds of add, show, list. */
async function thirtyCalls(
  client: { callTool(params: Loose): Promise<Loose> },
  tag: string,
): Promise<number> {
  let done = 0;
  for (let round = 0; round < 10; round++) {
    const added = await client.callTool({ name: "add", arguments: { title: `${tag}-${round}` } });
    assert.equal(added.structuredContent.ok, true, JSON.stringify(added));
    const id = added.structuredContent.data.note.id;
    const shown = await client.callTool({ name: "show", arguments: { id } });
    assert.equal(shown.structuredContent.data.title, `${tag}-${round}`);
    const listed = await client.callTool({ name: "list", arguments: { limit: 1000 } });
    assert.ok(listed.structuredContent.data.some((note: { id: number }) => note.id === id));
    done += 3;
  }
  return done;
}

for (const balancer of BALANCERS) {
  const parts = ensurePrograms(["redis-server", balancer], (line) => console.log(line));
  const skip = parts.ok ? false : `needs Redis and ${balancer}: ${parts.reason}`;
  describe(`a fleet of three notes instances behind ${balancer} and one Redis`, { skip }, () => {
    let fleet: Fleet;
    const ledger = new Ledger();
    const tag = balancer;
    before(async () => {
      console.log(`[fleet] seed ${SEED} (replay: TOOLWIRE_FLEET_SEED=${SEED})`);
      fleet = await Fleet.start({ notes: NOTES, balancer });
    });
    after(async () => {
      await fleet?.stop();
    });

    it("a modern (SDK v2) and a legacy (SDK v1) session each complete 30 calls, spread over the instances", async () => {
      const seen: string[] = [];
      const modern = new Client({ name: "fleet-v2", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      await modern.connect(
        new StreamableHTTPClientTransport(new URL(fleet.url), { fetch: recordingFetch(seen) }),
      );
      assert.equal(modern.getProtocolEra(), "modern");
      assert.equal(await thirtyCalls(modern, `${tag}-v2`), 30);
      await modern.close();
      const legacy = new V1Client({ name: "fleet-v1", version: "1.0.0" });
      await legacy.connect(new V1HttpTransport(new URL(fleet.url), { fetch: recordingFetch(seen) }));
      assert.equal(await thirtyCalls(legacy, `${tag}-v1`), 30);
      await legacy.close();
      const names = Array.from({ length: fleet.size }, (_, index) => fleet.instanceName(index));
      for (const name of names) assert.ok(seen.includes(name), `${name} answered some of ${seen.join(" ")}`);
    });

    it("50 keyed adds, each sent twice to different instances: 50 notes, every second copy a replay of the first", async () => {
      const before = fleet.notes().length;
      const pairs = await keyedPairs(fleet, ledger, 50, tag);
      for (const { key, first, second } of pairs) {
        assert.equal(first.kind, "acknowledged", `${key}: ${JSON.stringify(first.answers)}`);
        assert.equal(second.kind, "acknowledged", `${key}: ${JSON.stringify(second.answers)}`);
        const [one, two] = [first.answers.at(-1)!, second.answers.at(-1)!];
        assert.notEqual(one.instance, two.instance, `${key}: both copies went to ${one.instance}`);
        assert.equal(one.envelope!.data.effect, "created");
        assert.equal(two.envelope!.data.effect, "noop");
        assert.deepEqual(two.envelope!.data.note, one.envelope!.data.note);
      }
      const notes = fleet.notes();
      assert.equal(notes.length - before, 50);
      for (const { key } of pairs) assert.equal(notes.filter((note) => note.title === key).length, 1, key);
    });

    it("a confirmation asked for on one instance is accepted once on another, and refused on replay on every one", async () => {
      const run = await confirmAcross(fleet, tag);
      assert.equal(run.confirmed.envelope?.ok, true, JSON.stringify(run.confirmed));
      assert.equal(run.confirmed.envelope?.data.effect, "deleted");
      assert.notEqual(run.confirmedOn, run.askedOn);
      assert.ok(run.removed);
      const replayedOn = new Set(run.replays.map((replay) => replay.instance));
      assert.equal(replayedOn.size, fleet.size, `replays went to ${[...replayedOn].join(" ")}`);
      for (const replay of run.replays) {
        assert.equal(replay.envelope?.error?.code, "CONFIRMATION_INVALID", JSON.stringify(replay));
      }
    });

    it(`SIGKILL of one instance during 200 keyed adds that clients retry: none lost, none twice (seed ${SEED})`, async () => {
      const run = await killDuringAdds(fleet, ledger, seededRandom(SEED), { count: 200, width: 8, tag });
      const retried = run.outcomes.filter((outcome) => outcome.answers.length > 1).length;
      console.log(
        `[fleet] killed instance ${run.victim + 1} after ${run.killAfter} acknowledged adds; ` +
          `${run.afterKill} acknowledged after, ${retried} retried by their client`,
      );
      assert.ok(run.afterKill > 0, "adds went on, acknowledged by the instances left");
      for (const outcome of run.outcomes) {
        assert.notEqual(outcome.kind, "failed", JSON.stringify(outcome.answers));
      }
      const tally = ledger.tally(fleet.notes());
      assert.equal(tally.lost, 0, tally.findings.join("\n"));
      assert.equal(tally.executedTwice, 0, tally.findings.join("\n"));
      assert.equal(tally.answeredTwice, 0, tally.findings.join("\n"));
    });

    it("Redis stopped: keyed adds and destructive calls are refused (retryable) and nothing runs, list still runs; once back, the retries succeed once", async () => {
      const run = await storeOutage(fleet, ledger, { count: 10, tag });
      assert.equal(run.refusedBeforeBack, 10, "every keyed add was refused while Redis was down");
      assert.equal(run.notesWhileDown, run.notesBefore, "no note appeared while Redis was down");
      assert.equal(run.listWhileDown.envelope?.ok, true, JSON.stringify(run.listWhileDown));
      const refusal = run.confirmWhileDown.envelope?.error;
      assert.equal(refusal?.code, "STATE_STORE_UNAVAILABLE", JSON.stringify(run.confirmWhileDown));
      assert.equal(refusal?.retryable, true);
      assert.equal(run.confirmWhileDown.envelope?.meta.exit_code, 12);
      assert.equal(run.removeWhileDown.envelope?.error?.code, "STATE_STORE_UNAVAILABLE");
      assert.equal(run.removeWhileDown.envelope?.meta.exit_code, 12);
      assert.equal(run.confirmAfter.envelope?.data?.effect, "deleted", JSON.stringify(run.confirmAfter));
      for (const outcome of run.outcomes) {
        assert.equal(outcome.kind, "acknowledged", JSON.stringify(outcome.answers));
        const refused = outcome.answers.find((answer) =>
          answer.envelope?.error?.code === "STATE_STORE_UNAVAILABLE"
        );
        assert.equal(refused?.envelope?.meta.exit_code, 12);
        assert.equal(refused?.envelope?.error?.retryable, true);
      }
      const notes = fleet.notes();
      for (let index = 0; index < 10; index++) {
        const title = `${tag}-outage-${index}`;
        assert.equal(notes.filter((note) => note.title === title).length, 1, title);
      }
      const tally = ledger.tally(notes);
      assert.equal(tally.lost + tally.executedTwice + tally.answeredTwice, 0, tally.findings.join("\n"));
    });
  });
}
