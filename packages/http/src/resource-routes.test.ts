import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createRouter, errorHandler } from "./app.ts";
import { defineErrors } from "./errors.ts";
import { createLogger } from "./logger.ts";
import { listOf, listQuerySchema, toPage } from "./openapi.ts";
import { resourceRoutes } from "./resource-routes.ts";

const noteSchema = z.object({ id: z.string(), body: z.string() }).openapi("Note");
const noteBody = z.object({ body: z.string().min(1) }).strict();
const NoteErrors = defineErrors({ NOTE_NOT_FOUND: { status: 404, message: "No such note." } });
const routes = resourceRoutes({ tag: "notes", schema: noteSchema });

function notesApp() {
  const notes = new Map([["note_1", { id: "note_1", body: "first" }]]);
  const router = createRouter();
  router.onError(errorHandler(createLogger({ service: "test", level: "silent" })));
  router.openapi(
    routes.list({
      summary: "List notes",
      description: "A page of notes",
      query: listQuerySchema,
      page: listOf(noteSchema).openapi("NoteList"),
    }),
    (c) =>
      c.json(
        toPage([...notes.values()], c.req.valid("query").limit, (note) => note),
        200,
      ),
  );
  router.openapi(routes.get({ summary: "Get a note", description: "The note" }), (c) => {
    const note = notes.get(c.req.valid("param").id);
    if (!note) throw NoteErrors.NOTE_NOT_FOUND();
    return c.json(note, 200);
  });
  router.openapi(
    routes.create({ summary: "Create a note", description: "Created", body: noteBody, errors: [400, 422] }),
    (c) => {
      const note = { id: `note_${notes.size + 1}`, body: c.req.valid("json").body };
      notes.set(note.id, note);
      return c.json(note, 201);
    },
  );
  router.openapi(
    routes.update({ summary: "Change a note", description: "The note", body: noteBody, errors: [404, 422] }),
    (c) => {
      const note = { id: c.req.valid("param").id, body: c.req.valid("json").body };
      notes.set(note.id, note);
      return c.json(note, 200);
    },
  );
  router.openapi(routes.delete({ summary: "Delete a note" }), (c) => {
    notes.delete(c.req.valid("param").id);
    return c.body(null, 204);
  });
  return router;
}

describe("resourceRoutes", () => {
  it("declares list, get, create, update and delete under the resource's tag and answer", () => {
    const document = notesApp().getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
    });
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { tags: string[]; responses: Record<string, unknown> }>).map(
        ([method, operation]) => [
          `${method.toUpperCase()} ${path}`,
          operation.tags,
          Object.keys(operation.responses).sort(),
        ],
      ),
    );
    expect(operations).toEqual([
      ["GET /", ["notes"], ["200", "401", "422", "500"]],
      ["POST /", ["notes"], ["201", "400", "422", "500"]],
      ["GET /{id}", ["notes"], ["200", "401", "404", "500"]],
      ["PATCH /{id}", ["notes"], ["200", "404", "422", "500"]],
      ["DELETE /{id}", ["notes"], ["204", "401", "404", "500"]],
    ]);
    const created = document.paths?.["/"]?.post?.responses?.["201"] as {
      content: Record<string, { schema: unknown }>;
    };
    expect(created.content["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/Note" });
  });

  it("validates what each route declares: the body, the id and the list query", async () => {
    const app = notesApp();
    const post = (path: string, method: string, body: unknown) =>
      app.request(path, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post("/", "POST", { body: "" })).status).toBe(422);
    expect((await post("/", "POST", { body: "second", extra: 1 })).status).toBe(422);
    expect(await (await post("/", "POST", { body: "second" })).json()).toEqual({
      id: "note_2",
      body: "second",
    });
    expect((await post(`/${"x".repeat(65)}`, "PATCH", { body: "long id" })).status).toBe(422);
    expect((await app.request("/?limit=0")).status).toBe(422);
    expect((await app.request("/note_2", { method: "DELETE" })).status).toBe(204);
    expect((await app.request("/note_2")).status).toBe(404);
  });
});
