import { CommonErrors, createRouter, errorResponses, idParam, jsonContent, listOf, toPage } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AgentErrors } from "../agents/errors.ts";
import { findAgent } from "../agents/find-agent.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { toAnnotationJson } from "./annotation-json.ts";
import {
  annotationListQuery,
  annotationParams,
  annotationSchema,
  createAnnotationBody,
  importResultSchema,
  updateAnnotationBody,
} from "./contract.ts";
import { AnnotationErrors } from "./errors.ts";
import { importAnnotations, parseAnnotationCsv } from "./import-annotations.ts";
import {
  createAnnotation,
  deleteAnnotation,
  findAnnotation,
  listAnnotations,
  updateAnnotation,
} from "./manage-annotations.ts";

const tags = ["annotations"];

const routes = {
  list: createRoute({
    method: "get",
    path: "/{id}/annotations",
    tags,
    summary: "An agent's annotations (curated question → answer pairs), newest first",
    request: { params: idParam, query: annotationListQuery },
    responses: {
      200: {
        description: "A page of annotations",
        content: jsonContent(listOf(annotationSchema).openapi("AnnotationList")),
      },
      ...errorResponses(401, 404, 422),
    },
  }),
  create: createRoute({
    method: "post",
    path: "/{id}/annotations",
    tags,
    summary: "Add an annotation: with annotation_reply on, a question similar enough is answered with it",
    request: { params: idParam, body: { required: true, content: jsonContent(createAnnotationBody) } },
    responses: {
      201: { description: "Created", content: jsonContent(annotationSchema) },
      ...errorResponses(400, 401, 404, 422),
    },
  }),
  importCsv: createRoute({
    method: "post",
    path: "/{id}/annotations/import",
    tags,
    summary: "Import annotations from a CSV with `question` and `answer` columns (all rows, or none)",
    description:
      "The CSV (UTF-8, a header row naming `question` and `answer`, other columns ignored, at most 10,000 rows and 1 MiB) " +
      "as the body with `Content-Type: text/csv`, or as the `file` field of a multipart form. A question the agent already " +
      "has gets the new answer. Any bad row answers 422 `invalid_import` with every row's problem in `details` " +
      '(`path: "row 3"`, numbered as a spreadsheet shows them, the header being row 1), and nothing is imported.',
    request: {
      params: idParam,
      body: {
        required: true,
        content: {
          // Plain JSON Schemas, not zod: the handler reads the body itself (zod-openapi would parse
          // every required body as a form).
          "text/csv": { schema: { type: "string", example: "question,answer\r\nHi?,Hello!\r\n" } },
          "multipart/form-data": {
            schema: {
              type: "object",
              properties: { file: { type: "string", format: "binary", description: "The CSV file" } },
              required: ["file"],
            },
          },
        },
      },
    },
    responses: {
      200: { description: "Imported", content: jsonContent(importResultSchema) },
      ...errorResponses(400, 401, 404, 413, 415, 422),
    },
  }),
  get: createRoute({
    method: "get",
    path: "/{id}/annotations/{annotation_id}",
    tags,
    summary: "Get an annotation with its hit count",
    request: { params: annotationParams },
    responses: {
      200: { description: "The annotation", content: jsonContent(annotationSchema) },
      ...errorResponses(401, 404),
    },
  }),
  update: createRoute({
    method: "patch",
    path: "/{id}/annotations/{annotation_id}",
    tags,
    summary: "Change an annotation's question or answer",
    request: {
      params: annotationParams,
      body: { required: true, content: jsonContent(updateAnnotationBody) },
    },
    responses: {
      200: { description: "The updated annotation", content: jsonContent(annotationSchema) },
      ...errorResponses(400, 401, 404, 422),
    },
  }),
  remove: createRoute({
    method: "delete",
    path: "/{id}/annotations/{annotation_id}",
    tags,
    summary: "Delete an annotation (answers it gave keep its id)",
    request: { params: annotationParams },
    responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
  }),
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The CSV of an import request: the text/csv body, or the `file` field of a multipart form. */
async function importedCsv(c: Context<AppEnv>): Promise<string> {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  let bytes: ArrayBuffer;
  if (mediaType === "text/csv" || mediaType === "text/plain") {
    bytes = await c.req.arrayBuffer();
  } else if (mediaType === "multipart/form-data") {
    const file = (await c.req.parseBody()).file;
    if (!(file instanceof File)) {
      throw CommonErrors.VALIDATION_FAILED({
        message: "The form has no `file` field holding the CSV.",
        param: "file",
      });
    }
    bytes = await file.arrayBuffer();
  } else {
    throw CommonErrors.UNSUPPORTED_MEDIA_TYPE({
      message: "Send the CSV as text/csv, or as the `file` field of a multipart/form-data body.",
    });
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw CommonErrors.INVALID_ENCODING({ message: "The CSV is not UTF-8.", param: "body" });
  }
}

/**
 * `/api/agents/{id}/annotations`: an agent's curated answers, and their CSV import.
 *
 * @example app.route("/api/agents", annotationRoutes(deps));
 */
export function annotationRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  const ownAgent = async (c: Context<AppEnv>, id: string) => {
    const agent = await findAgent(deps.db, c.get("principal").workspaceId, id);
    if (!agent) throw AgentErrors.AGENT_NOT_FOUND();
    return agent;
  };

  router.openapi(routes.list, async (c) => {
    const agent = await ownAgent(c, c.req.valid("param").id);
    const query = c.req.valid("query");
    const rows = await listAnnotations(deps.db, agent.workspaceId, agent.id, query);
    return c.json(toPage(rows, query.limit, toAnnotationJson), 200);
  });
  router.openapi(routes.create, async (c) => {
    const agent = await ownAgent(c, c.req.valid("param").id);
    const row = await createAnnotation(deps, agent.workspaceId, agent.id, c.req.valid("json"));
    return c.json(toAnnotationJson(row), 201);
  });
  router.openapi(routes.importCsv, async (c) => {
    const agent = await ownAgent(c, c.req.valid("param").id);
    const pairs = parseAnnotationCsv(await importedCsv(c));
    return c.json(await importAnnotations(deps, agent.workspaceId, agent.id, pairs), 200);
  });
  router.openapi(routes.get, async (c) => {
    const { id, annotation_id: annotationId } = c.req.valid("param");
    const agent = await ownAgent(c, id);
    const row = await findAnnotation(deps.db, agent.workspaceId, agent.id, annotationId);
    if (!row) throw AnnotationErrors.ANNOTATION_NOT_FOUND();
    return c.json(toAnnotationJson(row), 200);
  });
  router.openapi(routes.update, async (c) => {
    const { id, annotation_id: annotationId } = c.req.valid("param");
    const agent = await ownAgent(c, id);
    const row = await updateAnnotation(deps, agent.workspaceId, agent.id, annotationId, c.req.valid("json"));
    if (!row) throw AnnotationErrors.ANNOTATION_NOT_FOUND();
    return c.json(toAnnotationJson(row), 200);
  });
  router.openapi(routes.remove, async (c) => {
    const { id, annotation_id: annotationId } = c.req.valid("param");
    const agent = await ownAgent(c, id);
    if (!(await deleteAnnotation(deps.db, agent.workspaceId, agent.id, annotationId))) {
      throw AnnotationErrors.ANNOTATION_NOT_FOUND();
    }
    return c.body(null, 204);
  });
  return router;
}
