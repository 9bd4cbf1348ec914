/**
 * An OAuth 2.1 resource server for an MCP endpoint (docs/auth.md): it accepts JWT access tokens (RFC 9068)
 * issued by one authorization server for this endpoint, and nothing else. A token is valid when its signature
 * verifies against the issuer's key set (asymmetric algorithms only: `alg: none` and HMAC are refused before
 * any key is looked at), `iss` is the issuer exactly, `aud` names this endpoint's canonical URI, `exp` (which
 * it must have) and `nbf` hold within a small clock skew, and its `typ`, when it has one, is that of a JWT or
 * an access token. The key set is fetched once at the start, kept for ten minutes, and fetched again for a
 * key id it does not hold — at most once per cooldown, so tokens naming made-up keys cannot make the server
 * hammer its authorization server. Signatures are checked by `jose`, loaded here on first use: a tool that
 * serves no authenticated endpoint never loads it. A token is never logged, kept or passed on.
 * @module
 */
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import type { Authentication, AuthRefusal, HttpAuthorizer } from "./http_auth.ts";
import type { McpCaller } from "./caller.ts";
import {
  canonicalResource,
  discoverJwksUri,
  errorText,
  OAuthSetupError,
  sameResource,
  secureUrl,
} from "./oauth_discovery.ts";

/**
 * Where the tokens come from and what they must be for; what `oauthResourceServer` takes.
 *
 * @example
 * ```ts
 * const options: OAuthOptions = {
 *   issuer: "https://auth.example.com/realms/main",
 *   resource: "https://mcp.example.com/mcp",
 * };
 * ```
 */
export interface OAuthOptions {
  /** The authorization server's issuer identifier, exactly as it names itself (its tokens' `iss`). */
  issuer: string;
  /** The key set's URL. Absent: the `jwks_uri` of the issuer's metadata (RFC 8414 or OpenID Connect). */
  jwksUri?: string;
  /** The endpoint's canonical URI, as clients reach it: the audience a token must name (RFC 8707). */
  resource: string;
  /** Seconds a token's `exp` and `nbf` may be off, for clocks that differ. @default 30 */
  clockToleranceSeconds?: number;
  /** After a key-set fetch, a token signed with an unknown key fetches it again no sooner than this. @default 5000 */
  jwksCooldownMs?: number;
  /** A diagnostic line (stderr): the key set could not be fetched. */
  log?(message: string): void;
}

/**
 * The signature algorithms accepted: asymmetric ones only. An HMAC key would be a secret shared with every
 * resource server, and a public key misread as an HMAC secret is a classic forgery.
 */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** The `typ` values of a token that may be an access token: RFC 9068's, and the plain JWT many servers send. */
const ACCESS_TOKEN_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt", "application/jwt"]);

/** How long a fetched key set is used before it is fetched again. */
const KEY_SET_MAX_AGE_MS = 10 * 60_000;

/** How long one key-set fetch may take. */
const KEY_SET_TIMEOUT_MS = 5_000;

/** A bearer token's characters (RFC 6750 §2.1, b64token). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Jose = typeof import("jose");

/**
 * A resource server for `options.resource`, ready: its key set's URL found (from the issuer's metadata unless
 * given) and the key set fetched once. Rejects with an {@linkcode OAuthSetupError} when a URL breaks the
 * rules (https only, but on loopback), or the issuer's metadata or key set cannot be fetched or used.
 *
 * @example
 * ```ts
 * import { McpHttpEndpoint, type ToolCatalog } from "@toolwire/toolwire/mcp";
 *
 * declare const catalog: ToolCatalog;
 * const authorizer = await oauthResourceServer({
 *   issuer: "https://auth.example.com/realms/main",
 *   resource: "https://mcp.example.com/mcp",
 * });
 * const endpoint = new McpHttpEndpoint({ serverInfo: { name: "notes", version: "1.0.0" }, catalog, authorizer });
 * ```
 */
export async function oauthResourceServer(options: OAuthOptions): Promise<HttpAuthorizer> {
  return (await oauthIssuer(options)).resourceServer(options.resource);
}

/**
 * An issuer's tokens, ready to be checked: what {@linkcode oauthIssuer} prepares before the endpoint's URL is
 * known (a listener on port 0 learns its port only once it listens).
 *
 * @example
 * ```ts
 * declare const issuer: OAuthIssuer;
 * const authorizer = issuer.resourceServer("http://127.0.0.1:41234/mcp");
 * ```
 */
export interface OAuthIssuer {
  /** The resource server of one endpoint: tokens must name `resource` as their audience. */
  resourceServer(resource: string): HttpAuthorizer;
}

/**
 * Checks the issuer's URLs, finds its key set and fetches it once; what {@linkcode oauthResourceServer} does
 * before it knows the resource. The resource, when given, is checked here too, so that a bad one fails first.
 *
 * @example
 * ```ts
 * const issuer = await oauthIssuer({ issuer: "http://127.0.0.1:7020" });
 * const authorizer = issuer.resourceServer("http://127.0.0.1:7010/mcp");
 * ```
 */
export async function oauthIssuer(
  options: Omit<OAuthOptions, "resource"> & { resource?: string },
): Promise<OAuthIssuer> {
  secureUrl(options.issuer, "the issuer");
  if (options.resource !== undefined) secureUrl(options.resource, "the resource");
  const jwksUri = options.jwksUri === undefined
    ? await discoverJwksUri(options.issuer)
    : secureUrl(options.jwksUri, "the key set URL");
  const jose: Jose = await import("jose");
  const remote = jose.createRemoteJWKSet(jwksUri, {
    cooldownDuration: options.jwksCooldownMs ?? 5_000,
    cacheMaxAge: KEY_SET_MAX_AGE_MS,
    timeoutDuration: KEY_SET_TIMEOUT_MS,
  });
  try {
    await remote.reload();
  } catch (error) {
    throw new OAuthSetupError(
      `the key set cannot be fetched from ${jwksUri.href}: ${errorText(error)}`,
      !(error instanceof jose.errors.JWKSInvalid),
    );
  }
  const keys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      // A key it does not hold is the token's fault; a key set that cannot be fetched is not.
      if (error instanceof jose.errors.JOSEError && KEY_ERRORS.has(error.code)) throw error;
      throw new KeySetUnavailable(`the key set cannot be fetched from ${jwksUri.href}: ${errorText(error)}`);
    }
  };
  return {
    resourceServer: (resource) =>
      new OAuthResourceServer(jose, keys, options, secureUrl(resource, "the resource").href),
  };
}

/** The lookup failures that say something about the token rather than the key set's server. */
const KEY_ERRORS = new Set([
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
  "ERR_JOSE_NOT_SUPPORTED",
]);

class KeySetUnavailable extends Error {}

/** The resource server of one endpoint. */
class OAuthResourceServer implements HttpAuthorizer {
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly #jose: Jose;
  readonly #keys: JWTVerifyGetKey;
  readonly #issuer: string;
  readonly #clockTolerance: number;
  readonly #log: ((message: string) => void) | undefined;

  constructor(jose: Jose, keys: JWTVerifyGetKey, options: Omit<OAuthOptions, "resource">, resource: string) {
    this.#jose = jose;
    this.#keys = keys;
    this.#issuer = options.issuer;
    this.#clockTolerance = options.clockToleranceSeconds ?? 30;
    this.#log = options.log;
    this.resource = canonicalResource(resource);
    this.authorizationServers = [options.issuer];
  }

  async authenticate(authorization: string | null): Promise<Authentication> {
    if (authorization === null || !/^bearer(\s|$)/i.test(authorization)) {
      return { refused: "no_token", description: "the request carries no bearer token" };
    }
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) return invalid("the Authorization header does not hold a bearer token");
    let verified: { payload: JWTPayload; protectedHeader: { typ?: string } };
    try {
      verified = await this.#jose.jwtVerify(token, this.#keys, {
        issuer: this.#issuer,
        algorithms: ALGORITHMS,
        clockTolerance: this.#clockTolerance,
        requiredClaims: ["exp"],
      });
    } catch (error) {
      return this.#refusal(error);
    }
    const { payload, protectedHeader } = verified;
    const typ = protectedHeader.typ;
    if (typ !== undefined && !ACCESS_TOKEN_TYPES.has(typ.toLowerCase())) {
      return invalid(`the token is of type '${typ}', not an access token`);
    }
    const audiences = typeof payload.aud === "string" ? [payload.aud] : payload.aud ?? [];
    if (!audiences.some((audience) => sameResource(audience, this.resource))) {
      return invalid(`the token is not for this server: its audience must be ${this.resource}`);
    }
    const caller = callerOf(payload);
    if (caller === undefined) return invalid("the token names no subject (sub) nor client (client_id)");
    // A bridged CLI gets these in its environment, where a NUL cannot be written and a line break misleads.
    if (CONTROL.test(caller.subject) || CONTROL.test(caller.clientId ?? "")) {
      return invalid("the token's subject or client holds a control character");
    }
    return { caller };
  }

  #refusal(error: unknown): AuthRefusal {
    if (error instanceof KeySetUnavailable) {
      this.#log?.(`mcp auth: ${error.message}`);
      return { refused: "unavailable", description: "the authorization server's keys cannot be fetched now" };
    }
    const code = (error as { code?: unknown }).code;
    switch (code) {
      case "ERR_JWT_EXPIRED":
        return invalid("the token expired");
      case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
        const claim = (error as { claim?: unknown }).claim;
        if (claim === "iss") return invalid(`the token was not issued by ${this.#issuer}`);
        if (claim === "nbf") return invalid("the token is not valid yet");
        return invalid(`the token's ${String(claim)} claim is missing or not valid`);
      }
      case "ERR_JOSE_ALG_NOT_ALLOWED":
        return invalid(`the token's algorithm is not accepted: one of ${ALGORITHMS.join(", ")}`);
      case "ERR_JWKS_NO_MATCHING_KEY":
        return invalid("the token is signed with a key the authorization server does not publish");
      case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
        return invalid("the token's signature does not verify");
      default:
        return invalid("the token is not a valid JWT access token");
    }
  }
}

function invalid(description: string): AuthRefusal {
  return { refused: "invalid_token", description };
}

/** A control character (C0 or DEL). */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A scope as OAuth defines one (RFC 6749 `scope-token`): printable ASCII but for space, `"` and `\`. Anything
 * else is dropped when the token is read rather than refused with it: no command can require such a scope, so
 * dropping it takes nothing from the caller, while a space in it would make it several scopes in
 * `TOOLWIRE_CALLER_SCOPES`, and a NUL would keep a bridged CLI from starting at all.
 */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The caller a verified token names: `sub` (else `client_id`), `client_id` (else `azp`), `scope` (else `scp`),
 * keeping only the scopes that are scope-tokens.
 */
function callerOf(payload: JWTPayload): McpCaller | undefined {
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const clientId = text(payload.client_id) ?? text(payload.azp);
  const subject = text(payload.sub) ?? clientId;
  if (subject === undefined) return undefined;
  const granted = typeof payload.scope === "string"
    ? payload.scope.split(" ")
    : typeof payload.scp === "string"
    ? payload.scp.split(" ")
    : Array.isArray(payload.scp)
    ? payload.scp.filter((scope): scope is string => typeof scope === "string")
    : [];
  return {
    subject,
    ...(clientId === undefined ? {} : { clientId }),
    scopes: [...new Set(granted.filter((scope) => SCOPE_TOKEN.test(scope)))],
    claims: Object.freeze({ ...payload }),
  };
}
