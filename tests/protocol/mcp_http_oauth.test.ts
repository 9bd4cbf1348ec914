// An MCP endpoint as an OAuth 2.1 resource server, against a real authorization server: oidc-provider on
// loopback (tests/fixtures/auth_server.mjs) issues JWT access tokens by the client credentials grant, with
// the endpoint as their audience. `notes mcp listen --oauth-issuer …` and `toolwire mcp listen --exec notes
// --oauth-issuer …`, spawned for real: no token, or a token that is not valid here, is 401 naming the
// Protected Resource Metadata; a caller sees and calls only the tools its scopes cover (403
// insufficient_scope otherwise, nothing run); each call leaves one audit line and no token anywhere; the SDK
// v2 client's own OAuth support connects end to end; a rotated signing key is picked up, and made-up key ids
// do not make the server hammer the key set. Then who the caller is, as a handler and a bridged CLI see it.
import { type ChildProcess, spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { base64url, importJWK, type JWK, SignJWT } from "jose";
import { modern } from "../helpers/mcp_wire.ts";
import { type Loose, NOTES, onlyEnvelope, programArgv, ROOT, run } from "../helpers/run.ts";
import { manifestEtag } from "../../lib/command/contract/manifest.ts";
import {
  HTTP_SERVERS,
  type HttpListener,
  modernHeaders,
  openListen,
  post,
  type RawListen,
  startHttpListener,
} from "../helpers/http_listener.ts";
import { execLine, TOOLWIRE } from "../helpers/toolwire.ts";

/** The authorization server, running. */
interface AuthServer {
  issuer: string;
  /** An access token of `client` for `resource`, from the token endpoint. */
  token(client: "reader" | "writer", resource: string, scope?: string): Promise<string>;
  /** The private signing keys it publishes (their public halves), newest first. */
  keys(): Promise<Array<JWK & { kid: string; alg: string }>>;
  /** How often its key set was fetched. */
  jwksHits(): Promise<number>;
  /** A new signing key, first in the key set; its id. */
  rotate(): Promise<string>;
  stop(): Promise<void>;
}

async function startAuthServer(): Promise<AuthServer> {
  const child: ChildProcess = spawn("node", [join(ROOT, "tests", "fixtures", "auth_server.mjs")], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_NO_WARNINGS: "1" },
  });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the authorization server did not start: ${output}`)),
      30_000,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const found = /^issuer (\S+)$/m.exec(output);
      if (found !== null) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the authorization server exited ${code}: ${output}`));
    });
  });
  const json = async (path: string, init?: RequestInit) =>
    (await fetch(`${issuer}${path}`, init)).json() as Promise<Loose>;
  return {
    issuer,
    async token(client, resource, scope = client === "writer" ? "notes:read notes:write" : "notes:read") {
      const answer = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${client}:${client}-secret`)}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      const body: Loose = await answer.json();
      assert.equal(answer.status, 200, JSON.stringify(body));
      return body.access_token;
    },
    keys: async () => (await json("/test/keys")).keys,
    jwksHits: async () => (await json("/test/jwks-hits")).hits,
    rotate: async () => (await json("/test/rotate", { method: "POST" })).kid,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A token signed with one of the authorization server's own keys, with the claims and header given. */
async function forged(
  key: JWK & { kid: string; alg: string },
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({ iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "at+jwt", ...header })
    .sign(await importJWK(key, key.alg));
}

/** The claims oidc-provider puts in a writer's token for `audience`. */
function writerClaims(issuer: string, audience: string): Record<string, unknown> {
  return { iss: issuer, aud: audience, sub: "writer", client_id: "writer", scope: "notes:read notes:write" };
}

function bearer(headers: Record<string, string>, token: string): Record<string, string> {
  return { ...headers, authorization: `Bearer ${token}` };
}

async function listTools(url: string, token: string): Promise<string[]> {
  const answer = await post(url, modern(1, "tools/list"), bearer(modernHeaders("tools/list"), token));
  assert.equal(answer.status, 200, answer.text);
  return answer.json.result.tools.map((tool: { name: string }) => tool.name).sort();
}

function callTool(url: string, token: string, name: string, args: Record<string, unknown>) {
  return post(
    url,
    modern(2, "tools/call", { name, arguments: args }),
    bearer(modernHeaders("tools/call", name), token),
  );
}

/** The audit lines of a listener's stderr, parsed. */
function auditLines(listener: HttpListener): Loose[] {
  return [...listener.stderr().matchAll(/^mcp audit: (.*)$/gm)].map((line) => JSON.parse(line[1]!));
}

let auth: AuthServer;
before(async () => {
  auth = await startAuthServer();
});
after(async () => {
  await auth.stop();
});

for (const server of HTTP_SERVERS) {
  describe(`${server.name} --oauth-issuer <oidc-provider>`, () => {
    let listener: HttpListener;
    const tokens: string[] = [];
    before(async () => {
      listener = await startHttpListener(server.argv, { flags: ["--oauth-issuer", auth.issuer] });
    });
    after(async () => {
      const result = await listener.stop();
      assert.equal(result.code, 143, result.stderr);
      for (const token of tokens) assert.ok(!listener.stderr().includes(token), "a token was logged");
      assert.doesNotMatch(listener.stderr(), /\n\s+at \S/, listener.stderr());
    });

    it("no token: 401 naming the metadata and the scopes; the metadata at both well-known paths", async () => {
      const answer = await post(listener.url, modern(1, "tools/list"), modernHeaders("tools/list"));
      assert.equal(answer.status, 401, answer.text);
      const metadataUrl = new URL("/.well-known/oauth-protected-resource/mcp", listener.url).href;
      assert.equal(
        answer.headers.get("www-authenticate"),
        `Bearer resource_metadata="${metadataUrl}", scope="notes:read notes:write"`,
      );
      for (
        const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
      ) {
        const metadata = await fetch(new URL(path, listener.url));
        assert.equal(metadata.status, 200, path);
        const document: Loose = await metadata.json();
        assert.deepEqual(document.resource, listener.url);
        assert.deepEqual(document.authorization_servers, [auth.issuer]);
        assert.deepEqual(document.scopes_supported, ["notes:read", "notes:write"]);
        assert.deepEqual(document.bearer_methods_supported, ["header"]);
      }
    });

    it("wrong issuer, wrong audience, expired, bad signature, alg none, HMAC: 401 invalid_token, nothing runs", async () => {
      const [key] = await auth.keys();
      const claims = writerClaims(auth.issuer, listener.url);
      const real = await auth.token("writer", listener.url);
      tokens.push(real);
      const [head, body, signature] = real.split(".");
      const flipped = signature!.slice(0, 10) + (signature![10] === "A" ? "B" : "A") + signature!.slice(11);
      const none = `${base64url.encode(JSON.stringify({ alg: "none", typ: "at+jwt" }))}.${body}.`;
      const hmacKey = {
        kty: "oct",
        k: base64url.encode("a secret shared with nobody"),
        kid: key!.kid,
        alg: "HS256",
      };
      const past = Math.floor(Date.now() / 1000) - 120;
      const bad: Array<[string, string]> = [
        ["wrong issuer", await forged(key!, { ...claims, iss: "http://127.0.0.1:9/" })],
        ["wrong audience", await auth.token("writer", "http://127.0.0.1:9/mcp")],
        ["expired", await forged(key!, { ...claims, iat: past - 300, exp: past })],
        ["not yet valid", await forged(key!, { ...claims, nbf: past + 240 })],
        ["bad signature", `${head}.${body}.${flipped}`],
        ["alg none", none],
        ["HMAC", await forged(hmacKey as JWK & { kid: string; alg: string }, claims)],
        ["not a JWT", "opaque-token"],
      ];
      for (const [what, token] of bad) {
        tokens.push(token);
        const answer = await callTool(listener.url, token, "add", { title: what });
        assert.equal(answer.status, 401, `${what}: ${answer.text}`);
        const challenge = answer.headers.get("www-authenticate") ?? "";
        assert.match(
          challenge,
          /^Bearer resource_metadata="[^"]+", scope="notes:write", error="invalid_token"/,
          what,
        );
      }
      assert.deepEqual(await listener.titles(), [], "no refused call ran");
      // Within the clock skew, a token just past its exp is still accepted.
      const late = await forged(key!, { ...claims, exp: Math.floor(Date.now() / 1000) - 5 });
      tokens.push(late);
      assert.deepEqual(await listTools(listener.url, late), ["add", "list", "manifest", "remove", "show"]);
    });

    it("notes:read lists only the safe tools, and remove is 403 insufficient_scope with nothing run", async () => {
      const writer = await auth.token("writer", listener.url);
      const reader = await auth.token("reader", listener.url);
      tokens.push(writer, reader);
      const added = await callTool(listener.url, writer, "add", { title: "kept" });
      assert.equal(added.status, 200, added.text);
      const id = added.json.result.structuredContent.data.note.id;

      assert.deepEqual(await listTools(listener.url, reader), ["list", "manifest", "show"]);
      const shown = await callTool(listener.url, reader, "show", { id });
      assert.equal(shown.json.result.structuredContent.data.title, "kept");
      const refused = await callTool(listener.url, reader, "remove", { id, confirm_destructive: true });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(
        refused.headers.get("www-authenticate"),
        `Bearer error="insufficient_scope", scope="notes:write", resource_metadata="${
          new URL("/.well-known/oauth-protected-resource/mcp", listener.url).href
        }", error_description="Forbidden: the tool remove requires the scope notes:write"`,
      );
      assert.equal(refused.json.id, 2);
      assert.deepEqual(await listener.titles(), ["kept"], "the refused remove ran nothing");

      const removed = await callTool(listener.url, writer, "remove", { id, confirm_destructive: true });
      assert.equal(removed.json.result.structuredContent.data.effect, "deleted", removed.text);
      assert.deepEqual(await listener.titles(), []);
      const audit = auditLines(listener).map((
        line,
      ) => [line.subject, line.client_id, line.tool, line.outcome]);
      for (
        const expected of [
          ["writer", "writer", "add", "ok"],
          ["reader", "reader", "show", "ok"],
          ["reader", "reader", "remove", "denied"],
          ["writer", "writer", "remove", "ok"],
        ]
      ) {
        assert.ok(
          audit.some((line) => JSON.stringify(line) === JSON.stringify(expected)),
          JSON.stringify(audit),
        );
      }
      for (const line of auditLines(listener)) assert.ok(!Number.isNaN(Date.parse(line.time)), line.time);
    });

    it("the manifest tool holds only the commands the caller's scopes cover, with the etag of what it holds", async () => {
      const whole = onlyEnvelope((await run([...NOTES, "manifest"])).stdout).data;
      const manifestOf = async (token: string, etag?: string) => {
        const answer = await callTool(listener.url, token, "manifest", etag === undefined ? {} : { etag });
        assert.equal(answer.status, 200, answer.text);
        return answer.json.result.structuredContent;
      };
      const open = ["completions", "manifest", "mcp.install"];
      const readable = ["completions", "list", "lsp", "manifest", "mcp.install", "show"];
      for (
        const [who, token, expected] of [
          ["no scope", await auth.token("reader", listener.url, ""), open],
          ["notes:read", await auth.token("reader", listener.url), readable],
          ["notes:read notes:write", await auth.token("writer", listener.url), Object.keys(whole.commands)],
        ] as const
      ) {
        tokens.push(token);
        const served = await manifestOf(token);
        assert.deepEqual(Object.keys(served.data.commands), expected, who);
        for (const path of expected) assert.deepEqual(served.data.commands[path], whole.commands[path], path);
        const { etag: _etag, ...rest } = served.data;
        assert.equal(served.data.etag, await manifestEtag(rest), `${who}: the etag is that of what it holds`);
        assert.equal(served.data.etag === whole.etag, expected.length === Object.keys(whole.commands).length);
        // The caller's own etag: not modified; the whole manifest's etag tells it nothing.
        const again = await manifestOf(token, served.data.etag);
        assert.deepEqual([again.data, again.meta.not_modified], [null, true], who);
        if (served.data.etag !== whole.etag) {
          assert.deepEqual(Object.keys((await manifestOf(token, whole.etag)).data.commands), expected, who);
        }
      }
    });

    it("tokens signed with RS256, PS256, ES256 and EdDSA keys the issuer publishes are accepted", async () => {
      const keys = await auth.keys();
      for (const alg of ["RS256", "PS256", "ES256", "EdDSA"]) {
        const key = keys.find((candidate) => candidate.alg === alg);
        const token = await forged(key!, writerClaims(auth.issuer, listener.url));
        tokens.push(token);
        assert.deepEqual(
          await listTools(listener.url, token),
          ["add", "list", "manifest", "remove", "show"],
          alg,
        );
      }
    });

    it("the SDK v2 client, with its client credentials provider, gets a token and runs a call", async () => {
      const client = new Client({ name: "toolwire-oauth", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      // The SDK asks for the scopes the 401 names (every scope a served tool requires): the writer's.
      const provider = new ClientCredentialsProvider({
        clientId: "writer",
        clientSecret: "writer-secret",
        expectedIssuer: auth.issuer,
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(listener.url), { authProvider: provider }),
      );
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), [
          "add",
          "list",
          "manifest",
          "remove",
          "show",
        ]);
        const added = await client.callTool({ name: "add", arguments: { title: "from the SDK" } }) as Loose;
        assert.equal(added.isError, false, JSON.stringify(added));
        assert.ok((await listener.titles()).includes("from the SDK"));
        tokens.push(provider.tokens()!.access_token);
      } finally {
        await client.close();
      }
    });
  });
}

describe("listen streams per caller", () => {
  let listener: HttpListener;
  const open: RawListen[] = [];
  before(async () => {
    // 8 connections: at most 4 listen streams, 2 per caller.
    listener = await startHttpListener(HTTP_SERVERS[0].argv, {
      flags: ["--oauth-issuer", auth.issuer, "--max-connections", "8"],
    });
  });
  after(async () => {
    await Promise.all(open.map((listen) => listen.close()));
    const result = await listener.stop();
    assert.equal(result.code, 143, result.stderr);
  });

  it("a caller whose token grants no scope opens 2 streams, then 429; another caller still opens one and calls", async () => {
    const idle = await auth.token("reader", listener.url, "");
    const writer = await auth.token("writer", listener.url);
    const listen = async (id: number, token: string) => {
      const opened = await openListen(listener.url, { id, headers: { authorization: `Bearer ${token}` } });
      open.push(opened);
      return opened;
    };
    for (const id of [1, 2]) assert.equal((await listen(id, idle)).status, 200);
    const refused = await listen(3, idle);
    assert.equal(refused.status, 429, refused.body);
    assert.ok(Number(refused.headers["retry-after"]) >= 1);
    const body = JSON.parse(refused.body);
    assert.deepEqual([body.id, body.error.code], [3, -32603]);
    assert.match(body.error.message, /Too many listen streams: caller reader has 2 open/);
    const other = await listen(4, writer);
    assert.equal(other.status, 200, other.body);
    assert.match(other.body, /notifications\/subscriptions\/acknowledged/);
    assert.deepEqual(await listTools(listener.url, writer), ["add", "list", "manifest", "remove", "show"]);
    assert.deepEqual(await listTools(listener.url, idle), ["manifest"]);
  });
});

describe("key rotation", () => {
  let rotating: AuthServer;
  let listener: HttpListener;
  before(async () => {
    rotating = await startAuthServer();
    listener = await startHttpListener(HTTP_SERVERS[0].argv, { flags: ["--oauth-issuer", rotating.issuer] });
  });
  after(async () => {
    await listener.stop();
    await rotating.stop();
  });

  it("a token signed with a new key is accepted; made-up key ids fetch the key set at most once a cooldown", async () => {
    const before = await rotating.token("reader", listener.url);
    assert.deepEqual(await listTools(listener.url, before), ["list", "manifest", "show"]);
    const kid = await rotating.rotate();
    const after = await rotating.token("reader", listener.url);
    assert.equal(JSON.parse(atob(after.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))).kid, kid);
    const hits = await rotating.jwksHits();
    // The key set was fetched at the start: the new key is fetched once the cooldown after it has passed.
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await post(listener.url, modern(1, "tools/list"), bearer(modernHeaders("tools/list"), after)))
        .status;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(status, 200, "the rotated key was never picked up");
    assert.ok((await rotating.jwksHits()) > hits, "the key set was fetched again");
    assert.deepEqual(
      await listTools(listener.url, before),
      ["list", "manifest", "show"],
      "the old key still works",
    );

    const [key] = await rotating.keys();
    const fetched = await rotating.jwksHits();
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const token = await forged({ ...key!, kid: `made-up-${i}` }, {
        iss: rotating.issuer,
        aud: listener.url,
        sub: "mallory",
        scope: "notes:read",
      });
      return (await post(listener.url, modern(1, "tools/list"), bearer(modernHeaders("tools/list"), token)))
        .status;
    }));
    assert.deepEqual(new Set(answers), new Set([401]));
    assert.ok(
      (await rotating.jwksHits()) - fetched <= 1,
      "unknown key ids made the server refetch the key set",
    );
  });
});

describe("who called, as the handler and a bridged CLI see it", () => {
  const WHOAMI = programArgv("tests/fixtures/whoami.ts");
  for (
    const [name, argv] of [
      ["whoami mcp listen", (flags: readonly string[]) => [...WHOAMI, "mcp", "listen", ...flags]],
      [
        "toolwire mcp listen --exec whoami",
        (flags: readonly string[]) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(WHOAMI), ...flags],
      ],
    ] as const
  ) {
    it(`${name}: the caller's subject, client and scopes, never the token`, async () => {
      const listener = await startHttpListener(argv, {
        flags: ["--oauth-issuer", auth.issuer],
        // A value the server was started with must never pass for the caller's.
        env: { TOOLWIRE_CALLER_SUB: "spoofed" },
      });
      try {
        const token = await auth.token("writer", listener.url);
        const answer = await callTool(listener.url, token, "whoami", {});
        assert.equal(answer.status, 200, answer.text);
        const data = answer.json.result.structuredContent.data;
        const bridged = name.startsWith("toolwire");
        assert.deepEqual(
          data.caller,
          bridged ? null : { subject: "writer", client_id: "writer", scopes: ["notes:read", "notes:write"] },
        );
        assert.deepEqual(
          data.variables,
          bridged
            ? { sub: "writer", client_id: "writer", scopes: "notes:read notes:write" }
            : { sub: "spoofed", client_id: null, scopes: null },
        );
        for (const value of data.values) {
          assert.ok(!value.includes(token.split(".")[2]), "the token reached the CLI");
        }
      } finally {
        await listener.stop();
      }
    });
  }
});

describe("scopes that are not OAuth scope-tokens, as a bridged CLI sees them", () => {
  const WHOAMI = programArgv("tests/fixtures/whoami.ts");
  let listener: HttpListener;
  before(async () => {
    listener = await startHttpListener(
      (flags) => [...TOOLWIRE, "mcp", "listen", "--exec", execLine(WHOAMI), ...flags],
      { flags: ["--oauth-issuer", auth.issuer] },
    );
  });
  after(async () => {
    const result = await listener.stop();
    assert.equal(result.code, 143, result.stderr);
    assert.doesNotMatch(listener.stderr(), /\n\s+at \S/, listener.stderr());
  });

  for (
    const [what, scp] of [
      ["a scope holding a space is dropped, not split into several", [
        "notes:read",
        "notes:write notes:admin",
      ]],
      ["a scope holding a NUL is dropped, and the CLI still starts", ["notes:read", "notes:\u0000admin"]],
      ["a scope holding a quote, a backslash or a tab is dropped", ["notes:read", 'a"b', "a\\b", "a\tb"]],
    ] as const
  ) {
    it(`${what}: TOOLWIRE_CALLER_SCOPES holds the valid ones`, async () => {
      const [key] = await auth.keys();
      const token = await forged(key!, { iss: auth.issuer, aud: listener.url, sub: "odd", scp: [...scp] });
      const answer = await callTool(listener.url, token, "whoami", {});
      assert.equal(answer.status, 200, answer.text);
      const data = answer.json.result.structuredContent.data;
      assert.deepEqual(data.variables, { sub: "odd", client_id: null, scopes: "notes:read" }, answer.text);
    });
  }

  it("a subject holding a NUL is 401 invalid_token, naming why; nothing runs", async () => {
    const [key] = await auth.keys();
    const token = await forged(key!, {
      iss: auth.issuer,
      aud: listener.url,
      sub: "a\u0000b",
      scope: "notes:read",
    });
    const answer = await callTool(listener.url, token, "whoami", {});
    assert.equal(answer.status, 401, answer.text);
    assert.match(answer.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    assert.match(answer.headers.get("www-authenticate") ?? "", /control character/);
  });
});

describe("mcp listen refuses OAuth settings it cannot serve safely", () => {
  const notes = (...args: string[]) => run([...HTTP_SERVERS[0].argv(args)], { timeoutMs: 30_000 });
  for (
    const [what, args, code, message] of [
      [
        "a non-loopback endpoint without --oauth-issuer or --no-auth",
        ["--allow-remote", "http://0.0.0.0:0/mcp"],
        2,
        /needs authentication/,
      ],
      [
        "a non-loopback endpoint without --oauth-audience",
        ["--allow-remote", "--oauth-issuer", "https://auth.example.com", "http://0.0.0.0:0/mcp"],
        2,
        /--oauth-audience is needed/,
      ],
      [
        "an issuer over plain http off loopback",
        ["--oauth-issuer", "http://auth.example.com", "http://127.0.0.1:0/mcp"],
        2,
        /must be an https URL/,
      ],
      [
        "--oauth-jwks without an issuer",
        ["--oauth-jwks", "https://auth.example.com/jwks", "http://127.0.0.1:0/mcp"],
        2,
        /needs --oauth-issuer/,
      ],
      [
        "--oauth-issuer with --no-auth",
        ["--oauth-issuer", "http://127.0.0.1:9", "--no-auth", "http://127.0.0.1:0/mcp"],
        2,
        /contradict/,
      ],
      [
        "--oauth-issuer on a socket",
        ["--oauth-issuer", "http://127.0.0.1:9", "tcp:127.0.0.1:0"],
        2,
        /http:\/\/ addresses only/,
      ],
      [
        "an issuer nobody answers for",
        ["--oauth-issuer", "http://127.0.0.1:9", "http://127.0.0.1:0/mcp"],
        12,
        /cannot be fetched/,
      ],
    ] as const
  ) {
    it(`${what}: exit ${code}, nothing listens`, async () => {
      const result = await notes(...args);
      assert.equal(result.code, code, result.stderr);
      const envelope = onlyEnvelope(result.stdout);
      assert.match(envelope.error.message, message);
      assert.doesNotMatch(result.stderr, /serving/);
    });
  }
});
