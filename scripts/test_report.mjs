// What a half of scripts/test.mjs reports for its closing lines: its counts, and which tests it skipped and
// why. The two runtimes report skips differently:
//
// - node --test: this module is also a test reporter (its default export). It writes the run's counts as
//   TAP writes them (`# pass 12`), and one JSON line per skipped or todo test, `{file, name, reason}`, the
//   name with its enclosing suites (`suite > test`). One reporter for both: a third reporter beside the dots
//   and TAP made Node 20 warn about too many listeners on its test stream.
// - deno test: `--junit-path` writes a JUnit report whose skipped cases carry no reason, because Deno's
//   node:test turns `skip: "why"` into a bare `ignore`. A case Node skipped too takes the Node half's reason.
//   Deno 2.9 files a suite's cases under `ext:deno_node/testing.ts` instead of their file, so a case is
//   placed in the file of the top-level test whose name begins its own.
import { relative } from "node:path";

/** What Deno says about an ignored test, which has no reason of its own. */
const NO_REASON = "deno test gives no reason";

/** The run's counts among the runner's closing diagnostics, as TAP prints them. */
const COUNT = /^(pass|fail|cancelled|skipped|todo) \d+$/;

/**
 * The node --test reporter: the counts, and a JSON line for each skipped or todo test. Events come in order
 * within a file, so each file keeps the names of the suites it is inside.
 */
export default async function* testReport(source) {
  const suites = new Map();
  for await (const { type, data } of source) {
    if (type === "test:diagnostic" && data.file === undefined && COUNT.test(data.message)) {
      yield `# ${data.message}\n`;
      continue;
    }
    if (type === "test:start") {
      const names = suites.get(data.file) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      suites.set(data.file, names);
      continue;
    }
    if (type !== "test:pass" && type !== "test:fail") continue;
    const skip = data.skip ?? data.todo;
    if (skip === undefined) continue;
    const names = suites.get(data.file) ?? [data.name];
    const given = typeof skip === "string" && skip !== "" ? skip : "no reason given";
    const reason = data.todo === undefined ? given : `todo: ${given}`;
    const skipped = { file: data.file, name: names.slice(0, data.nesting + 1).join(" > "), reason };
    yield `${JSON.stringify(skipped)}\n`;
  }
}

/** The skips the reporter above wrote in `report`, each file relative to `root`. */
export function nodeSkips(report, root) {
  return report.split("\n").filter((line) => line.startsWith("{")).map((line) => {
    const skip = JSON.parse(line);
    return { ...skip, file: relative(root, skip.file) };
  });
}

const ENTITIES = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&amp;": "&" };

function unescapeXml(text) {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (entity) => ENTITIES[entity]);
}

/**
 * The ignored tests of a deno test JUnit report, `{file, name, reason}` each. `known` are the skips of the
 * Node halves, whose reason a test Node skipped too takes.
 */
export function denoSkips(xml, known) {
  const cases = [
    ...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g),
  ]
    .map(([, name, classname, body]) => ({
      name: unescapeXml(name),
      classname: unescapeXml(classname),
      skipped: body?.includes("<skipped") ?? false,
    }));
  const fileOf = new Map();
  for (const { name, classname } of cases) {
    if (classname.startsWith("./")) fileOf.set(name, classname.slice(2));
  }
  const reasons = new Map(known.map((skip) => [`${skip.file}\n${skip.name}`, skip.reason]));
  return cases.filter((testCase) => testCase.skipped).map(({ name, classname }) => {
    const top = [...fileOf.keys()].find((topName) => name === topName || name.startsWith(`${topName} > `));
    const file = classname.startsWith("./") ? classname.slice(2) : fileOf.get(top) ?? classname;
    const reason = reasons.get(`${file}\n${name}`);
    return { file, name, reason: reason === undefined ? NO_REASON : `${reason} (the reason Node gave)` };
  });
}

/** The closing list: each half's skipped tests under its title, or nothing when none was skipped. */
export function skipReport(halves) {
  const lines = [];
  for (const { title, skips = [] } of halves) {
    if (skips.length === 0) continue;
    lines.push(`  ${title}:`);
    for (const { file, name, reason } of skips) lines.push(`    ${file}: ${name} — ${reason}`);
  }
  return lines.length === 0 ? [] : ["skipped, and why:", ...lines];
}
