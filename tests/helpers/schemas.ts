/**
 * The project's own JSON Schemas (`schema/*.schema.json`), compiled with Ajv for draft 2020-12. Ajv's
 * `ajv/dist/2020.js` is CommonJS; its named export `Ajv2020` is the class on Node (tsx) and Deno alike,
 * whereas the default import is the module object under Node's type rules.
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

/** The compiled validators of the manifest and the envelope schema. */
export interface SchemaValidators {
  manifest: ValidateFunction;
  envelope: ValidateFunction;
}

let compiled: SchemaValidators | undefined;

/** Reads a schema file of this repository. */
export function loadSchema(name: "manifest" | "envelope"): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../schema/${name}.schema.json`, import.meta.url), "utf8"));
}

/**
 * Compiles both schemas once. Strict mode, so a misspelt or unknown keyword fails here instead of silently
 * passing. Two of Ajv's stricter-than-the-spec lints are off: `required` inside `if`/`then` names properties
 * declared beside it, and subschemas next to a `$ref` take their type from the referenced schema.
 */
export function schemaValidators(): SchemaValidators {
  if (compiled !== undefined) return compiled;
  const ajv = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false, allErrors: true });
  compiled = { manifest: ajv.compile(loadSchema("manifest")), envelope: ajv.compile(loadSchema("envelope")) };
  return compiled;
}

/** The validator's last errors as one readable line, for assertion messages. */
export function schemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`)
    .join("; ");
}
