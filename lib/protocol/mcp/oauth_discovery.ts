/**
 * What a resource server needs to know of its authorization server before it checks a token, and the URL
 * rules around it (docs/auth.md): issuer, key set and resource are `https` URLs — plain `http` only on a
 * loopback host, for local development and tests — and the key set's URL comes from the issuer's metadata
 * (RFC 8414, or OpenID Connect Discovery), whose `issuer` must be the configured one exactly.
 * @module
 */

/**
 * A configuration that cannot be served: a URL that breaks the rules, an authorization server that cannot be
 * reached, or metadata that cannot be used. `unavailable` says the server could not be reached (try again);
 * otherwise the configuration or the server's metadata is wrong.
 *
 * @example
 * ```ts
 * try {
 *   secureUrl("http://auth.example.com", "--oauth-issuer");
 * } catch (error) {
 *   if (error instanceof OAuthSetupError) console.error(error.message);
 * }
 * ```
 */
export class OAuthSetupError extends Error {
  /** The authorization server could not be reached (rather than answering with something unusable). */
  readonly unavailable: boolean;

  constructor(message: string, unavailable = false) {
    super(message);
    this.name = "OAuthSetupError";
    this.unavailable = unavailable;
  }
}

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

/**
 * Whether a URL's host is this machine's loopback (`localhost`, `127.x.x.x`, `[::1]`).
 *
 * @example
 * ```ts
 * loopbackUrl(new URL("http://127.0.0.1:7010/mcp")); // true
 * ```
 */
export function loopbackUrl(url: URL): boolean {
  return LOOPBACK.test(url.hostname);
}

/**
 * A URL the resource server may rely on: absolute, `https` (or `http` on a loopback host), without
 * credentials or a fragment. `what` names it in the error, e.g. the flag that gave it.
 *
 * @example
 * ```ts
 * secureUrl("https://auth.example.com/realms/main", "--oauth-issuer").href;
 * secureUrl("http://127.0.0.1:7020", "--oauth-issuer"); // loopback: plain http is fine
 * ```
 */
export function secureUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OAuthSetupError(`${what} must be an absolute URL, got '${text}'`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopbackUrl(url))) {
    throw new OAuthSetupError(
      `${what} must be an https URL (plain http only on a loopback host), got '${text}'`,
    );
  }
  if (url.username !== "" || url.password !== "" || url.hash !== "" || text.includes("#")) {
    throw new OAuthSetupError(`${what} must have no credentials and no fragment, got '${text}'`);
  }
  return url;
}

/**
 * A resource's canonical URI (RFC 8707 §2, as MCP uses it): scheme and host in lower case, no default port,
 * no trailing slash on an empty path. Two spellings of one resource have the same canonical form.
 *
 * @example
 * ```ts
 * canonicalResource("HTTPS://MCP.Example.com:443/"); // "https://mcp.example.com"
 * canonicalResource("https://mcp.example.com/mcp"); // "https://mcp.example.com/mcp"
 * ```
 */
export function canonicalResource(text: string): string {
  const url = new URL(text);
  return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}${url.search}`;
}

/**
 * Whether a token's audience value names the resource whose canonical URI is `canonical`.
 *
 * @example
 * ```ts
 * sameResource("https://MCP.example.com/mcp", "https://mcp.example.com/mcp"); // true
 * sameResource("api://notes", "https://mcp.example.com/mcp"); // false
 * ```
 */
export function sameResource(audience: string, canonical: string): boolean {
  try {
    return canonicalResource(audience) === canonical;
  } catch {
    return false;
  }
}

/** How long one metadata request may take. */
const METADATA_TIMEOUT_MS = 10_000;

/**
 * Where an issuer's metadata may be, in the order a client tries them (RFC 8414 §3.1 and §5): the OAuth
 * well-known path, then OpenID Connect's, inserted before the issuer's path; then OpenID's appended to it.
 *
 * @example
 * ```ts
 * metadataCandidates(new URL("https://auth.example.com/tenant1"));
 * // [".../.well-known/oauth-authorization-server/tenant1", ".../.well-known/openid-configuration/tenant1",
 * //  ".../tenant1/.well-known/openid-configuration"]
 * ```
 */
export function metadataCandidates(issuer: URL): string[] {
  const path = issuer.pathname.replace(/\/$/, "");
  const candidates = [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}/.well-known/openid-configuration${path}`,
  ];
  if (path !== "") candidates.push(`${issuer.origin}${path}/.well-known/openid-configuration`);
  return candidates;
}

/**
 * The `jwks_uri` of an issuer's metadata, checked: the first well-known URL that answers 200 with JSON is the
 * metadata; its `issuer` must be `issuer` exactly, and its `jwks_uri` must follow {@linkcode secureUrl}.
 * Throws an {@linkcode OAuthSetupError} naming what failed.
 *
 * @example
 * ```ts
 * const jwksUri = await discoverJwksUri("https://auth.example.com/realms/main");
 * ```
 */
export async function discoverJwksUri(issuer: string): Promise<URL> {
  const candidates = metadataCandidates(secureUrl(issuer, "the issuer"));
  for (const candidate of candidates) {
    let response: Response;
    try {
      response = await fetch(candidate, {
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
      });
    } catch (error) {
      throw new OAuthSetupError(
        `the authorization server's metadata cannot be fetched from ${candidate}: ${errorText(error)}`,
        true,
      );
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    let metadata: unknown;
    try {
      metadata = await response.json();
    } catch {
      throw new OAuthSetupError(`${candidate} did not answer with JSON metadata`);
    }
    const found = metadata as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (found?.issuer !== issuer) {
      throw new OAuthSetupError(
        `the metadata at ${candidate} names the issuer ${
          JSON.stringify(found?.issuer)
        }, not '${issuer}': it may not be used (pass the issuer exactly as the server names itself)`,
      );
    }
    if (typeof found.jwks_uri !== "string") {
      throw new OAuthSetupError(
        `the metadata at ${candidate} has no jwks_uri: give the key set URL instead (jwksUri; --oauth-jwks on mcp listen)`,
      );
    }
    return secureUrl(found.jwks_uri, `the jwks_uri of ${candidate}`);
  }
  throw new OAuthSetupError(
    `no authorization server metadata at ${
      candidates.join(", ")
    }: check the issuer, or give the key set URL instead (jwksUri; --oauth-jwks on mcp listen)`,
  );
}

/**
 * The message of a failed fetch with its cause (where `fetch` puts the reason: refused, timed out, TLS).
 *
 * @example
 * ```ts
 * errorText(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") }));
 * // "fetch failed (connect ECONNREFUSED 127.0.0.1:9)"
 * ```
 */
export function errorText(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause instanceof Error ? `${message} (${cause.message})` : message;
}
