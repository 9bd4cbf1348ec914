/**
 * The OAuth flags of `mcp listen` as the HTTP endpoint's authorizer (docs/auth.md): the issuer's URLs
 * checked, its key set found and fetched before the port is opened, and the audience — given, or the
 * listening URL once the port is known.
 * @module
 */
import { CommandError } from "../../contract/command_error.ts";
import type { CommandContext } from "../../contract/command_definition.ts";
import { ExitCode } from "../../../exit_code.ts";
import type { HttpAuthorizer } from "../../../protocol/mcp/http_auth.ts";
import { oauthIssuer } from "../../../protocol/mcp/oauth_resource_server.ts";
import { OAuthSetupError, secureUrl } from "../../../protocol/mcp/oauth_discovery.ts";
import { isLoopback, type ListenAddress } from "./listen_address.ts";
import type { McpListenFlags } from "./listen_flags.ts";

/**
 * The authorizer of an HTTP listener, or `undefined` without `--oauth-issuer`. A flag that breaks the rules
 * is an ARG_ERROR; an authorization server that cannot be reached, or whose metadata or key set cannot be
 * used, is UNAVAILABLE: the server does not start.
 *
 * @example
 * ```ts
 * import type { CommandContext } from "@toolwire/toolwire";
 * import type { McpListenFlags } from "./listen_flags.ts";
 *
 * declare const flags: CommandContext<McpListenFlags>["flags"];
 * const authorizer = await listenAuthorizer(flags, { kind: "http", host: "127.0.0.1", port: 0, path: "/mcp" }, console.error);
 * ```
 */
export async function listenAuthorizer(
  flags: CommandContext<McpListenFlags>["flags"],
  address: Extract<ListenAddress, { kind: "http" }>,
  log: (message: string) => void,
): Promise<((url: string) => HttpAuthorizer) | undefined> {
  const issuer = flags["oauth-issuer"];
  const audience = flags["oauth-audience"];
  if (issuer === undefined) {
    const alone = flags["oauth-jwks"] !== undefined
      ? "oauth-jwks"
      : audience !== undefined
      ? "oauth-audience"
      : undefined;
    if (alone !== undefined) {
      throw new CommandError(ExitCode.ARG_ERROR, `--${alone} needs --oauth-issuer, the authorization server`);
    }
    return undefined;
  }
  if (!flags.auth) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      "--oauth-issuer and --no-auth contradict each other: give one",
    );
  }
  if (audience === undefined && !isLoopback(address.host)) {
    throw new CommandError(
      ExitCode.ARG_ERROR,
      `--oauth-audience is needed: clients reach an endpoint on ${address.host} through another URL than the listening one`,
      { suggestion: "pass the https URL clients use, e.g. --oauth-audience https://mcp.example.com/mcp" },
    );
  }
  try {
    if (audience !== undefined) secureUrl(audience, "--oauth-audience");
    secureUrl(issuer, "--oauth-issuer");
    if (flags["oauth-jwks"] !== undefined) secureUrl(flags["oauth-jwks"], "--oauth-jwks");
  } catch (error) {
    throw new CommandError(ExitCode.ARG_ERROR, (error as Error).message);
  }
  const prepared = await oauthIssuer({
    issuer,
    ...(flags["oauth-jwks"] === undefined ? {} : { jwksUri: flags["oauth-jwks"] }),
    log,
  }).catch((error: unknown) => {
    if (!(error instanceof OAuthSetupError)) throw error;
    throw new CommandError(ExitCode.UNAVAILABLE, `--oauth-issuer: ${error.message}`, {
      suggestion: error.unavailable
        ? "check that the authorization server is up and reachable from here, then start again"
        : "check --oauth-issuer (exactly as the server names itself) or give --oauth-jwks",
    });
  });
  return (url) => prepared.resourceServer(audience ?? url);
}
