// docs/README.md is the map of docs/: it names every page, and each of its links leads to a page (and a
// heading of it) that exists, so the map cannot fall behind the pages it points to. The same holds for every
// link to a heading of a page, wherever it is written: the README, docs/, and the comments of the code.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
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

/** The Markdown and source files under `dir`, recursively. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (/\.(md|ts|mjs)$/.test(name)) found.push(path);
  }
  return found;
}

describe("links to a heading of a page", () => {
  it("from the README, docs/, lib/, cmd/, scripts/ and examples/, each leads to a heading that exists", () => {
    const files = [
      join(ROOT, "README.md"),
      ...["docs", "lib", "cmd", "scripts", "examples"].flatMap((dir) => sources(join(ROOT, dir))),
    ];
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (
        const [link, page, fragment] of text.matchAll(
          /(?<![\w/.-])((?:\.\.\/)?(?:docs\/)?[\w.-]+\.md)#([\w-]+)/g,
        )
      ) {
        // A page is named from the file's own directory in docs/, from the project's root in comments.
        const target = [join(dirname(file), page!), join(ROOT, page!)].find((path) => existsSync(path));
        const headings = target === undefined
          ? []
          : [...readFileSync(target, "utf8").matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1]!));
        checked++;
        if (!headings.includes(fragment!)) broken.push(`${relative(ROOT, file)}: ${link}`);
      }
    }
    assert.ok(checked > 50, `${checked} links found`);
    assert.deepEqual(broken, []);
  });
});
