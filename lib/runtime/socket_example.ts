/**
 * The `unix:` path a help text shows, right for the platform it is read on. Apart from socket_paths.ts,
 * which only a listener loads: every help page may show this one.
 * @module
 */

/**
 * An example `unix:` path for a tool on `platform`: a named pipe on Windows, a file in /tmp elsewhere.
 *
 * @example
 * ```ts
 * unixPathExample("notes", "win32"); // "\\\\.\\pipe\\notes"
 * unixPathExample("notes", "linux"); // "/tmp/notes.sock"
 * ```
 */
export function unixPathExample(name: string, platform: string): string {
  return platform === "win32" ? `\\\\.\\pipe\\${name}` : `/tmp/${name}.sock`;
}
