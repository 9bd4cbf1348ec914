/**
 * The wire tests' session over the in-memory transport: the `lab` fixture's commands served in this process
 * by `McpMemoryTransport`, driven with the same calls as a spawned server's `WireSession` — so one exchange
 * checks the pipeline with and without the line transport in front of it.
 */
import { commandCatalog } from "../../lib/command/mcp/command_catalog.ts";
import { McpMemoryTransport } from "../../lib/protocol/mcp/mod.ts";
import { tool } from "../fixtures/lab_tool.ts";
import { WireReader } from "./mcp_wire.ts";
import type { RunResult } from "./run.ts";

/** A session with the `lab` tool in memory. */
export class MemoryWire extends WireReader {
  readonly #server: McpMemoryTransport;
  readonly #stdout: string[] = [];
  readonly #stderr: string[] = [];
  #sent: Promise<void> = Promise.resolve();

  constructor() {
    super();
    this.#server = new McpMemoryTransport({
      serverInfo: { name: tool.name, version: tool.version },
      catalog: commandCatalog(tool, { commands: () => tool.registry.servableEntries() }, { readOnly: false }),
      onMessage: (message) => {
        const text = JSON.stringify(message);
        this.#stdout.push(`${text}\n`);
        this.lines.push(text);
      },
      log: (line) => this.#stderr.push(line),
    });
  }

  /** Every message the server sent, one JSON text a line, as a line transport writes them. */
  get stdoutText(): string {
    return this.#stdout.join("");
  }

  /** Sends one message: an object or an array as it is, a string or bytes as the JSON text they hold. */
  override send(message: Record<string, unknown> | unknown[] | string | Uint8Array): void {
    const value = message instanceof Uint8Array
      ? JSON.parse(new TextDecoder().decode(message))
      : typeof message === "string"
      ? JSON.parse(message)
      : message;
    this.#sent = this.#server.send(value);
  }

  /** Ends the session as a closed stdin does: open requests are answered first. */
  async close(): Promise<RunResult> {
    await this.#sent;
    await this.#server.close();
    return { code: 0, signal: null, stdout: this.stdoutText, stderr: this.#stderr.join("\n") };
  }
}
