// docs/README.md is the map of docs/: it names every page, and each of its links leads to a page (and a
// heading of it) that exists, so the map cannot fall behind the pages it points to.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ROOT } from "../helpers/run.ts";

const DOCS = join(ROOT, "docs");
const MAP = readFileSync(join(DOCS, "README.md"), "utf8");

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
}

describe("docs/README.md, the map of docs/", () => {
  const links = [...MAP.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]!);

  it("links every page of docs/", () => {
    const pages = readdirSync(DOCS).filter((name) => name.endsWith(".md") && name !== "README.md");
    const linked = new Set(links.map((link) => link.split("#")[0]));
    assert.deepEqual(pages.filter((page) => !linked.has(page)), []);
  });

  it("every link leads to a page that exists, and to a heading of it", () => {
    for (const link of links) {
      const [file, fragment] = link.split("#") as [string, string | undefined];
      const text = readFileSync(join(DOCS, file), "utf8");
      if (fragment === undefined) continue;
      const headings = [...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1]!));
      assert.ok(headings.includes(fragment), `${link}: no such heading (${headings.join(", ")})`);
    }
  });
});
