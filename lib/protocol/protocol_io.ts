/**
 * The contract between a protocol command's `serve` handler and the runner that hands it stdin and stdout
 * (REQ-C-032, phase 2). It lives below the command layer so protocol lifecycles (MCP, LSP, DAP) can speak it.
 * @module
 */
import type { ByteChannel } from "../runtime/byte_channel.ts";

/** The bytes a protocol loop speaks over, and when to stop. */
export interface ProtocolIO {
  /**
   * The client's messages in, the protocol's messages out (the process's stdin and stdout for a command);
   * nothing but protocol messages may be written to it. Read it with `readChunks`, or pipe
   * `sourceReadable(channel)` through a framer.
   */
  channel: ByteChannel;
  /** Fires when the process is asked to end (a signal). */
  signal: AbortSignal;
  /** A diagnostic line on stderr. */
  log(message: string): void;
}

/** How a protocol session ended when it was not a clean shutdown. */
export interface ProtocolFailure {
  /** A code from the command's declared table; never 2 once serving began. */
  exitCode: number;
  /** The envelope's `error.code`. */
  code: string;
  /** What happened. */
  message: string;
}

/** Phase 2 of a protocol command: serves until EOF or the protocol's shutdown; resolving `undefined` is exit 0. */
export type ProtocolLoop = (io: ProtocolIO) => Promise<void | ProtocolFailure>;
