// What people read speaks in words, not requirement ids: the help of every command of the `toolwire` binary
// and of the `notes` example, and every page of docs/ but requirements.md, which is where the ids are
// explained. (`toolwire check`'s report is held to the same in tests/toolwire/check.test.ts; its criterion
// ids, `ac07-stdout-purity` and the like, are identifiers of its JSON output, each beside its criterion.)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NOTES, onlyEnvelope, ROOT, run } from "../helpers/run.ts";
import { TOOLWIRE } from "../helpers/toolwire.ts";

const REQUIREMENT_ID = /REQ-[A-Z]-\d+/;
/** `ac05` alone; `ac05-prepare-failure`, the identifier, may appear. */
const BARE_CRITERION = /\bac\d\d\b(?!-)/;

async function commandPaths(program: readonly string[]): Promise<string[]> {
  const result = await run([...program, "--format", "json", "manifest"]);
  assert.equal(result.code, 0, result.stderr);
  return Object.keys(onlyEnvelope(result.stdout).data.commands);
}

describe("words, not requirement ids", () => {
  for (const [name, program] of [["toolwire", TOOLWIRE], ["notes", NOTES]] as const) {
    it(`${name}: its help and every command's help`, async () => {
      const helps = [await run([...program, "--help"])];
      for (const path of await commandPaths(program)) {
        helps.push(await run([...program, ...path.split("."), "--help"]));
      }
      for (const help of helps) {
        assert.equal(help.code, 0, help.stderr);
        assert.doesNotMatch(help.stdout, REQUIREMENT_ID);
        assert.doesNotMatch(help.stdout, BARE_CRITERION);
      }
    });
  }

  it("every page of docs/ but requirements.md", () => {
    const pages = readdirSync(join(ROOT, "docs")).filter((page) => page.endsWith(".md"));
    assert.ok(pages.includes("contract.md"));
    for (const page of pages.filter((page) => page !== "requirements.md")) {
      const text = readFileSync(join(ROOT, "docs", page), "utf8");
      assert.doesNotMatch(text, REQUIREMENT_ID, page);
      assert.doesNotMatch(text, BARE_CRITERION, page);
    }
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    assert.doesNotMatch(readme, REQUIREMENT_ID);
  });
});
