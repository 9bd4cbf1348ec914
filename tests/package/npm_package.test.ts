// The npm package as a user gets it: `npm pack`, install the tarball into an empty project, then import the
// library and its subpaths, run a tool built on it, and run the `toolwire` bin — proving `files`, `exports`,
// `bin` and the bundles are right, not just the sources. The README's quick start runs verbatim there, and a
// user project type-checks against the shipped .d.ts files with the strictest compiler options.
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DENO_PATH, onlyEnvelope, ROOT, run, RUNTIME, tempDir } from "../helpers/run.ts";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
// The installed package runs on Node whichever runtime runs this test — the Node that runs it, or under Deno
// the one on PATH — and under Deno also on Deno, as `npm:toolwire`.
const NODE = RUNTIME === "node" ? process.execPath : "node";

describe("the npm package", { timeout: 180_000 }, () => {
  let dir: { path: string; cleanup: () => void };
  let project: string;

  before(() => {
    dir = tempDir("toolwire-pack-");
    execFileSync(NPM, ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir.path, ROOT], {
      stdio: "pipe",
    });
    const tarball = readdirSync(dir.path).find((name) => name.endsWith(".tgz"))!;
    // The package's dependencies come from the copies `npm ci` installed, packed beside it: offline, npm
    // resolves a registry dependency from its cache of registry metadata, which `npm ci` does not fill.
    const { dependencies = {} } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(dependencies)) {
      execFileSync(NPM, [
        "pack",
        "--silent",
        "--pack-destination",
        dir.path,
        join(ROOT, "node_modules", name),
      ], {
        stdio: "pipe",
      });
    }
    const packed = readdirSync(dir.path).filter((name) => name.endsWith(".tgz") && name !== tarball);
    project = join(dir.path, "project");
    execFileSync("mkdir", [project]);
    // As `npm init -y` writes it, then made a module as the README says.
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "user-project", version: "1.0.0", type: "module" }),
    );
    execFileSync(NPM, [
      "install",
      "--silent",
      "--no-audit",
      "--no-fund",
      "--offline",
      join(dir.path, tarball),
      ...packed.map((name) => join(dir.path, name)),
    ], { cwd: project, stdio: "pipe" });
  });

  after(() => dir?.cleanup());

  it("installs from its tarball and works: import, a tool, mcp serve, the toolwire bin", async () => {
    writeFileSync(
      join(project, "hello.js"),
      [
        'import { createTool } from "toolwire";',
        'const tool = createTool({ name: "hello", version: "1.0.0", description: "Greets" });',
        'tool.command("greet", { description: "Greet someone", danger_level: "safe", required_scopes: [],',
        '  flags: { name: { type: "string", required: true, description: "Who" } },',
        '  exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },',
        "  run: (ctx) => ({ greeting: `hello ${ctx.flags.name}` }) });",
        "await tool.main();",
      ].join("\n"),
    );
    const greet = await run([NODE, join(project, "hello.js"), "greet", "--name", "ada"], { cwd: project });
    assert.equal(greet.code, 0, greet.stderr);
    assert.equal(onlyEnvelope(greet.stdout).data.greeting, "hello ada");

    const init =
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';
    const serve = await run([NODE, join(project, "hello.js"), "mcp", "serve"], { cwd: project, stdin: init });
    assert.equal(serve.code, 0, serve.stderr);
    assert.equal(JSON.parse(serve.stdout.split("\n")[0]!).result.serverInfo.name, "hello");

    const bin = await run([join(project, "node_modules", ".bin", "toolwire"), "--version"], { cwd: project });
    assert.equal(bin.code, 0, bin.stderr);
    assert.equal(onlyEnvelope(bin.stdout).data.name, "toolwire");
  });

  it("serves MCP from its own catalog through the toolwire/mcp subpath, one copy of the library across entries", async () => {
    writeFileSync(
      join(project, "ping.js"),
      [
        'import { processChannel, serveMcp } from "toolwire/mcp";',
        'import { processChannel as framingChannel, SerialWriter } from "toolwire/framing";',
        'import { serveLsp } from "toolwire/lsp";',
        'import { serveDap } from "toolwire/dap";',
        'import { createTool } from "toolwire";',
        "// One module instance behind every entry: the same function, whichever subpath it came from.",
        'if (processChannel !== framingChannel) throw new Error("two copies of the byte channel");',
        'if (typeof SerialWriter !== "function" || typeof serveLsp !== "function" || typeof serveDap !== "function" || typeof createTool !== "function") throw new Error("missing export");',
        "const catalog = {",
        '  tools: () => [{ name: "ping", inputSchema: { type: "object" } }],',
        '  call: async () => ({ kind: "result", result: { content: [{ type: "text", text: "pong" }] } }),',
        "};",
        'await serveMcp({ channel: processChannel() }, { serverInfo: { name: "pinger", version: "1.0.0" }, catalog });',
      ].join("\n"),
    );
    const init =
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n';
    const call = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","arguments":{}}}\n';
    const served = await run([NODE, join(project, "ping.js")], { cwd: project, stdin: init + call });
    assert.equal(served.code, 0, served.stderr);
    const [hello, answer] = served.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(hello.result.serverInfo.name, "pinger");
    assert.equal(answer.result.content[0].text, "pong");
  });

  it("runs the README's quick start verbatim and prints what the README shows", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## A tool in 20 lines"));
    const code = section.match(/```js\n([\s\S]*?)```/)![1]!;
    const file = code.match(/^\/\/ (\S+\.mjs)/)![1]!;
    writeFileSync(join(project, file), code);
    const shell = section.match(/```sh\n([\s\S]*?)```/)![1]!.split("\n");
    const shown = shell.filter((line) => line.startsWith(`$ node ${file} hello`));
    assert.equal(shown.length, 2, "the README shows a success and a refused call");
    for (const line of shown) {
      const [, ...args] = line.slice(2).replace(/#.*$/, "").trim().split(/\s+/);
      const argv = [NODE, ...args];
      const expected = shell[shell.indexOf(line) + 1]!;
      const result = await run(argv, { cwd: project });
      const envelope = onlyEnvelope(result.stdout);
      if (expected.includes('"issues":[...]')) {
        // The README elides the issue list and meta: compare everything it does show.
        assert.equal(result.code, 2, result.stderr);
        const shownError = JSON.parse(expected.replace(/,"issues":\[\.\.\.\]\},\.\.\.\}$/, "}}")).error;
        const { issues: _issues, ...error } = envelope.error as Record<string, unknown>;
        assert.deepEqual(error, shownError);
      } else {
        assert.equal(result.code, 0, result.stderr);
        const readmeEnvelope = JSON.parse(expected);
        readmeEnvelope.meta.duration_ms = envelope.meta.duration_ms;
        assert.deepEqual(envelope, readmeEnvelope);
      }
    }
  });

  it("type-checks a user project with the strictest options, library checking included", () => {
    writeFileSync(
      join(project, "strict.ts"),
      [
        'import { CommandError, createTool, ExitCode, type ResponseEnvelope } from "toolwire";',
        'import type { ToolCatalog } from "toolwire/mcp";',
        'import type { LspHandlers } from "toolwire/lsp";',
        "// A handler may return an interface: no index signature, no cast.",
        "interface Added { title: string; count: number }",
        'const tool = createTool({ name: "strict", version: "1.0.0", description: "Strict" });',
        'tool.command("add", { description: "Add", danger_level: "mutating", required_scopes: [],',
        '  flags: { title: { type: "string", required: true, description: "Title" }, count: { type: "integer", description: "How many" } },',
        '  exit_codes: { "0": { name: "SUCCESS", description: "Added", retryable: false, side_effects: "complete" } },',
        "  run: (ctx) => {",
        '    if (ctx.flags.title === "") throw new CommandError(ExitCode.ARG_ERROR, "empty");',
        "    const count: number | undefined = ctx.flags.count;",
        "    const added: Added = { title: ctx.flags.title, count: count ?? 1 };",
        "    return added;",
        "  } });",
        "export const envelope: ResponseEnvelope | undefined = undefined;",
        'export const catalog: ToolCatalog = { tools: () => [], call: async () => ({ kind: "result", result: { content: [] } }) };',
        "export const handlers: LspHandlers = { initialize: () => ({ capabilities: {} }) };",
        "await tool.main();",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noImplicitOverride: true,
          noPropertyAccessFromIndexSignature: true,
          noFallthroughCasesInSwitch: true,
          noImplicitReturns: true,
          verbatimModuleSyntax: true,
          skipLibCheck: false,
          noEmit: true,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules", "@types")],
        },
        files: ["strict.ts"],
      }),
    );
    try {
      execFileSync(NODE, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", project], {
        cwd: project,
        stdio: "pipe",
      });
    } catch (error) {
      assert.fail(`tsc failed:\n${(error as { stdout?: Buffer }).stdout?.toString()}`);
    }
  });

  it("type-checks a user project that has no @types/node: the shipped .d.ts name no Node type", () => {
    writeFileSync(
      join(project, "web_only.ts"),
      [
        'import { CommandError, createTool, ExitCode, type ResponseEnvelope } from "toolwire";',
        'import type { ToolCatalog } from "toolwire/mcp";',
        'import type { LspHandlers } from "toolwire/lsp";',
        'import type { DapHandlers } from "toolwire/dap";',
        'import { LineFramer, SerialWriter, processChannel } from "toolwire/framing";',
        'const tool = createTool({ name: "web", version: "1.0.0", description: "No Node types" });',
        'tool.command("greet", { description: "Greet", danger_level: "safe", required_scopes: [],',
        '  flags: { name: { type: "string", required: true, description: "Who" } },',
        '  exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },',
        "  run: (ctx) => {",
        '    if (ctx.flags.name === "") throw new CommandError(ExitCode.ARG_ERROR, "empty");',
        "    return { greeting: `hello ${ctx.flags.name}` };",
        "  } });",
        "export const envelope: ResponseEnvelope | undefined = undefined;",
        "export type Served = ToolCatalog | LspHandlers | DapHandlers;",
        "export const framer = new LineFramer();",
        "export const out = new SerialWriter(processChannel());",
        "await tool.main();",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.web.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          // The Web's types only: what a project without Node's type library has.
          lib: ["ES2022", "DOM"],
          types: [],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ["web_only.ts"],
      }),
    );
    let listed = "";
    try {
      listed = execFileSync(
        NODE,
        [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.web.json", "--listFiles"],
        { cwd: project, stdio: "pipe" },
      ).toString();
    } catch (error) {
      assert.fail(`tsc failed:\n${(error as { stdout?: Buffer }).stdout?.toString()}`);
    }
    const files = listed.split("\n").filter((line) => line.includes("/node_modules/toolwire/"));
    assert.ok(files.some((file) => file.endsWith("runtime/stdio.d.ts")), "stdio.d.ts was checked");
    assert.equal(listed.includes("@types/node"), false, "no file of @types/node was read");
  });

  it("exports its package.json and JSON Schemas, and ships source maps", async () => {
    const resolve = [
      "import { createRequire } from 'node:module';",
      "const require = createRequire(import.meta.url);",
      "console.log(JSON.stringify([require.resolve('toolwire/package.json'), require.resolve('toolwire/schema/manifest.schema.json')]));",
    ].join("\n");
    writeFileSync(join(project, "resolve.mjs"), resolve);
    const resolved = await run([NODE, join(project, "resolve.mjs")], { cwd: project });
    assert.equal(resolved.code, 0, resolved.stderr);
    const [pkg, schema] = JSON.parse(resolved.stdout) as string[];
    assert.equal(JSON.parse(readFileSync(pkg!, "utf8")).name, "toolwire");
    assert.equal(JSON.parse(readFileSync(schema!, "utf8")).type, "object");
    const installed = join(project, "node_modules", "toolwire", "dist");
    // The entries, and the chunks that hold the library; each with the TypeScript it was built from.
    // `mod.js` is re-exports of the first chunk and nothing else: its map has no source to point at.
    for (
      const [bundle, source] of [
        ["mod.js", undefined],
        ["lib/protocol/mcp/mod.js", "lib/protocol/mcp/mod.ts"],
        ["lib/protocol/lsp/mod.js", "lib/protocol/lsp/mod.ts"],
        ["lib/protocol/dap/mod.js", "lib/protocol/dap/mod.ts"],
        ["lib/framing/mod.js", "lib/framing/mod.ts"],
        ["chunks/toolwire.js", "lib/command/tool.ts"],
        ["chunks/toolwire_rest.js", "lib/protocol/lsp/serve_lsp.ts"],
        ["chunks/toolwire_lock.js", "lib/runtime/file_lock.ts"],
        ["chunks/toolwire_text.js", "lib/command/cli/help_text.ts"],
        ["cmd/toolwire.js", "cmd/toolwire.ts"],
        ["cmd/toolwire_tool.js", "cmd/toolwire_tool.ts"],
      ]
    ) {
      const text = readFileSync(join(installed, bundle!), "utf8");
      assert.match(text, /\/\/# sourceMappingURL=\S+\.js\.map\s*$/);
      // Lines a person can read: Node prints the throwing line above an uncaught error, so a module on one
      // line would bury the message.
      const longest = Math.max(...text.split("\n").map((line) => line.length));
      assert.ok(longest <= 1000, `${bundle} has a line of ${longest} characters`);
      assert.doesNotMatch(text, /[\u0080-\u{10ffff}]/u, `${bundle} is ASCII only`);
      const map = JSON.parse(readFileSync(join(installed, `${bundle}.map`), "utf8")) as {
        sources: string[];
        sourcesContent?: string[];
      };
      if (source === undefined) {
        assert.match(
          text,
          // The first line names the types JSR serves (the npm package has its .d.ts files).
          /^\/\* @ts-self-types="\.\.\/mod\.ts" \*\/\nimport \{[\w$,\s]+\} from "\.\/chunks\/toolwire\.js";\s*export \{[\w$,\s]+\};\n/,
        );
      } else {
        assert.ok(map.sources.some((path) => path.endsWith(source)), `${bundle}'s map points at ${source}`);
      }
      assert.equal(map.sourcesContent?.length, map.sources.length, "the sources travel inside the map");
    }
    // No other chunk: every entry shares the one copy of each module.
    assert.deepEqual(readdirSync(join(installed, "chunks")).sort(), [
      "toolwire.js",
      "toolwire.js.map",
      "toolwire_lock.js",
      "toolwire_lock.js.map",
      "toolwire_rest.js",
      "toolwire_rest.js.map",
      "toolwire_text.js",
      "toolwire_text.js.map",
    ]);
  });

  it("runs a tool from the first chunk alone; the others are loaded only by what needs them", async () => {
    // A copy of the package with the first chunk only: whatever a tool does at every start, `mcp serve`
    // included, must not reach the others.
    const lean = join(dir.path, "lean");
    cpSync(join(project, "node_modules", "toolwire"), join(lean, "node_modules", "toolwire"), {
      recursive: true,
    });
    for (const chunk of ["toolwire_rest.js", "toolwire_lock.js", "toolwire_text.js"]) {
      rmSync(join(lean, "node_modules", "toolwire", "dist", "chunks", chunk));
    }
    writeFileSync(
      join(lean, "package.json"),
      JSON.stringify({ name: "lean", version: "1.0.0", type: "module" }),
    );
    cpSync(join(project, "hello.js"), join(lean, "hello.js"));
    const hello = [NODE, join(lean, "hello.js")];
    // A missing flag is an ARG_ERROR envelope on stdout (JSON: not a terminal), with no text to render.
    const runs: Array<[string[], number]> = [
      [["greet", "--name", "ada"], 0],
      [["manifest"], 0],
      [["--version"], 0],
      [["greet"], 2],
    ];
    for (const [argv, code] of runs) {
      const result = await run([...hello, ...argv], { cwd: lean });
      assert.equal(result.code, code, `${argv.join(" ")}: ${result.stderr}`);
    }
    // Plain text is in a chunk this copy lacks: the run still ends in one envelope, and says why.
    const plainless = await run([...hello, "greet", "--format", "plain"], { cwd: lean });
    assert.equal(plainless.code, 1, plainless.stderr);
    assert.equal(onlyEnvelope(plainless.stdout).error.code, "GENERAL_ERROR");
    assert.match(plainless.stderr, /^hello: error: internal error: .*toolwire_text\.js/m);
    const session = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {} },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "greet", arguments: { name: "ada" } } },
    ].map((message) => `${JSON.stringify(message)}\n`).join("");
    const serve = await run([...hello, "mcp", "serve"], { cwd: lean, stdin: session });
    assert.equal(serve.code, 0, serve.stderr);
    const answers = serve.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((answer) => answer.id), [1, 2, 3]);
    assert.equal(answers[2].result.structuredContent.data.greeting, "hello ada");

    // The full package: the built-ins that load their work on first use find it in the second chunk, the
    // file lock and the text a person reads are in chunks of their own.
    const full = [NODE, join(project, "hello.js")];
    const help = await run([...full, "greet", "--help"], { cwd: project });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /--name/);
    const plain = await run([...full, "greet", "--format", "plain"], { cwd: project });
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /^hello: error: /m);
    writeFileSync(
      join(project, "lock.mjs"),
      [
        'import { FileLockTimeoutError, withFileLock } from "toolwire";',
        'const held = await withFileLock("held.lock", async () => {',
        '  const again = await withFileLock("held.lock", () => "taken", { timeoutMs: 0 }).catch((error) =>',
        '    error instanceof FileLockTimeoutError ? "busy" : `other: ${error}`',
        "  );",
        "  return again;",
        "});",
        "console.log(held);",
      ].join("\n"),
    );
    const lock = await run([NODE, join(project, "lock.mjs")], { cwd: project });
    assert.equal(lock.code, 0, lock.stderr);
    assert.equal(lock.stdout.trim(), "busy");
    const completions = await run([...full, "completions", "bash"], { cwd: project });
    assert.equal(completions.code, 0, completions.stderr);
    assert.match(completions.stdout, /^# bash completion for hello/);
    const install = await run([...full, "mcp", "install", "--client", "cursor", "--print"], { cwd: project });
    assert.equal(install.code, 0, install.stderr);
    assert.deepEqual(onlyEnvelope(install.stdout).data.snippet.mcpServers.hello.args.slice(-2), [
      "mcp",
      "serve",
    ]);
  });
  it(
    "runs on Deno as npm:toolwire with no permission: a command, mcp serve in both eras, built-ins that load a chunk",
    { skip: RUNTIME === "deno" ? false : "Deno runs the build in the Deno half of the suite" },
    async () => {
      // The README offers the npm package to a Deno tool too: the same build as JSR's, reached through npm.
      writeFileSync(
        join(project, "deno_tool.ts"),
        [
          'import { createTool } from "toolwire";',
          'const tool = createTool({ name: "dtool", version: "1.0.0", description: "Greets on Deno" });',
          'tool.command("greet", { description: "Greet someone", danger_level: "safe", required_scopes: [],',
          '  flags: { name: { type: "string", required: true, description: "Who" } },',
          '  exit_codes: { "0": { name: "SUCCESS", description: "Greeted", retryable: false, side_effects: "none" } },',
          '  run: (ctx) => ({ greeting: `hello ${ctx.flags.name}`, deno: typeof Deno === "object" }) });',
          "await tool.main();",
        ].join("\n"),
      );
      const tool = [DENO_PATH!, "run", "--quiet", join(project, "deno_tool.ts")];
      const greet = await run([...tool, "greet", "--name", "ada"], { cwd: project });
      assert.equal(greet.code, 0, greet.stderr);
      assert.deepEqual(onlyEnvelope(greet.stdout).data, { greeting: "hello ada", deno: true });
      assert.equal(greet.stderr, "");

      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
      };
      const call = (id: number, extra: object) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "greet", arguments: { name: `caller ${id}` }, ...extra },
      });
      const sessions = {
        legacy: [
          {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {} },
          },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          call(2, {}),
        ],
        modern: [
          { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
          call(2, { _meta: meta }),
        ],
      };
      for (const [era, messages] of Object.entries(sessions)) {
        const stdin = messages.map((message) => `${JSON.stringify(message)}\n`).join("");
        const serve = await run([...tool, "mcp", "serve"], { cwd: project, stdin });
        assert.equal(serve.code, 0, `${era}: ${serve.stderr}`);
        const answers = serve.stdout.trim().split("\n").map((line) => JSON.parse(line));
        assert.deepEqual(answers.map((answer) => answer.id), [1, 2], era);
        assert.equal(answers[1].result.structuredContent.data.greeting, "hello caller 2", era);
      }

      const completions = await run([...tool, "completions", "bash"], { cwd: project });
      assert.equal(completions.code, 0, completions.stderr);
      assert.match(completions.stdout, /^# bash completion for dtool/);
      const install = await run([...tool, "mcp", "install", "--client", "cursor", "--print"], {
        cwd: project,
      });
      assert.equal(install.code, 0, install.stderr);
      assert.deepEqual(onlyEnvelope(install.stdout).data.snippet.mcpServers.dtool.args, [
        "run",
        join(project, "deno_tool.ts"),
        "mcp",
        "serve",
      ]);
    },
  );
});
