/**
 * What a protocol probe is: a client of one protocol the checker speaks, asking every server the same
 * questions. The probes (mcp_probe.ts, lsp_probe.ts, dap_probe.ts) implement it; protocol_probe.ts picks one.
 */

/** One probe's verdict and what was seen, without the command's name (the report adds it). */
export interface Seen {
  ok: boolean;
  note: string;
}

/** A client of one protocol over a {@linkcode ServerSession}. */
export interface ProtocolProbe {
  /** Opens the session the way a client does; ok when the first response answers the first request. */
  open(): Promise<Seen>;
  /** Sends a message that cannot be read, then a valid request: ok when both are answered. */
  malformed(): Promise<Seen>;
  /** Sends a valid request; whether it was answered in time. */
  ping(): Promise<boolean>;
  /** The first thing on stdout that was not a message of the protocol, if any. */
  readonly impurity: string | undefined;
  /** True once stdout can no longer be split into messages: nothing more can be read from it. */
  readonly lost: boolean;
}

/** A client of a Content-Length framed protocol, which can also break the framing itself. */
export interface FramedProbe extends ProtocolProbe {
  /** Sends a header block without a usable Content-Length; ok when it is answered inside the protocol. */
  badFraming(): Promise<Seen>;
}
