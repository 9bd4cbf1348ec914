// The oldest Deno toolwire runs on: an older one is told so, by version, instead of a TypeError about
// `process.getBuiltinModule`; a new enough one and Node hear nothing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { denoTooOld, MIN_DENO_VERSION } from "../../lib/runtime/deno_version.ts";
import { unexpectedError } from "../../lib/command/run/thrown_error.ts";

describe("the oldest Deno", () => {
  it("is 2.1: 2.0 and 1.x are told to upgrade, naming both versions", () => {
    assert.equal(MIN_DENO_VERSION, "2.1");
    for (const version of ["2.0.6", "1.46.3", "0.9.0"]) {
      const told = denoTooOld(version);
      assert.ok(told?.includes("Deno 2.1 or later") && told.includes(`Deno ${version}`), told);
    }
  });

  it("2.1 and later, 3.0, and Node are not", () => {
    for (const version of ["2.1.0", "2.9.6", "2.10.0", "3.0.0"]) assert.equal(denoTooOld(version), undefined);
    assert.equal(denoTooOld(undefined), undefined);
  });

  it("an unexpected error on this runtime, new enough, carries no upgrade suggestion", () => {
    const { error } = unexpectedError(new TypeError("boom"), "internal error");
    assert.equal(error.suggestion, undefined);
  });
});
