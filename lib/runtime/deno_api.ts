/**
 * The slice of the `Deno` namespace the runtime adapter uses, typed by hand so that `tsc` (which has no Deno
 * types) and `deno check` both accept the adapter.
 */
export interface DenoApi {
  args: string[];
  pid: number;
  env: { get(name: string): string | undefined; toObject(): Record<string, string> };
  execPath(): string;
  exit(code: number): never;
  cwd(): string;
  stdin: {
    readable: ReadableStream<Uint8Array>;
    read(buffer: Uint8Array): Promise<number | null>;
    isTerminal(): boolean;
  };
  stdout: DenoWriter;
  stderr: DenoWriter;
  addSignalListener(signal: string, handler: () => void): void;
  removeSignalListener(signal: string, handler: () => void): void;
  build: { os: string };
  /** The runtime's own version, `version.deno` (`2.9.6`). */
  version?: { deno: string };
  /** Absent on Deno versions without synchronous queries. */
  permissions?: {
    querySync?(
      descriptor: { name: "env"; variable: string } | { name: "read"; path: string },
    ): { state: "granted" | "denied" | "prompt" };
  };
}

/** A Deno stdio writer. */
export interface DenoWriter {
  write(bytes: Uint8Array): Promise<number>;
  writeSync(bytes: Uint8Array): number;
  isTerminal(): boolean;
}

/** The `Deno` global when running on Deno, else `undefined`. Detecting `process` would lie: Deno has it too. */
export const deno: DenoApi | undefined = (globalThis as { Deno?: DenoApi }).Deno;
