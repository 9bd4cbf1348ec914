#!/usr/bin/env node
/**
 * `notes`: a small note keeper built on toolwire — a real tool on the library, and the example the README
 * and the tests drive. Data lives in `NOTES_HOME` (default: the XDG data directory).
 *
 *   notes add --title "Buy milk" --tag home
 *   notes list --tag home
 *   notes mcp serve            # the same commands as MCP tools
 *   notes lsp                  # a language server for note:<id> references in markdown
 */
import { CommandError, createTool, ExitCode } from "../../mod.ts";
import { notesLanguageServer } from "./lsp.ts";
import { type Note, notesHome, NoteStore } from "./store.ts";

const tool = createTool({
  name: "notes",
  version: "1.0.0",
  description: "Keep short notes with tags",
  stateDir: (env) => `${notesHome(env)}/.idempotency`,
  // What the commands need when an MCP client starts `notes mcp serve` on Deno: the store's location, and
  // the store (wherever NOTES_HOME puts it).
  denoPermissions: [
    "--allow-env=NOTES_HOME,NOTES_FORMAT,XDG_DATA_HOME",
    "--allow-read",
    "--allow-write",
    "--allow-sys=homedir",
  ],
});

const storeFor = (env: (name: string) => string | undefined) => new NoteStore(notesHome(env));

const summary = (note: Note) => ({ id: note.id, title: note.title, tags: note.tags });

// What the commands return, declared so MCP clients get typed results (each tool's outputSchema).
const summarySchema = {
  type: "object",
  properties: {
    id: { type: "integer" },
    title: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id", "title", "tags"],
};
const noteSchema = {
  type: "object",
  properties: {
    ...summarySchema.properties,
    body: { type: "string" },
    created_at: { type: "string", description: "ISO 8601 time" },
  },
  required: ["id", "title", "body", "tags", "created_at"],
};

const notFound = (id: number) =>
  new CommandError(ExitCode.NOT_FOUND, `note ${id} does not exist`, {
    suggestion: "run `notes list` to see the ids",
  });

tool.command("add", {
  description: "Add a note",
  danger_level: "mutating",
  required_scopes: ["notes:write"],
  flags: {
    title: { type: "string", required: true, description: "The note's title" },
    body: { type: "string", description: "The note's text", default: "" },
    tag: { type: "array", description: "A tag; repeat for several" },
  },
  output_schema: {
    type: "object",
    properties: { effect: { type: "string", enum: ["created", "noop"] }, note: noteSchema },
    required: ["effect", "note"],
  },
  exit_codes: {
    "0": {
      name: "SUCCESS",
      description: "The note was added (or replayed: effect noop)",
      retryable: false,
      side_effects: "complete",
    },
  },
  examples: [{ description: "Add a tagged note", command: "notes add --title 'Buy milk' --tag home" }],
  run: async (ctx) => {
    const note = await storeFor(ctx.env).update((file) => {
      const created: Note = {
        id: file.next_id,
        title: ctx.flags.title,
        body: ctx.flags.body,
        tags: [...new Set(ctx.flags.tag)],
        created_at: new Date().toISOString(),
      };
      return { file: { next_id: file.next_id + 1, notes: [...file.notes, created] }, result: created };
    }, ctx.signal);
    return { effect: "created", note };
  },
});

tool.command("list", {
  description: "List notes, newest first",
  danger_level: "safe",
  required_scopes: ["notes:read"],
  flags: {
    tag: { type: "string", description: "Only notes with this tag" },
    limit: { type: "integer", short: "n", description: "Show at most N notes", default: 50 },
  },
  output_schema: { type: "array", items: summarySchema },
  exit_codes: {
    "0": { name: "SUCCESS", description: "The notes, possibly none", retryable: false, side_effects: "none" },
  },
  run: async (ctx) => {
    if (ctx.flags.limit < 0) {
      throw new CommandError(ExitCode.ARG_ERROR, `--limit expects a count >= 0, got ${ctx.flags.limit}`);
    }
    const { notes } = await storeFor(ctx.env).read();
    const tag = ctx.flags.tag;
    return notes.filter((note) => tag === undefined || note.tags.includes(tag)).reverse().slice(
      0,
      ctx.flags.limit,
    ).map(summary);
  },
});

tool.command("show", {
  description: "Show one note",
  danger_level: "safe",
  required_scopes: ["notes:read"],
  positionals: [{ name: "id", type: "integer", description: "The note's id" }],
  output_schema: noteSchema,
  exit_codes: {
    "0": { name: "SUCCESS", description: "The note", retryable: false, side_effects: "none" },
    "5": { name: "NOT_FOUND", description: "No note has this id", retryable: false, side_effects: "none" },
  },
  run: async (ctx) => {
    const { notes } = await storeFor(ctx.env).read();
    const note = notes.find((candidate) => candidate.id === ctx.args.id);
    if (note === undefined) throw notFound(ctx.args.id);
    return note;
  },
});

tool.command("remove", {
  description: "Delete a note for good",
  danger_level: "destructive",
  required_scopes: ["notes:write"],
  aliases: ["rm"],
  positionals: [{ name: "id", type: "integer", description: "The note's id" }],
  output_schema: {
    anyOf: [
      {
        type: "object",
        properties: { effect: { type: "string", enum: ["deleted", "noop"] }, note: summarySchema },
        required: ["effect", "note"],
      },
      {
        type: "object",
        properties: {
          effect: { const: "would_delete" },
          would_affect: {
            type: "object",
            properties: { notes: { type: "array", items: summarySchema }, count: { type: "integer" } },
            required: ["notes", "count"],
          },
        },
        required: ["effect", "would_affect"],
      },
    ],
  },
  exit_codes: {
    "0": {
      name: "SUCCESS",
      description: "The note was deleted, or the dry run shows what would be",
      retryable: false,
      side_effects: "complete",
    },
    "5": {
      name: "NOT_FOUND",
      description: "No note has this id; nothing was deleted",
      retryable: false,
      side_effects: "none",
    },
  },
  run: async (ctx) => {
    const store = storeFor(ctx.env);
    if (ctx.dryRun) {
      const note = (await store.read()).notes.find((candidate) => candidate.id === ctx.args.id);
      if (note === undefined) throw notFound(ctx.args.id);
      return { effect: "would_delete", would_affect: { notes: [summary(note)], count: 1 } };
    }
    const removed = await store.update((file) => {
      const note = file.notes.find((candidate) => candidate.id === ctx.args.id);
      if (note === undefined) throw notFound(ctx.args.id);
      return { file: { ...file, notes: file.notes.filter((candidate) => candidate !== note) }, result: note };
    }, ctx.signal);
    return { effect: "deleted", note: summary(removed) };
  },
});

tool.command("init", {
  description: "Create the notes directory; a person runs this once, so it is not an MCP tool",
  danger_level: "mutating",
  required_scopes: ["notes:write"],
  mcp: false,
  exit_codes: {
    "0": {
      name: "SUCCESS",
      description: "The notes directory exists",
      retryable: false,
      side_effects: "complete",
    },
  },
  run: async (ctx) => {
    const store = storeFor(ctx.env);
    if (await store.exists()) return { effect: "noop", home: store.home };
    await store.update((file) => ({ file, result: undefined }), ctx.signal);
    return { effect: "created", home: store.home };
  },
});

tool.command("lsp", {
  description: "Serve a language server for markdown: complete, hover and check note:<id> references",
  danger_level: "safe",
  required_scopes: ["notes:read"],
  stdout: "protocol",
  protocol: "lsp",
  flags: {
    "max-message-bytes": {
      type: "integer",
      description: "Largest message accepted; larger ones are skipped",
      default: 64 * 1024 * 1024,
    },
  },
  exit_codes: {
    "0": {
      name: "SUCCESS",
      description: "The client sent shutdown then exit, or closed stdin",
      retryable: false,
      side_effects: "none",
    },
    "1": {
      name: "GENERAL_ERROR",
      description:
        "The client sent exit without shutdown, or input without a usable Content-Length; or the notes file cannot be read",
      retryable: false,
      side_effects: "none",
    },
  },
  serve: async (ctx) => {
    const maxMessageBytes = ctx.flags["max-message-bytes"];
    if (maxMessageBytes < 1) {
      throw new CommandError(
        ExitCode.ARG_ERROR,
        `--max-message-bytes expects a size >= 1, got ${maxMessageBytes}`,
      );
    }
    const store = storeFor(ctx.env);
    // Read once before serving: a corrupt notes file fails here, before the client sees a server.
    await store.read();
    return notesLanguageServer(store, { maxMessageBytes });
  },
});

await tool.main();
