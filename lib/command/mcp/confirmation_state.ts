import { canonicalJson, sha256Tag } from "../manifest.ts";

/** How long a confirmation request stays valid. */
export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/** Longest `requestState` accepted; anything longer is refused before any crypto runs. */
const MAX_STATE_LENGTH = 2048;

/** The HMAC key type, named through the Web Crypto API itself (no DOM or Node type library needed). */
type HmacKey = Parameters<typeof crypto.subtle.sign>[1];

interface StatePayload {
  v: 1;
  tool: string;
  args: string;
  exp: number;
}

/** Why a `requestState` was refused. */
export type StateProblem = "malformed" | "tampered" | "wrong_call" | "expired";

/**
 * Issues and checks the `requestState` of a destructive call's confirmation round trip (mcp-stdio-wire.md
 * §5). The state travels through the client, so it is attacker-controlled: it is signed with HMAC-SHA256
 * under a per-process random key and bound to the tool, a digest of the arguments and an expiry. A state
 * that was altered, belongs to another call, or is too old is refused — and then nothing runs.
 *
 * @example
 * ```ts
 * const states = await ConfirmationStates.create();
 * const state = await states.issue("notes_remove", { id: 3 });
 * await states.check(state, "notes_remove", { id: 3 }); // undefined: valid
 * ```
 */
export class ConfirmationStates {
  #key: Promise<HmacKey> | undefined;
  readonly #now: () => number;

  private constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * A signer with a fresh random key; `now` is injectable for expiry tests. The key is made on first use:
   * most servers never ask for a confirmation, and Web Crypto's first use costs startup time.
   */
  static create(now: () => number = Date.now): Promise<ConfirmationStates> {
    return Promise.resolve(new ConfirmationStates(now));
  }

  #signingKey(): Promise<HmacKey> {
    this.#key ??= crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign", "verify"])
      .then((key) => key as HmacKey);
    return this.#key;
  }

  /** A signed state for one call of one tool with these arguments. */
  async issue(tool: string, args: Record<string, unknown>): Promise<string> {
    const payload: StatePayload = { v: 1, tool, args: await argsDigest(args), exp: this.#now() + CONFIRMATION_TTL_MS };
    const body = toBase64Url(new TextEncoder().encode(JSON.stringify(payload)));
    const signature = new Uint8Array(await crypto.subtle.sign("HMAC", await this.#signingKey(), new TextEncoder().encode(body)));
    return `${body}.${toBase64Url(signature)}`;
  }

  /** `undefined` when the state is valid for this call, else what is wrong with it. */
  async check(state: unknown, tool: string, args: Record<string, unknown>): Promise<StateProblem | undefined> {
    if (typeof state !== "string" || state.length > MAX_STATE_LENGTH) return "malformed";
    const [body, signature, extra] = state.split(".");
    if (body === undefined || signature === undefined || extra !== undefined) return "malformed";
    const signatureBytes = fromBase64Url(signature);
    if (signatureBytes === undefined) return "malformed";
    const valid = await crypto.subtle.verify("HMAC", await this.#signingKey(), signatureBytes, new TextEncoder().encode(body));
    if (!valid) return "tampered";
    const payloadBytes = fromBase64Url(body);
    if (payloadBytes === undefined) return "malformed";
    const payload = JSON.parse(new TextDecoder().decode(payloadBytes)) as StatePayload;
    if (payload.tool !== tool || payload.args !== await argsDigest(args)) return "wrong_call";
    if (!(this.#now() <= payload.exp)) return "expired";
    return undefined;
  }
}

/** The digest binding a state to arguments; the confirmation's own arguments are left out. */
function argsDigest(args: Record<string, unknown>): Promise<string> {
  const bound: Record<string, unknown> = {};
  for (const key of Object.keys(args)) if (key !== "confirm_destructive") bound[key] = args[key];
  return sha256Tag(canonicalJson(bound));
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}
