import { canonicalJson, sha256Tag } from "../../json.ts";
import type { StateStore } from "../contract/state_store.ts";

/** How long a confirmation request stays valid. */
export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/**
 * Most confirmations a server keeps open at once. Issuing one more forgets the oldest open one, which is then
 * refused like a used one: forgetting can only refuse, never let a state run twice.
 */
export const MAX_OPEN_CONFIRMATIONS = 1000;

/** Longest `requestState` accepted; anything longer is refused before any crypto runs. */
const MAX_STATE_LENGTH = 2048;

/** The HMAC key type, named through the Web Crypto API itself (no DOM or Node type library needed). */
type HmacKey = Parameters<typeof crypto.subtle.sign>[1];

interface StatePayload {
  v: 1;
  /** A random nonce: the state's identity in the set of open confirmations. */
  n: string;
  tool: string;
  args: string;
  exp: number;
}

/** Shortest confirmation secret accepted, in bytes: an HMAC-SHA256 key of full strength. */
export const MIN_CONFIRMATION_SECRET_BYTES = 32;

/**
 * Options of {@linkcode ConfirmationStates}.
 *
 * @example
 * ```ts
 * import type { StateStore } from "../contract/state_store.ts";
 *
 * declare const shared: StateStore;
 * const options: ConfirmationOptions = { secret: new TextEncoder().encode("…32 bytes or more…"), nonces: shared };
 * ```
 */
export interface ConfirmationOptions {
  /** The clock, injectable for expiry tests. @default Date.now */
  now?: () => number;
  /**
   * The HMAC key, shared by every instance of a fleet so that a state minted by one is accepted by another
   * (at least {@linkcode MIN_CONFIRMATION_SECRET_BYTES} bytes). @default a random key of this process
   */
  secret?: Uint8Array;
  /**
   * Where redeemed nonces are remembered, shared by every instance that shares the key: a state then runs
   * once in the whole fleet. @default this object (enough while the key is this process's own)
   */
  nonces?: StateStore;
}

/** Why a `requestState` was refused. */
export type StateProblem = "malformed" | "tampered" | "wrong_call" | "expired" | "spent";

/**
 * Issues and redeems the `requestState` of a destructive call's confirmation round trip. The state travels
 * through the client, so it is attacker-controlled: it is signed with HMAC-SHA256 under a per-process random
 * key and bound to the tool, a digest of the arguments, an expiry and a random nonce. Each state confirms ONE
 * execution: redeeming it forgets its nonce, so a state sent again — later, or in a concurrent call — is
 * refused. A state that was altered, belongs to another call, is too old or was already redeemed is refused
 * — and then nothing runs.
 *
 * By default the key is made in this process and the open nonces live in this object: no other process can
 * verify a state (it is refused as tampered), so remembering nonces per process is enough to make a state
 * single-use. They are dropped when they expire, and at most {@linkcode MAX_OPEN_CONFIRMATIONS} are kept.
 * A fleet gives every instance the same `secret` and one shared `nonces` store: a state is then accepted
 * by any instance, once, redeemed with one atomic {@linkcode StateStore.reserve} of its nonce.
 *
 * @example
 * ```ts
 * const states = new ConfirmationStates();
 * const state = await states.issue("notes_remove", { id: 3 });
 * await states.redeem(state, "notes_remove", { id: 3 }); // undefined: valid, and now used up
 * await states.redeem(state, "notes_remove", { id: 3 }); // "spent"
 * ```
 */
export class ConfirmationStates {
  #key: Promise<HmacKey> | undefined;
  readonly #now: () => number;
  readonly #secret: Uint8Array<ArrayBuffer> | undefined;
  readonly #nonces: StateStore | undefined;
  /**
   * Nonce → expiry of every issued state not yet redeemed, in issue order — and so in expiry order, unless
   * the clock stepped back, which only delays dropping a few: the cap holds regardless.
   */
  readonly #open = new Map<string, number>();

  /**
   * A signer with a fresh random key, or the options' secret; a clock alone is the options' `now`. The key
   * is made on first use: most servers never ask for a confirmation, and Web Crypto's first use costs
   * startup time.
   */
  constructor(options: ConfirmationOptions | (() => number) = {}) {
    const { now = Date.now, secret, nonces } = typeof options === "function" ? { now: options } : options;
    if (secret !== undefined && secret.length < MIN_CONFIRMATION_SECRET_BYTES) {
      throw new RangeError(
        `a confirmation secret needs at least ${MIN_CONFIRMATION_SECRET_BYTES} bytes, got ${secret.length}`,
      );
    }
    this.#now = now;
    this.#secret = secret === undefined ? undefined : new Uint8Array(secret);
    this.#nonces = nonces;
  }

  /** How many issued states are still open: not redeemed, not expired, not forgotten. */
  get open(): number {
    this.#dropExpired();
    return this.#open.size;
  }

  #signingKey(): Promise<HmacKey> {
    if (this.#secret !== undefined) {
      this.#key ??= crypto.subtle.importKey("raw", this.#secret, { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify",
      ]).then((key) => key as HmacKey);
    }
    this.#key ??= crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 256 }, false, [
      "sign",
      "verify",
    ])
      .then((key) => key as HmacKey);
    return this.#key;
  }

  /** A signed state for one call of one tool with these arguments, good for one execution. */
  async issue(tool: string, args: Record<string, unknown>): Promise<string> {
    const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
    const payload: StatePayload = {
      v: 1,
      n: nonce,
      tool,
      args: await argsDigest(args),
      exp: this.#now() + CONFIRMATION_TTL_MS,
    };
    const body = toBase64Url(new TextEncoder().encode(JSON.stringify(payload)));
    const signature = new Uint8Array(
      await crypto.subtle.sign("HMAC", await this.#signingKey(), new TextEncoder().encode(body)),
    );
    if (this.#nonces === undefined) {
      this.#dropExpired();
      while (this.#open.size >= MAX_OPEN_CONFIRMATIONS) this.#open.delete(this.#open.keys().next().value!);
      this.#open.set(nonce, payload.exp);
    }
    return `${body}.${toBase64Url(signature)}`;
  }

  /**
   * `undefined` when the state is valid for this call — it is then used up — else what is wrong with it. A
   * state for another call stays open for its own. The used-up check and the forgetting happen together,
   * after the last `await` (with shared nonces: in one atomic reservation of the nonce): of two concurrent
   * calls with one state, exactly one gets `undefined`. Rejects with the store's
   * `StateStoreUnavailableError` when shared nonces cannot be reached: the state is then not used up.
   */
  async redeem(
    state: unknown,
    tool: string,
    args: Record<string, unknown>,
  ): Promise<StateProblem | undefined> {
    if (typeof state !== "string" || state.length > MAX_STATE_LENGTH) return "malformed";
    const [body, signature, extra] = state.split(".");
    if (body === undefined || signature === undefined || extra !== undefined) return "malformed";
    const signatureBytes = fromBase64Url(signature);
    if (signatureBytes === undefined) return "malformed";
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#signingKey(),
      signatureBytes,
      new TextEncoder().encode(body),
    );
    if (!valid) return "tampered";
    const payloadBytes = fromBase64Url(body);
    if (payloadBytes === undefined) return "malformed";
    const payload = JSON.parse(new TextDecoder().decode(payloadBytes)) as StatePayload;
    if (payload.tool !== tool || payload.args !== await argsDigest(args)) return "wrong_call";
    if (this.#nonces !== undefined) {
      const left = payload.exp - this.#now();
      if (!(left >= 0)) return "expired";
      // Kept past the expiry by a lifetime more, for instances whose clocks run a little behind.
      const fresh = await this.#nonces.reserve(`confirmation:${payload.n}`, "1", left + CONFIRMATION_TTL_MS);
      return fresh ? undefined : "spent";
    }
    // From here to the end, no `await`: checking the nonce and forgetting it are one step.
    if (!(this.#now() <= payload.exp)) {
      this.#open.delete(payload.n);
      return "expired";
    }
    return this.#open.delete(payload.n) ? undefined : "spent";
  }

  /** Forgets expired nonces: they are in expiry order, so only the oldest few need looking at. */
  #dropExpired(): void {
    const now = this.#now();
    for (const [nonce, expiry] of this.#open) {
      if (now <= expiry) break;
      this.#open.delete(nonce);
    }
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
