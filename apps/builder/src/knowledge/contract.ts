import { z } from "@hono/zod-openapi";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./chunk-text.ts";
import { DEFAULT_EMBEDDING, EMBEDDING_PROVIDERS } from "./embedders.ts";
import { DOCUMENT_FORMATS } from "./formats.ts";
import { SEARCH_LANGUAGES } from "./lexical-index.ts";
import { RERANK_PROVIDERS } from "./rerank.ts";

const rerankSetting = z
  .object({
    provider: z.enum(RERANK_PROVIDERS).openapi({ example: "cohere" }),
    model: z.string().trim().min(1).max(200).openapi({ example: "rerank-v3.5" }),
  })
  .strict()
  .openapi("RerankSetting");

export const DOCUMENT_STATUSES = ["queued", "parsing", "embedding", "ready", "failed"] as const;
export const SEARCH_MODES = ["vector", "fulltext", "hybrid"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** An embedding model: a provider of EMBEDDING_PROVIDERS and its model (knowledge bases, annotation replies). */
export const embeddingSetting = z
  .object({
    provider: z
      .string()
      .refine((value) => (EMBEDDING_PROVIDERS as readonly string[]).includes(value), {
        message: `must be one of ${EMBEDDING_PROVIDERS.join(", ")}`,
      })
      .openapi({ example: "openai", enum: [...EMBEDDING_PROVIDERS] }),
    model: z.string().trim().min(1).max(200).openapi({ example: "text-embedding-3-small" }),
  })
  .strict()
  .openapi("EmbeddingSetting");

export const createKnowledgeBaseBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).default(""),
    embedding: embeddingSetting
      .default({ ...DEFAULT_EMBEDDING })
      .openapi({ description: "Defaults to the offline `local` feature-hashing embedder." }),
    language: z.enum(SEARCH_LANGUAGES).default("english").openapi({
      description:
        "The language of the documents: full-text search stems words and drops stop words with it (`simple`: neither).",
    }),
    rerank: rerankSetting.nullable().default(null).openapi({
      description:
        "Off by default. A provider's rerank model that reorders each search's best `max(4 × top_k, 40)` candidates; `score` is then its relevance (0–1).",
    }),
  })
  .strict()
  .openapi("CreateKnowledgeBaseRequest");
export type CreateKnowledgeBaseInput = z.infer<typeof createKnowledgeBaseBody>;

export const knowledgeBaseSchema = z
  .object({
    id: z.string().openapi({ example: "kb_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    name: z.string(),
    description: z.string(),
    embedding: z.object({
      provider: z.string(),
      model: z.string(),
      dimensions: z
        .number()
        .int()
        .nullable()
        .openapi({ description: "Known once the first document is embedded." }),
    }),
    language: z.enum(SEARCH_LANGUAGES),
    rerank: rerankSetting.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("KnowledgeBase");

export const documentSchema = z
  .object({
    id: z.string().openapi({ example: "doc_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    knowledge_base_id: z.string(),
    name: z.string(),
    format: z.enum(DOCUMENT_FORMATS),
    content_type: z.string(),
    size_bytes: z.number().int(),
    checksum: z.string().openapi({ description: "SHA-256 of the file, hex" }),
    status: z.enum(DOCUMENT_STATUSES),
    progress: z.number().int().min(0).max(100),
    error: z.string().nullable().openapi({ description: "Why ingestion failed, when `status` is `failed`" }),
    chunk_count: z.number().int(),
    page_count: z.number().int().nullable(),
    chunk_size: z.number().int(),
    chunk_overlap: z.number().int(),
    attempts: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("KnowledgeDocument");

export const chunkSchema = z
  .object({
    id: z.string(),
    document_id: z.string(),
    position: z.number().int().openapi({ description: "0-based order of the chunk in its document" }),
    text: z.string(),
    char_start: z.number().int(),
    char_end: z.number().int(),
    page: z.number().int().nullable(),
    heading_path: z.array(z.string()),
    token_count: z.number().int().openapi({ description: "Approximate: characters / 4" }),
  })
  .openapi("KnowledgeChunk");

/** The text fields of an upload; `file` is the multipart file part. */
export const uploadFieldsSchema = z
  .object({
    knowledge_base_id: z.string().min(1).max(64),
    chunk_size: z.coerce
      .number()
      .int()
      .min(50)
      .max(8000)
      .default(DEFAULT_CHUNK_SIZE)
      .openapi({ description: "Tokens per chunk (approximate: 4 characters per token)" }),
    chunk_overlap: z.coerce
      .number()
      .int()
      .min(0)
      .max(4000)
      .default(DEFAULT_CHUNK_OVERLAP)
      .openapi({ description: "Tokens shared by consecutive chunks" }),
  })
  .refine((fields) => fields.chunk_overlap < fields.chunk_size, {
    path: ["chunk_overlap"],
    message: "must be smaller than chunk_size",
  });
export type UploadFields = z.infer<typeof uploadFieldsSchema>;

export const uploadFormSchema = z
  .object({
    file: z.string().openapi({ type: "string", format: "binary", description: "The document" }),
    knowledge_base_id: z.string(),
    chunk_size: z.number().int().optional().openapi({ default: DEFAULT_CHUNK_SIZE }),
    chunk_overlap: z.number().int().optional().openapi({ default: DEFAULT_CHUNK_OVERLAP }),
  })
  .openapi("UploadDocumentForm");

export const searchBody = z
  .object({
    query: z.string().trim().min(1).max(4000),
    top_k: z.number().int().min(1).max(100).default(5),
    mode: z
      .enum(SEARCH_MODES)
      .optional()
      .openapi({ description: "Default `hybrid`, or `fulltext` on a database without pgvector" }),
    min_score: z.number().min(0).optional().openapi({
      description:
        "Drop results scoring below this: cosine similarity (vector), BM25 (fulltext), the fused reciprocal-rank score (hybrid), or the rerank model's relevance when the base has one",
    }),
  })
  .strict()
  .openapi("SearchKnowledgeBaseRequest");
export type SearchInput = z.infer<typeof searchBody>;

export const searchResultSchema = z
  .object({
    chunk_id: z.string(),
    document_id: z.string(),
    document_name: z.string(),
    knowledge_base_id: z.string(),
    position: z.number().int(),
    page: z.number().int().nullable(),
    heading_path: z.array(z.string()),
    text: z.string(),
    score: z.number(),
  })
  .openapi("KnowledgeSearchResult");

export const searchAnswerSchema = z
  .object({
    mode: z.enum(SEARCH_MODES),
    reranked: z.boolean().openapi({ description: "Whether the base's rerank model ordered the results" }),
    max_score: z.number().nullable().openapi({
      description:
        "The highest `score` this search can give, so a score reads on its own: 1 for cosine similarity (vector with a provider model) and a rerank model's relevance; a fused score's (hybrid; vector with the local embedder) when a passage is first in every ranking; null for BM25 (fulltext), which is unbounded",
    }),
    data: z.array(searchResultSchema),
  })
  .openapi("KnowledgeSearchAnswer");
