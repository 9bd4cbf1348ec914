// `mcp install` changes only the bytes of the one server entry it adds or replaces (and the separators around
// it): the real `notes` binary against configurations that a JSON.parse/JSON.stringify round trip would
// change — big numbers, integer-like keys, compact and minified layouts, escapes, comments — and against the
// ones it must refuse, untouched: bytes that are not UTF-8, a key given twice, JSONC for a client that reads
// plain JSON. The property test (config_merge_properties.test.ts) covers generated files.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ExitCode } from "../../mod.ts";
import { backupsOf, filesBelow, install, sandbox } from "../helpers/install.ts";
import { type Loose, onlyEnvelope } from "../helpers/run.ts";

/** Installs into `text` and returns the new text and the registered entry. */
async function installInto(
  text: string | Uint8Array,
  args: string[] = ["--client", "cursor"],
): Promise<{ code: number; text: string; server: Loose; stdout: string; files: string[] }> {
  const box = sandbox();
  try {
    const config = join(box.home, "config.json");
    writeFileSync(config, text);
    const result = await install(box, [...args, "--config", config]);
    const envelope = onlyEnvelope(result.stdout);
    return {
      code: result.code,
      text: readFileSync(config, "utf8"),
      server: envelope.data?.server,
      stdout: result.stdout,
      files: filesBelow(box.home),
    };
  } finally {
    box.cleanup();
  }
}

/** A value on one line with the given spacing after colons and commas, as a compact file writes it. */
function oneLine(value: unknown, colon: string, comma: string): string {
  if (Array.isArray(value)) return `[${value.map((item) => oneLine(item, colon, comma)).join(`,${comma}`)}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([key, item]) =>
      `${JSON.stringify(key)}${colon}${oneLine(item, colon, comma)}`
    );
    return `{${members.join(`,${comma}`)}}`;
  }
  return JSON.stringify(value);
}

/** A value pretty-printed with `unit`, its lines after the first indented by `base`, with `eol` line ends. */
function pretty(value: unknown, unit: string, base: string, eol = "\n"): string {
  return JSON.stringify(value, null, unit).replaceAll("\n", `${eol}${base}`);
}

describe("mcp install changes only the bytes of its entry", () => {
  it("a number beyond a double's precision (12345678901234567890) or range (1e400) stays as written", async () => {
    const head = '{\n  "limits": [12345678901234567890, 1e400, -0.0e-400, 1E+2],\n  "mcpServers": {\n' +
      '    "other": {"command": "x", "timeout": 12345678901234567890}';
    const original = `${head}\n  }\n}\n`;
    const result = await installInto(original);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.text, `${head},\n    "notes": ${pretty(result.server, "  ", "    ")}\n  }\n}\n`);
  });

  it("bytes that are not UTF-8 are refused with exit 4, the file byte for byte as it was, no backup or lock", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "config.json");
      const bytes = new Uint8Array([
        ...new TextEncoder().encode('{"name": "caf'),
        0xe9, // Latin-1 é: not UTF-8
        ...new TextEncoder().encode('", "mcpServers": {}}'),
      ]);
      writeFileSync(config, bytes);
      const result = await install(box, ["--client", "cursor", "--config", config]);
      assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
      assert.match(
        onlyEnvelope(result.stdout).error.message,
        /is not UTF-8 text; the file was left as it is/,
      );
      assert.deepEqual(new Uint8Array(readFileSync(config)), bytes);
      assert.deepEqual(filesBelow(box.home), ["config.json"]);
    } finally {
      box.cleanup();
    }
  });

  it('"mcpServers" twice at the top level is refused with exit 4 naming both lines; no server is lost', async () => {
    const original =
      '{\n  "mcpServers": {"a": {"command": "a"}},\n  "mcpServers": {"b": {"command": "b"}}\n}\n';
    const result = await installInto(original);
    assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
    assert.match(
      onlyEnvelope(result.stdout).error.message,
      /"mcpServers" 2 times in the top level \(lines 2, 3\)/,
    );
    assert.equal(result.text, original);
    assert.deepEqual(result.files, ["config.json"]);
  });

  it("the server's name twice is refused with exit 4, also with --force", async () => {
    const original = '{"servers": {"notes": {"command": "a"}, "notes": {"command": "b"}}}';
    const result = await installInto(original, ["--client", "vscode", "--force"]);
    assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
    assert.match(onlyEnvelope(result.stdout).error.message, /"notes" 2 times in "servers"/);
    assert.equal(result.text, original);
  });

  it('integer-like keys ("42", "2024") keep their place, in the file and among the servers', async () => {
    const head =
      '{"b": 1, "2024": {"42": true, "a": 0}, "mcpServers": {"zeta": {"command": "z"}, "42": {"command": "x"}';
    const result = await installInto(`${head}}}`);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.text, `${head}, "notes": ${oneLine(result.server, ": ", " ")}}}`);
  });

  it("a compact object gets its entry on one line, spaced like its neighbours", async () => {
    const head = '{ "theme" : "dark",  "mcpServers" : { "other" : {"command": "x"}';
    const result = await installInto(`${head} } }\n`);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.text, `${head},  "notes" : ${oneLine(result.server, " : ", "  ")} } }\n`);
  });

  it("a minified file gets a minified entry", async () => {
    const head = '{"theme":"dark","mcpServers":{"other":{"command":"x","args":[]}';
    const result = await installInto(`${head}}}`);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.text, `${head},"notes":${JSON.stringify(result.server)}}}`);
  });

  it("escapes and unicode elsewhere stay as written, not as JSON.stringify would write them", async () => {
    const head = '{\n\t"s": "\\u00e9\\ud83d\\ude00 é 😀 \\/ \\" \\u2028 \\ud800",\n\t"t": "\u2029"';
    const result = await installInto(`${head}\n}`);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(
      result.text,
      `${head},\n\t"mcpServers": ${pretty({ notes: result.server }, "\t", "\t")}\n}`,
      "a missing final newline stays missing",
    );
  });

  it("VS Code's JSONC: comments and trailing commas stay; the entry goes after a commented-out server", async () => {
    const head =
      '// servers for this project\n{\n  "servers": {\n    "other": { "type": "stdio", "command": "x" }, ' +
      '// keep\n    // "old": { "command": "y" },';
    const tail = "\n  },\n  /* inputs later */\n}\n";
    const result = await installInto(head + tail, ["--client", "vscode"]);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.text, `${head}\n    "notes": ${pretty(result.server, "  ", "    ")},${tail}`);
  });

  it("--force replaces only the entry's value: its key, its neighbours and a comment after it stay", async () => {
    const head = '{\n    "servers": {\n        "notes": ';
    const tail = ', // mine\n        "z": {"command": "z"}\n    }\n}\n';
    const result = await installInto(`${head}{"command": "old"}${tail}`, ["--client", "vscode", "--force"]);
    assert.equal(result.code, 0, result.stdout);
    assert.equal(result.text, `${head}${pretty(result.server, "    ", "        ")}${tail}`);
  });

  for (const client of ["claude-desktop", "claude-code", "cursor"]) {
    it(`${client} reads plain JSON: a comment or a trailing comma is refused with exit 4 naming the client`, async () => {
      for (
        const original of ['{"mcpServers": {} // none yet\n}', '{"mcpServers": {"a": {"command": "a"},}}']
      ) {
        const result = await installInto(original, ["--client", client]);
        assert.equal(result.code, ExitCode.PRECONDITION, result.stdout);
        assert.match(onlyEnvelope(result.stdout).error.message, /reads this file as plain JSON/);
        assert.equal(result.text, original);
        assert.deepEqual(result.files, ["config.json"]);
      }
    });
  }

  it("the same entry again is a noop in a JSONC file: not a byte written, no backup", async () => {
    const box = sandbox();
    try {
      const config = join(box.home, "mcp.json");
      writeFileSync(config, '{\n  // mine\n  "servers": {},\n}\n');
      assert.equal((await install(box, ["--client", "vscode", "--config", config])).code, 0);
      const once = readFileSync(config, "utf8");
      assert.ok(once.includes("// mine"), once);
      assert.equal(backupsOf(config).length, 1);
      const again = await install(box, ["--client", "vscode", "--config", config]);
      assert.equal(onlyEnvelope(again.stdout).data.effect, "noop");
      assert.equal(readFileSync(config, "utf8"), once);
      assert.equal(backupsOf(config).length, 1);
    } finally {
      box.cleanup();
    }
  });
});
