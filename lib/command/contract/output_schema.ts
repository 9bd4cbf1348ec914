/**
 * A command's `output_schema`: what registration checks in it, and how it becomes the `data` member of the
 * tool's MCP `outputSchema`. The schema is published twice — in the manifest as it is, and embedded in the
 * envelope schema of every MCP tool — so it must stay a valid JSON Schema in both places: plain JSON, known
 * types, and only references that resolve inside it.
 * @module
 */
import { isRecord } from "../../json.ts";

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = new Set([
  "additionalProperties",
  "additionalItems",
  "items",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const JSON_TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);
/** Deeper than this is refused: a cycle, or nothing a client could render. */
const MAX_DEPTH = 64;

/** Where a declared `output_schema` sits inside the envelope schema: local references are rebased onto it. */
const EMBEDDED_AT = "#/properties/data/anyOf/0";

/** A broken rule of an `output_schema`: the field (under `output_schema`) and what is wrong. */
export interface OutputSchemaProblem {
  /** The dotted field, e.g. `output_schema.properties.id.type`. */
  field: string;
  problem: string;
}

/**
 * The first rule a declared `output_schema` breaks, or `undefined`. Checked: it is a JSON Schema object of
 * plain JSON values; every keyword that holds schemas holds schemas; `type` names JSON types; `required` is a
 * list of distinct names; `enum` is a list; a `$ref` is local (`#/$defs/name`) and resolves inside the
 * schema; no `$id`, and `$schema` only at the top — the schema is embedded in each tool's envelope schema,
 * where either would change how its references resolve.
 *
 * @example
 * ```ts
 * outputSchemaProblem({ type: "objekt" }); // { field: "output_schema.type", problem: "..." }
 * ```
 */
export function outputSchemaProblem(schema: unknown): OutputSchemaProblem | undefined {
  if (!isRecord(schema)) return { field: "output_schema", problem: "must be a JSON Schema object" };
  return schemaProblem(schema, schema, "output_schema", 0);
}

function schemaProblem(
  node: unknown,
  root: Record<string, unknown>,
  field: string,
  depth: number,
): OutputSchemaProblem | undefined {
  if (depth > MAX_DEPTH) return { field, problem: `nests deeper than ${MAX_DEPTH} levels` };
  if (typeof node === "boolean") return undefined;
  if (!isRecord(node)) return { field, problem: "must be a schema: an object (or true/false)" };
  for (const [keyword, value] of Object.entries(node)) {
    if (value === undefined) continue;
    const at = `${field}.${keyword}`;
    const problem = keywordProblem(keyword, value, root, at, depth, field === "output_schema");
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function keywordProblem(
  keyword: string,
  value: unknown,
  root: Record<string, unknown>,
  at: string,
  depth: number,
  top: boolean,
): OutputSchemaProblem | undefined {
  const fail = (problem: string) => ({ field: at, problem });
  if (SCHEMA_KEYWORDS.has(keyword)) {
    if (keyword === "items" && Array.isArray(value)) return listProblem(value, root, at, depth);
    return schemaProblem(value, root, at, depth + 1);
  }
  if (SCHEMA_MAP_KEYWORDS.has(keyword)) {
    if (!isRecord(value)) return fail("must map names to schemas");
    for (const [name, schema] of Object.entries(value)) {
      const problem = schemaProblem(schema, root, `${at}.${name}`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (SCHEMA_LIST_KEYWORDS.has(keyword)) {
    if (!Array.isArray(value) || value.length === 0) return fail("must be a non-empty list of schemas");
    return listProblem(value, root, at, depth);
  }
  switch (keyword) {
    case "type": {
      const problem = typeProblem(value);
      return problem === undefined ? undefined : fail(problem);
    }
    case "required":
      if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
        return fail("must be a list of property names");
      }
      return new Set(value).size === value.length ? undefined : fail("names a property twice");
    case "enum":
      return Array.isArray(value)
        ? jsonProblem(value, at, depth)
        : fail("must be a list of the allowed values");
    case "$ref": {
      const problem = refProblem(value, root);
      return problem === undefined ? undefined : fail(problem);
    }
    case "$id":
      return fail(
        "is not supported: the schema is embedded in each MCP tool's envelope schema, where $id would change how references resolve",
      );
    case "$schema":
      return top ? undefined : fail("may appear only at the top of output_schema");
    default:
      return jsonProblem(value, at, depth);
  }
}

function listProblem(
  list: unknown[],
  root: Record<string, unknown>,
  at: string,
  depth: number,
): OutputSchemaProblem | undefined {
  for (const [index, schema] of list.entries()) {
    const problem = schemaProblem(schema, root, `${at}.${index}`, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function typeProblem(value: unknown): string | undefined {
  const names = Array.isArray(value) ? value : [value];
  const unknown = names.find((name) => typeof name !== "string" || !JSON_TYPES.has(name));
  if (Array.isArray(value) && value.length === 0) return "must name at least one type";
  if (unknown !== undefined) {
    return `${
      JSON.stringify(unknown) ?? String(unknown)
    } is not a JSON Schema type (null, boolean, object, array, number, string, integer)`;
  }
  return new Set(names).size === names.length ? undefined : "names a type twice";
}

function refProblem(value: unknown, root: Record<string, unknown>): string | undefined {
  if (typeof value !== "string") return "must be a string";
  if (!value.startsWith("#")) {
    return `'${value}' is not local: MCP clients do not fetch other schemas; put it in $defs and refer to '#/$defs/<name>'`;
  }
  if (value !== "#" && !value.startsWith("#/")) {
    return `'${value}' is not a JSON pointer: refer to '#/$defs/<name>'`;
  }
  return resolves(root, value.slice(1)) ? undefined : `'${value}' does not resolve inside output_schema`;
}

/** Whether a JSON pointer (`/a/b`, percent-decoded, `~1` and `~0` unescaped) names something in `root`. */
function resolves(root: unknown, pointer: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pointer);
  } catch {
    return false;
  }
  let node = root;
  for (
    const token of decoded.split("/").slice(1).map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
  ) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return false;
    node = (node as Record<string, unknown>)[token];
  }
  return true;
}

/** Plain JSON only: the manifest prints the schema, and a function or a BigInt there would break it. */
function jsonProblem(value: unknown, at: string, depth: number): OutputSchemaProblem | undefined {
  if (depth > MAX_DEPTH) return { field: at, problem: `nests deeper than ${MAX_DEPTH} levels` };
  if (value === null || typeof value === "string" || typeof value === "boolean" || value === undefined) {
    return undefined;
  }
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : { field: at, problem: "must be a finite number" };
  }
  if (Array.isArray(value) || isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      const problem = jsonProblem(item, `${at}.${key}`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return { field: at, problem: `must be JSON data, not a ${typeof value}` };
}

/**
 * Keywords of drafts after draft-07, which a draft-07 validator does not know: an MCP client that compiles
 * tool schemas strictly with one (the v1 SDK's Ajv) would fail on the whole tool list.
 */
const LATER_DRAFT_KEYWORDS = new Set([
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "prefixItems",
  "minContains",
  "maxContains",
  "contentSchema",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
]);

/**
 * Whether a checked `output_schema` means the same to draft-07 and to draft 2020-12 validators, so that it
 * can be embedded in an MCP tool's `outputSchema`: no keyword of a later draft, and no `$ref` beside other
 * keywords (draft-07 ignores what stands beside a `$ref`). The manifest's own schema, written for 2020-12,
 * is not.
 *
 * @example
 * ```ts
 * isPortableSchema({ type: "object", properties: { id: { type: "integer" } } }); // true
 * isPortableSchema({ type: "object", dependentRequired: { a: ["b"] } }); // false
 * ```
 */
export function isPortableSchema(schema: Record<string, unknown>): boolean {
  return portable(schema, 0);
}

function portable(node: unknown, depth: number): boolean {
  if (!isRecord(node) || depth > MAX_DEPTH) return true;
  const keywords = Object.keys(node).filter((keyword) => node[keyword] !== undefined);
  if (keywords.some((keyword) => LATER_DRAFT_KEYWORDS.has(keyword))) return false;
  if (keywords.includes("$ref") && keywords.some((keyword) => SCHEMA_DEFINING.has(keyword))) return false;
  return keywords.every((keyword) => {
    const value = node[keyword];
    if (SCHEMA_KEYWORDS.has(keyword) || SCHEMA_LIST_KEYWORDS.has(keyword)) {
      return (Array.isArray(value) ? value : [value]).every((sub) => portable(sub, depth + 1));
    }
    if (SCHEMA_MAP_KEYWORDS.has(keyword) && isRecord(value)) {
      return Object.values(value).every((sub) => portable(sub, depth + 1));
    }
    return true;
  });
}

/** What beside a `$ref` would constrain a value, and which draft-07 ignores there: all but annotations. */
const SCHEMA_DEFINING = new Set(
  [...SCHEMA_KEYWORDS, ...SCHEMA_MAP_KEYWORDS, ...SCHEMA_LIST_KEYWORDS, "type", "enum", "const", "required"]
    .filter((keyword) => keyword !== "$defs" && keyword !== "definitions"),
);

/**
 * A checked `output_schema` as it sits inside the envelope schema at `properties.data.anyOf[0]`: a copy
 * without the top-level `$schema` (the envelope schema has none), with every local `$ref` rebased onto that
 * position so it still resolves.
 *
 * @example
 * ```ts
 * embeddedOutputSchema({ $ref: "#/$defs/note", $defs: { note: { type: "object" } } }).$ref;
 * // "#/properties/data/anyOf/0/$defs/note"
 * ```
 */
export function embeddedOutputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  return rebased(rest) as Record<string, unknown>;
}

function rebased(node: unknown): unknown {
  if (!isRecord(node)) return copyData(node);
  // fromEntries defines own properties: a "__proto__" key from parsed JSON stays data.
  return Object.fromEntries(
    Object.entries(node).filter(([, value]) => value !== undefined).map(([keyword, value]) => {
      if (keyword === "$ref" && typeof value === "string" && value.startsWith("#")) {
        return [keyword, EMBEDDED_AT + value.slice(1)];
      }
      if (SCHEMA_KEYWORDS.has(keyword) || SCHEMA_LIST_KEYWORDS.has(keyword)) {
        return [keyword, Array.isArray(value) ? value.map(rebased) : rebased(value)];
      }
      if (SCHEMA_MAP_KEYWORDS.has(keyword) && isRecord(value)) {
        return [
          keyword,
          Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, rebased(schema)])),
        ];
      }
      return [keyword, copyData(value)];
    }),
  );
}

function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined).map((
      [key, item],
    ) => [key, copyData(item)]),
  );
}
