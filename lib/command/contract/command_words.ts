/**
 * A command's dotted path (`db.migrate`, the manifest's key) as the words a person types to run it
 * (`db migrate`): what every message, help text and title shows.
 *
 * @example
 * ```ts
 * commandWords("db.migrate"); // "db migrate"
 * ```
 */
export function commandWords(path: string): string {
  return path.replaceAll(".", " ");
}
