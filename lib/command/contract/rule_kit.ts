/**
 * What every rule of registration_rules.ts and flag_rules.ts shares: what is being checked, how a rule
 * fails, and the small shape checks they all use.
 * @module
 */

/** Lowercase kebab-case words: a flag name, an alias, a protocol name. */
export const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * What the contract rules are checking: a command definition at registration (handlers, no framework
 * flags), or a manifest entry (no handlers; the framework's flags and exit codes included, every field in
 * its serialised form).
 */
export type Subject = "definition" | "entry";

/** Refuses the command: the field, and what is wrong with it. */
export type Fail = (field: string, problem: string) => never;

/** Fails on the first member of `value` that `known` does not list. */
export function checkKnownFields(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  prefix: string,
  fail: Fail,
  ignored: (key: string) => boolean = () => false,
): void {
  const unknown = Object.keys(value).find((key) => !known.has(key) && !ignored(key));
  if (unknown !== undefined) {
    fail(prefix === "" ? unknown : `${prefix}.${unknown}`, `is not a field of the manifest format`);
  }
}

/** Whether a value is a list of strings. */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
