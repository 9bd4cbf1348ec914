// splitCommandLine / quoteCommandLine: shell word splitting without a shell (the `--exec` of toolwire), by
// the POSIX rules on every platform, and by the Windows rules when the platform is Windows.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { quoteCommandLine, splitCommandLine } from "../../lib/bridge/command_line.ts";

function split(line: string): string[] {
  const result = splitCommandLine(line, "linux");
  if ("error" in result) throw new Error(result.error);
  return result.argv;
}

describe("splitCommandLine", () => {
  it("splits on unquoted blanks, tabs and newlines; no words in an empty line", () => {
    assert.deepEqual(split("  python3\ttool.py \n --profile   dev "), [
      "python3",
      "tool.py",
      "--profile",
      "dev",
    ]);
    assert.deepEqual(split(""), []);
    assert.deepEqual(split(" \t\n"), []);
  });

  it("single quotes keep every character, backslashes and double quotes included", () => {
    assert.deepEqual(split(`a 'b c' 'd\\e' '"f"'`), ["a", "b c", "d\\e", `"f"`]);
  });

  it('double quotes unescape only \\" \\\\ \\$ \\` and keep other backslashes', () => {
    assert.deepEqual(split(`"a \\"b\\" \\\\ \\$HOME \\\`x\\\`" "c\\nd"`), [`a "b" \\ $HOME \`x\``, "c\\nd"]);
  });

  it("adjacent pieces join into one word; an empty quoted word is an argument", () => {
    assert.deepEqual(split(`a"b c"'d'e`), ["ab cde"]);
    assert.deepEqual(split(`tool '' ""`), ["tool", "", ""]);
  });

  it("outside quotes a backslash keeps the next character; a backslash-newline joins lines", () => {
    assert.deepEqual(split("my\\ tool \\'x\\' a\\\nb \\\n c"), ["my tool", "'x'", "ab", "c"]);
  });

  it("shell syntax is ordinary text: nothing is expanded, substituted, piped or redirected", () => {
    assert.deepEqual(split("tool; rm -rf / | cat > out $(id) `id` $HOME * &&"), [
      "tool;",
      "rm",
      "-rf",
      "/",
      "|",
      "cat",
      ">",
      "out",
      "$(id)",
      "`id`",
      "$HOME",
      "*",
      "&&",
    ]);
  });

  it("refuses unbalanced quotes and a trailing lone backslash, naming the position", () => {
    assert.deepEqual(splitCommandLine(`tool "unclosed`, "linux"), {
      error: `unbalanced " opened at character 6`,
    });
    assert.deepEqual(splitCommandLine(`tool 'it`, "linux"), { error: "unbalanced ' opened at character 6" });
    assert.deepEqual(splitCommandLine(`tool "a\\"`, "linux"), {
      error: `unbalanced " opened at character 6`,
    });
    assert.deepEqual(splitCommandLine("tool \\", "linux"), {
      error: "a lone backslash ends the line at character 6",
    });
  });
});

describe("quoteCommandLine", () => {
  it("leaves plain words alone and single-quotes the rest", () => {
    assert.equal(
      quoteCommandLine(["python3", "/srv/my-tool/cli.py", "--x=1"], "linux"),
      "python3 /srv/my-tool/cli.py --x=1",
    );
    assert.equal(quoteCommandLine(["my tool.py", "it's", ""], "linux"), `'my tool.py' 'it'\\''s' ''`);
  });

  it("round-trips through splitCommandLine, whatever the words hold", () => {
    const words = [
      "a b",
      "it's",
      `"q"`,
      "\\",
      "$(id)",
      "`x`",
      "; rm -rf x",
      "\n",
      "\t",
      "*",
      "",
      "é ü",
      "'",
      "''",
    ];
    assert.deepEqual(split(quoteCommandLine(words, "linux")), words);
  });
});

describe("--exec on Windows", () => {
  it('splits by the Windows rules: a path keeps its backslashes, quotes group, \\" is a quote', () => {
    assert.deepEqual(splitCommandLine("C:\\tools\\cli.exe --root C:\\data\\", "win32"), {
      argv: ["C:\\tools\\cli.exe", "--root", "C:\\data\\"],
    });
    assert.deepEqual(
      splitCommandLine('"C:\\Program Files\\node\\node.exe" tool.js "say \\"hi\\""', "win32"),
      {
        argv: ["C:\\Program Files\\node\\node.exe", "tool.js", 'say "hi"'],
      },
    );
    assert.deepEqual(splitCommandLine('npx "unclosed', "win32"), {
      error: 'unbalanced " opened at character 5',
    });
  });

  it("quotes by the Windows rules, and round-trips through the Windows split", () => {
    const words = [
      "C:\\Program Files\\tool.exe",
      "a b",
      'say "hi"',
      "C:\\dir\\",
      "",
      "a&b",
      "%PATH%",
      "it's",
    ];
    assert.equal(quoteCommandLine(["node", "my tool.js"], "win32"), 'node "my tool.js"');
    const split = splitCommandLine(quoteCommandLine(words, "win32"), "win32");
    assert.deepEqual(split, { argv: words });
  });
});
