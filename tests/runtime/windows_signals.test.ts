// Which signals stand for a request to end on Windows, where no SIGTERM arrives from outside: Ctrl+Break
// (SIGBREAK) is listened for in its place, on Node beside SIGTERM, on Deno alone (it knows only SIGINT and
// SIGBREAK there). Elsewhere each signal is itself.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { listenedSignals } from "../../lib/runtime/process.ts";

describe("signals on Windows", () => {
  it("SIGBREAK stands for SIGTERM; Deno listens for neither SIGTERM nor SIGHUP there", () => {
    assert.deepEqual(listenedSignals("SIGTERM", "win32", "node"), ["SIGTERM", "SIGBREAK"]);
    assert.deepEqual(listenedSignals("SIGTERM", "win32", "deno"), ["SIGBREAK"]);
    assert.deepEqual(listenedSignals("SIGHUP", "win32", "node"), ["SIGHUP"]);
    assert.deepEqual(listenedSignals("SIGHUP", "win32", "deno"), []);
    assert.deepEqual(listenedSignals("SIGINT", "win32", "deno"), ["SIGINT"]);
  });

  it("on POSIX each signal is itself", () => {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      assert.deepEqual(listenedSignals(signal, "linux", "deno"), [signal]);
      assert.deepEqual(listenedSignals(signal, "darwin", "node"), [signal]);
    }
  });
});
