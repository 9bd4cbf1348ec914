import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { withFileLock } from "../../mod.ts";

/** One note. */
export interface Note {
  id: number;
  title: string;
  body: string;
  tags: string[];
  created_at: string;
}

interface StoreFile {
  next_id: number;
  notes: Note[];
}

/** Where notes live: `NOTES_HOME`, else the XDG data directory. */
export function notesHome(env: (name: string) => string | undefined): string {
  const explicit = env("NOTES_HOME");
  if (explicit) return explicit;
  const base = env("XDG_DATA_HOME") || join(homedir(), ".local", "share");
  return join(base, "notes");
}

/**
 * The notes file, read and written whole. Writers take the library's file lock (`notes.lock`) so that two
 * processes — or two concurrent MCP calls — never lose each other's update, and write through a temporary
 * file and a rename so a reader never sees a torn file.
 */
export class NoteStore {
  readonly home: string;
  readonly #file: string;

  constructor(home: string) {
    this.home = home;
    this.#file = join(home, "notes.json");
  }

  async read(): Promise<StoreFile> {
    try {
      const parsed = JSON.parse(await readFile(this.#file, "utf8")) as StoreFile;
      return { next_id: parsed.next_id ?? 1, notes: Array.isArray(parsed.notes) ? parsed.notes : [] };
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return { next_id: 1, notes: [] };
      throw error;
    }
  }

  async exists(): Promise<boolean> {
    try {
      await stat(this.#file);
      return true;
    } catch {
      return false;
    }
  }

  /** Runs `change` on the current content under the lock and writes what it returns. */
  async update<T>(
    change: (file: StoreFile) => { file: StoreFile; result: T },
    signal?: AbortSignal,
  ): Promise<T> {
    await mkdir(this.home, { recursive: true });
    return await withFileLock(join(this.home, "notes.lock"), async (lock) => {
      // The holder we took the lock from died mid-write: its temporary file is garbage now.
      if (lock.recovered) await this.#removeTemporaries();
      const { file, result } = change(await this.read());
      const temporary = `${this.#file}.${globalThis.process.pid}.${crypto.randomUUID()}.tmp`;
      try {
        await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`);
        await rename(temporary, this.#file);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      return result;
    }, { signal });
  }

  async #removeTemporaries(): Promise<void> {
    for (const name of await readdir(this.home)) {
      if (name.startsWith("notes.json.") && name.endsWith(".tmp")) {
        await rm(join(this.home, name), { force: true });
      }
    }
  }
}
