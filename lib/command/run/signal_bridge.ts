import {
  exitProcess,
  type HandledSignal,
  killAllChildren,
  noteAbandonedWork,
  onSignal,
} from "../../runtime/mod.ts";
import { Cancellation } from "./cancellation.ts";

const HANDLED: readonly HandledSignal[] = ["SIGTERM", "SIGINT", "SIGHUP"];

/**
 * Turns SIGTERM, SIGINT and SIGHUP into an aborted AbortSignal whose reason is a {@linkcode Cancellation}
 * (REQ-F-013, REQ-F-069). The first signal aborts, so the command can clean up and one envelope is written;
 * a second signal ends the process at once with 128+N and writes nothing more. Returns the signal and a
 * function that removes the listeners.
 *
 * @example
 * ```ts
 * import { executeCommand, type Invocation } from "./executor.ts";
 *
 * declare const invocation: Invocation;
 * const { signal, dispose } = bridgeSignals();
 * const envelope = await executeCommand({ ...invocation, signal });
 * dispose();
 * ```
 */
export function bridgeSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const removers = HANDLED.map((name) =>
    onSignal(name, () => {
      const cancellation = new Cancellation(name);
      if (!controller.signal.aborted) {
        controller.abort(cancellation);
        return;
      }
      killAllChildren("SIGKILL");
      // The handler is left where it is, perhaps in a file call.
      noteAbandonedWork();
      exitProcess(cancellation.exitCode);
    })
  );
  return { signal: controller.signal, dispose: () => removers.forEach((remove) => remove()) };
}
