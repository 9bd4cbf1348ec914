// A short run of the soak (scripts/soak/soak_run.ts, the logic behind `npm run soak`) on the test's runtime:
// servers and CLIs on one notes directory with SIGKILL at random, a burst then EOF, one key from several
// processes at once and a stale lock. Nothing acknowledged may be lost or doubled, the store must read, and
// no process may be left. TOOLWIRE_SOAK_SEED and TOOLWIRE_SOAK_SECONDS change the plan and its length.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { runSoak, soakFailed, soakTable } from "../../scripts/soak/soak_run.ts";
import { NOTES } from "../helpers/run.ts";

describe("soak: many processes on one notes directory", () => {
  it("loses nothing, doubles nothing, leaves nothing running", async () => {
    const seed = Number(process.env.TOOLWIRE_SOAK_SEED || 1);
    const seconds = Number(process.env.TOOLWIRE_SOAK_SECONDS || 8);
    console.log(`[soak] seed ${seed}, ${seconds} s (replay: TOOLWIRE_SOAK_SEED=${seed})`);
    const report = await runSoak({ seconds, seed, notes: NOTES });
    const table = soakTable(report);
    console.log(table);
    assert.ok(report.acknowledged > 0, `nothing was acknowledged:\n${table}`);
    assert.equal(report.lost, 0, table);
    assert.equal(report.twiceByKey + report.twiceByRequest, 0, table);
    assert.equal(report.answeredTwice, 0, table);
    assert.equal(report.unanswered, 0, table);
    assert.equal(report.storeReadable, true, table);
    assert.equal(report.childrenLeft, 0, table);
    assert.equal(soakFailed(report), false, table);
  });
});
