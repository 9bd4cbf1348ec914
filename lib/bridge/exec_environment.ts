import { getEnv } from "../runtime/mod.ts";
import { allEnv, envNamesIgnoreCase } from "../runtime/environment.ts";
import type { McpCaller } from "../protocol/mcp/caller.ts";
import { CommandError } from "../command/contract/command_error.ts";
import { ExitCode } from "../exit_code.ts";

/**
 * What a bridged CLI gets with `--env-allow` besides the named variables: what any program needs to find
 * other programs, its home and user, its locale and time zone, and a temporary directory — on POSIX and on
 * Windows — plus every `LC_*` locale variable. None of them is a credential.
 */
export const BASIC_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "SYSTEMROOT",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "USERPROFILE",
  // Windows keeps the user's and the machine's places and names in these: without them a CLI cannot find its
  // own configuration (%APPDATA%), its caches (%LOCALAPPDATA%) or programs installed for everyone.
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
  "SystemDrive",
  "HOMEDRIVE",
  "HOMEPATH",
  "USERNAME",
];

/** A portable environment variable name: what a POSIX shell can name, and nothing that could split a list. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The names `--env-allow` was given: each value is one name or a comma-separated list of them, and an empty
 * value names none (`--env-allow ''`: the basics only). Throws an ARG_ERROR {@linkcode CommandError} naming
 * the first item that is not a variable name.
 *
 * @example
 * ```ts
 * envAllowList(["API_URL,API_TOKEN", "DEBUG"]); // ["API_URL", "API_TOKEN", "DEBUG"]
 * envAllowList([""]); // []
 * ```
 */
export function envAllowList(values: readonly string[]): string[] {
  const names = values.flatMap((value) => (value === "" ? [] : value.split(",")));
  for (const name of names) {
    if (!ENV_NAME.test(name)) {
      throw new CommandError(
        ExitCode.ARG_ERROR,
        `--env-allow: '${name}' is not an environment variable name`,
        {
          suggestion:
            "name variables as letters, digits and underscores, not starting with a digit: --env-allow API_URL,API_TOKEN",
        },
      );
    }
  }
  return [...new Set(names)];
}

/**
 * The environment of a bridged CLI: with no allow list, `undefined` — the server's whole environment is
 * inherited; with one, only {@linkcode BASIC_ENV_NAMES}, `LC_*` and the allowed names, those that are set.
 * Names compare as the platform compares them (ignoring case on Windows).
 *
 * @example
 * ```ts
 * execEnvironment(["API_URL"], { PATH: "/usr/bin", API_URL: "https://example.org", SECRET: "x" });
 * // { PATH: "/usr/bin", API_URL: "https://example.org" }
 * ```
 */
export function execEnvironment(
  allowed: readonly string[] | undefined,
  from: Record<string, string> = allEnv(),
): Record<string, string> | undefined {
  if (allowed === undefined) return undefined;
  const fold = envNamesIgnoreCase() ? (name: string) => name.toUpperCase() : (name: string) => name;
  const kept = new Set([...BASIC_ENV_NAMES, ...allowed].map(fold));
  // fromEntries defines each name as an own property: a variable called `__proto__` stays a variable.
  return Object.fromEntries(
    Object.entries(from).filter(([name]) => kept.has(fold(name)) || fold(name).startsWith("LC_")),
  );
}

/**
 * The variables that tell a bridged CLI who called it over authenticated HTTP
 * (docs/auth.md#who-called-the-handlers-context-a-bridged-clis-environment): the token's subject, its client
 * and the granted scopes, space-separated. Never the token.
 */
export const CALLER_ENV = {
  subject: "TOOLWIRE_CALLER_SUB",
  clientId: "TOOLWIRE_CALLER_CLIENT_ID",
  scopes: "TOOLWIRE_CALLER_SCOPES",
} as const;

/**
 * The environment of one bridged call: `base` (`undefined`: the server's) with the caller's variables set
 * when a caller is known, and removed otherwise — a value the server itself was started with must never pass
 * for an authenticated caller. `undefined` when that changes nothing, so the child inherits the server's.
 *
 * @example
 * ```ts
 * callEnvironment({ PATH: "/usr/bin" }, { subject: "ci", clientId: "ci", scopes: ["notes:read"], claims: {} });
 * // { PATH: "/usr/bin", TOOLWIRE_CALLER_SUB: "ci", TOOLWIRE_CALLER_CLIENT_ID: "ci", TOOLWIRE_CALLER_SCOPES: "notes:read" }
 * ```
 */
export function callEnvironment(
  base: Record<string, string> | undefined,
  caller: McpCaller | undefined,
): Record<string, string> | undefined {
  const names = Object.values(CALLER_ENV) as string[];
  const fold = envNamesIgnoreCase() ? (name: string) => name.toUpperCase() : (name: string) => name;
  if (caller === undefined && base === undefined && names.every((name) => getEnv(name) === undefined)) {
    return undefined;
  }
  const env = Object.fromEntries(
    Object.entries(base ?? allEnv()).filter(([name]) => !names.includes(fold(name))),
  );
  if (caller === undefined) return env;
  env[CALLER_ENV.subject] = caller.subject;
  if (caller.clientId !== undefined) env[CALLER_ENV.clientId] = caller.clientId;
  env[CALLER_ENV.scopes] = caller.scopes.join(" ");
  return env;
}
