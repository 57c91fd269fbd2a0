import {
  createRouter,
  errorResponses,
  eventStream,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  searchableListQuerySchema,
  toPage,
} from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { Storage } from "../storage/storage.ts";
import {
  chunkSchema,
  createKnowledgeBaseBody,
  documentSchema,
  knowledgeBaseSchema,
  searchAnswerSchema,
  searchBody,
  uploadFormSchema,
} from "./contract.ts";
import { createKnowledgeBase } from "./create-knowledge-base.ts";
import { deleteDocument } from "./delete-document.ts";
import { deleteKnowledgeBase } from "./delete-knowledge-base.ts";
import { KnowledgeErrors } from "./errors.ts";
import { findDocument } from "./find-document.ts";
import { findKnowledgeBase } from "./find-knowledge-base.ts";
import type { IngestionWorker } from "./ingestion-worker.ts";
import { toChunkJson, toDocumentJson, toKnowledgeBaseJson } from "./knowledge-json.ts";
import { listChunks } from "./list-chunks.ts";
import { listDocuments } from "./list-documents.ts";
import { listKnowledgeBases } from "./list-knowledge-bases.ts";
import type { ProgressEvents } from "./progress-events.ts";
import { searchKnowledge } from "./search-knowledge.ts";
import { streamDocumentProgress } from "./stream-document-progress.ts";
import { uploadDocument } from "./upload-document.ts";

/** The upload route reads its own (multipart, streamed) body, so the app's JSON body limit skips it. */
export const RAG_UPLOAD_PATH = "/api/rag/upload";

/** Chunks are listed in document order, so their cursor is a position (an int4 column), not an id. */
const chunkListQuery = z.object({
  limit: listQuerySchema.shape.limit,
  cursor: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,8})$/, "must be the next_cursor of a previous page")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});

const tags = ["knowledge"];

const routes = {
  createBase: createRoute({
    method: "post",
    path: "/knowledge-bases",
    tags,
    summary: "Create a knowledge base with its embedding setting",
    request: { body: { required: true, content: jsonContent(createKnowledgeBaseBody) } },
    responses: {
      201: { description: "Created", content: jsonContent(knowledgeBaseSchema) },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
  listBases: createRoute({
    method: "get",
    path: "/knowledge-bases",
    tags,
    summary: "List the caller's knowledge bases, newest first",
    request: { query: searchableListQuerySchema },
    responses: {
      200: {
        description: "A page of knowledge bases",
        content: jsonContent(listOf(knowledgeBaseSchema).openapi("KnowledgeBaseList")),
      },
      ...errorResponses(401, 422),
    },
  }),
  getBase: createRoute({
    method: "get",
    path: "/knowledge-bases/{id}",
    tags,
    summary: "Get a knowledge base",
    request: { params: idParam },
    responses: {
      200: { description: "The knowledge base", content: jsonContent(knowledgeBaseSchema) },
      ...errorResponses(401, 404),
    },
  }),
  deleteBase: createRoute({
    method: "delete",
    path: "/knowledge-bases/{id}",
    tags,
    summary: "Delete a knowledge base with its documents, chunks and files",
    request: { params: idParam },
    responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
  }),
  listDocuments: createRoute({
    method: "get",
    path: "/knowledge-bases/{id}/documents",
    tags,
    summary: "List a knowledge base's documents, newest first",
    request: { params: idParam, query: searchableListQuerySchema },
    responses: {
      200: {
        description: "A page of documents",
        content: jsonContent(listOf(documentSchema).openapi("KnowledgeDocumentList")),
      },
      ...errorResponses(401, 404, 422),
    },
  }),
  search: createRoute({
    method: "post",
    path: "/knowledge-bases/{id}/search",
    tags,
    summary: "Search a knowledge base: vector, fulltext or hybrid (reciprocal rank fusion)",
    request: { params: idParam, body: { required: true, content: jsonContent(searchBody) } },
    responses: {
      200: { description: "The best chunks, best first", content: jsonContent(searchAnswerSchema) },
      ...errorResponses(400, 401, 404, 422, 424, 429, 502, 504),
    },
  }),
  upload: createRoute({
    method: "post",
    path: "/rag/upload",
    tags,
    summary: "Upload a document into a knowledge base; ingestion continues in the background",
    description:
      "Multipart form with `file` and `knowledge_base_id` (optional `chunk_size`, `chunk_overlap` in tokens). " +
      "The file is streamed to storage; its type is checked from its bytes and name. " +
      "Answers 202 with the document (`status: queued`); follow it at GET /api/rag/documents/{id} or its `/events` stream.",
    request: { body: { required: true, content: { "multipart/form-data": { schema: uploadFormSchema } } } },
    responses: {
      202: { description: "Accepted and queued for ingestion", content: jsonContent(documentSchema) },
      ...errorResponses(400, 401, 404, 409, 413, 415, 422),
    },
  }),
  getDocument: createRoute({
    method: "get",
    path: "/rag/documents/{id}",
    tags,
    summary: "Get a document with its ingestion status and progress",
    request: { params: idParam },
    responses: {
      200: { description: "The document", content: jsonContent(documentSchema) },
      ...errorResponses(401, 404),
    },
  }),
  documentEvents: createRoute({
    method: "get",
    path: "/rag/documents/{id}/events",
    tags,
    summary: "Stream a document's ingestion progress as Server-Sent Events",
    description:
      "Sends a `document` event (the document JSON) at once and on every change of status or progress; the stream ends after `ready` or `failed`.",
    request: { params: idParam },
    responses: {
      200: { description: "An event stream", content: { "text/event-stream": { schema: z.string() } } },
      ...errorResponses(401, 404),
    },
  }),
  listChunks: createRoute({
    method: "get",
    path: "/rag/documents/{id}/chunks",
    tags,
    summary: "List a document's chunks in document order",
    request: { params: idParam, query: chunkListQuery },
    responses: {
      200: {
        description: "A page of chunks",
        content: jsonContent(listOf(chunkSchema).openapi("KnowledgeChunkList")),
      },
      ...errorResponses(401, 404, 422),
    },
  }),
  deleteDocument: createRoute({
    method: "delete",
    path: "/rag/documents/{id}",
    tags,
    summary: "Delete a document with its chunks and file",
    request: { params: idParam },
    responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
  }),
};

/**
 * Knowledge bases and documents under /api: CRUD, search, the streamed upload and ingestion progress.
 *
 * @example app.route("/api", knowledgeRoutes(deps, { storage, worker, events }));
 */
export function knowledgeRoutes(
  deps: Deps,
  {
    storage,
    worker,
    events,
  }: { storage: Storage; worker: Pick<IngestionWorker, "wake">; events: ProgressEvents },
) {
  const router = createRouter<AppEnv>();

  router.openapi(routes.createBase, async (c) => {
    const row = await createKnowledgeBase(deps, c.get("principal").workspaceId, c.req.valid("json"));
    return c.json(toKnowledgeBaseJson(row), 201);
  });
  router.openapi(routes.listBases, async (c) => {
    const query = c.req.valid("query");
    const rows = await listKnowledgeBases(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toKnowledgeBaseJson), 200);
  });
  router.openapi(routes.getBase, async (c) => {
    const row = await findKnowledgeBase(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw KnowledgeErrors.KNOWLEDGE_BASE_NOT_FOUND();
    return c.json(toKnowledgeBaseJson(row), 200);
  });
  router.openapi(routes.deleteBase, async (c) => {
    const isDeleted = await deleteKnowledgeBase(
      { db: deps.db, clock: deps.clock, storage, logger: deps.logger },
      c.get("principal").workspaceId,
      c.req.valid("param").id,
    );
    if (!isDeleted) throw KnowledgeErrors.KNOWLEDGE_BASE_NOT_FOUND();
    return c.body(null, 204);
  });
  router.openapi(routes.listDocuments, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const base = await findKnowledgeBase(deps.db, workspaceId, c.req.valid("param").id);
    if (!base) throw KnowledgeErrors.KNOWLEDGE_BASE_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listDocuments(deps.db, workspaceId, base.id, query);
    return c.json(toPage(rows, query.limit, toDocumentJson), 200);
  });
  router.openapi(routes.search, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const base = await findKnowledgeBase(deps.db, workspaceId, c.req.valid("param").id);
    if (!base) throw KnowledgeErrors.KNOWLEDGE_BASE_NOT_FOUND();
    const body = c.req.valid("json");
    const { mode, hits, reranked, maxScore } = await searchKnowledge(deps, workspaceId, {
      knowledgeBaseIds: [base.id],
      query: body.query,
      topK: body.top_k,
      mode: body.mode,
      minScore: body.min_score,
    });
    return c.json(
      {
        mode,
        reranked,
        max_score: maxScore,
        data: hits.map((hit) => ({
          chunk_id: hit.chunkId,
          document_id: hit.documentId,
          document_name: hit.documentName,
          knowledge_base_id: hit.knowledgeBaseId,
          position: hit.position,
          page: hit.page,
          heading_path: hit.headingPath,
          text: hit.text,
          score: hit.score,
        })),
      },
      200,
    );
  });

  // Documented from the same schema as the others, but not validated by zod-openapi: its form
  // validator would buffer the whole body (c.req.parseBody), and uploads must stream.
  router.openAPIRegistry.registerPath(routes.upload);
  router.post(routes.upload.path, async (c) => {
    const length = Number(c.req.header("content-length"));
    const row = await uploadDocument(
      { db: deps.db, clock: deps.clock, storage, maxUploadBytes: deps.config.ragMaxUploadBytes },
      c.get("principal").workspaceId,
      {
        body: c.req.raw.body,
        contentType: c.req.header("content-type"),
        contentLength: Number.isFinite(length) ? length : undefined,
      },
    );
    worker.wake();
    return c.json(toDocumentJson(row), 202);
  });

  router.openapi(routes.getDocument, async (c) => {
    const row = await findDocument(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw KnowledgeErrors.DOCUMENT_NOT_FOUND();
    return c.json(toDocumentJson(row), 200);
  });
  router.openapi(routes.documentEvents, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const first = await findDocument(deps.db, workspaceId, c.req.valid("param").id);
    if (!first) throw KnowledgeErrors.DOCUMENT_NOT_FOUND();
    const requestId = c.get("requestId");
    return eventStream(
      c,
      (stream, signal) => streamDocumentProgress({ db: deps.db, events }, workspaceId, first, stream, signal),
      (error) => deps.logger.error({ request_id: requestId, err: error }, "document event stream failed"),
    );
  });
  router.openapi(routes.listChunks, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const document = await findDocument(deps.db, workspaceId, c.req.valid("param").id);
    if (!document) throw KnowledgeErrors.DOCUMENT_NOT_FOUND();
    const query = c.req.valid("query");
    const rows = await listChunks(deps.db, workspaceId, document.id, {
      limit: query.limit,
      afterPosition: query.cursor === undefined ? undefined : Number(query.cursor),
    });
    const hasMore = rows.length > query.limit;
    const page = hasMore ? rows.slice(0, query.limit) : rows;
    return c.json(
      {
        data: page.map(toChunkJson),
        has_more: hasMore,
        // Chunks are listed in document order, so the cursor is the last position rather than an id.
        next_cursor: hasMore ? String(page.at(-1)?.position ?? "") : null,
      },
      200,
    );
  });
  router.openapi(routes.deleteDocument, async (c) => {
    const isDeleted = await deleteDocument(
      { db: deps.db, clock: deps.clock, storage, logger: deps.logger },
      c.get("principal").workspaceId,
      c.req.valid("param").id,
    );
    if (!isDeleted) throw KnowledgeErrors.DOCUMENT_NOT_FOUND();
    return c.body(null, 204);
  });
  return router;
}
