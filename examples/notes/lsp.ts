/**
 * `notes lsp`: a language server for markdown files that mention notes as `note:<id>`. It completes note ids
 * after `note:` (label the id, detail the title), shows a note's title and body on hover, and reports every
 * `note:<id>` whose note does not exist as a diagnostic. Documents are synced whole (full sync); the notes are
 * re-read on every request, so notes added while the editor is open are seen at once.
 */
import type { ProtocolLoop } from "../../mod.ts";
import { type LspContext, type LspHandlers, serveLsp } from "../../lib/protocol/lsp/mod.ts";
import type { Note, NoteStore } from "./store.ts";

/** LSP positions count UTF-16 code units, which is what JavaScript string indexes count. */
interface Position {
  line: number;
  character: number;
}

interface Range {
  start: Position;
  end: Position;
}

interface TextDocumentPositionParams {
  textDocument: { uri: string };
  position: Position;
}

interface OpenDocument {
  text: string;
  version: number;
}

/** One `note:<id>` in a line of text. */
interface NoteReference {
  id: number;
  range: Range;
}

// `footnote:1` is not a reference: `note:` must start a word.
const REFERENCE = /(?<![\w-])note:(\d+)/g;
const PARTIAL_REFERENCE = /(?<![\w-])note:(\d*)$/;

/** LSP `TextDocumentSyncKind.Full`, `CompletionItemKind.Reference`, `DiagnosticSeverity.Warning`. */
const SYNC_FULL = 1;
const KIND_REFERENCE = 18;
const SEVERITY_WARNING = 2;

/**
 * The `notes lsp` protocol loop over a note store. The caller has already read the store once, so a store
 * that cannot be read fails before serving (REQ-C-032 phase 1), not in the middle of a session.
 *
 * @example
 * ```ts
 * import { NoteStore } from "./store.ts";
 *
 * const store = new NoteStore("/tmp/notes");
 * await store.read(); // a corrupt notes file fails here, before a client sees a server
 * const loop = notesLanguageServer(store, { maxMessageBytes: 1 << 20 });
 * ```
 */
export function notesLanguageServer(
  store: NoteStore,
  options: { maxMessageBytes?: number } = {},
): ProtocolLoop {
  return (io) => serveLsp(io, notesHandlers(store), options);
}

function notesHandlers(store: NoteStore): LspHandlers {
  const documents = new Map<string, OpenDocument>();
  const notesById = async () => new Map((await store.read()).notes.map((note) => [note.id, note] as const));

  const check = async (uri: string, context: LspContext) => {
    const document = documents.get(uri);
    if (document === undefined) return;
    const notes = await notesById();
    const diagnostics = references(document.text)
      .filter((reference) => !notes.has(reference.id))
      .map((reference) => ({
        range: reference.range,
        severity: SEVERITY_WARNING,
        source: "notes",
        code: "missing-note",
        message: `note ${reference.id} does not exist`,
      }));
    await context.notify("textDocument/publishDiagnostics", { uri, version: document.version, diagnostics });
  };

  return {
    initialize: () => ({
      capabilities: {
        textDocumentSync: { openClose: true, change: SYNC_FULL },
        completionProvider: { triggerCharacters: [":"] },
        hoverProvider: true,
      },
      serverInfo: { name: "notes" },
    }),
    notifications: {
      "textDocument/didOpen": async (params, context) => {
        const { textDocument } = params as {
          textDocument: { uri: string; languageId: string; version: number; text: string };
        };
        if (textDocument.languageId !== "markdown") return;
        documents.set(textDocument.uri, { text: textDocument.text, version: textDocument.version });
        await check(textDocument.uri, context);
      },
      "textDocument/didChange": async (params, context) => {
        const { textDocument, contentChanges } = params as {
          textDocument: { uri: string; version: number };
          contentChanges: { text: string }[];
        };
        const latest = contentChanges.at(-1);
        if (!documents.has(textDocument.uri) || latest === undefined) return;
        documents.set(textDocument.uri, { text: latest.text, version: textDocument.version });
        await check(textDocument.uri, context);
      },
      "textDocument/didClose": async (params, context) => {
        const { uri } = (params as { textDocument: { uri: string } }).textDocument;
        if (!documents.delete(uri)) return;
        // Clearing tells the editor the closed file's warnings are gone.
        await context.notify("textDocument/publishDiagnostics", { uri, diagnostics: [] });
      },
    },
    requests: {
      "textDocument/completion": async (params) => {
        const { textDocument, position } = params as TextDocumentPositionParams;
        const line = lineAt(documents.get(textDocument.uri), position.line);
        if (line === undefined || !PARTIAL_REFERENCE.test(line.slice(0, position.character))) return [];
        const notes = [...(await notesById()).values()];
        return notes.map((note) => ({
          label: String(note.id),
          kind: KIND_REFERENCE,
          detail: note.title,
          documentation: note.body,
        }));
      },
      "textDocument/hover": async (params) => {
        const { textDocument, position } = params as TextDocumentPositionParams;
        const line = lineAt(documents.get(textDocument.uri), position.line);
        if (line === undefined) return null;
        const reference = referencesInLine(line, position.line)
          .find(({ range }) =>
            range.start.character <= position.character && position.character <= range.end.character
          );
        if (reference === undefined) return null;
        const note = (await notesById()).get(reference.id);
        if (note === undefined) return null;
        return { contents: { kind: "markdown", value: hoverText(note) }, range: reference.range };
      },
    },
  };
}

function hoverText(note: Note): string {
  return note.body === "" ? `**${note.title}**` : `**${note.title}**\n\n${note.body}`;
}

function lines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

function lineAt(document: OpenDocument | undefined, line: number): string | undefined {
  return document === undefined ? undefined : lines(document.text)[line];
}

function references(text: string): NoteReference[] {
  return lines(text).flatMap((line, number) => referencesInLine(line, number));
}

function referencesInLine(line: string, number: number): NoteReference[] {
  return [...line.matchAll(REFERENCE)].map((match) => ({
    id: Number(match[1]),
    range: {
      start: { line: number, character: match.index },
      end: { line: number, character: match.index + match[0].length },
    },
  }));
}
