import type { z } from "@hono/zod-openapi";
import type { chunkSchema, documentSchema, knowledgeBaseSchema } from "./contract.ts";
import type { DocumentFormat } from "./formats.ts";
import type { SearchLanguage } from "./lexical-index.ts";
import type { RerankSetting } from "./rerank.ts";
import type { ChunkRow, DocumentRow, KnowledgeBaseRow } from "./schema.ts";

export type DocumentStatus = z.infer<typeof documentSchema>["status"];

export function toKnowledgeBaseJson(row: KnowledgeBaseRow): z.infer<typeof knowledgeBaseSchema> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    embedding: {
      provider: row.embeddingProvider,
      model: row.embeddingModel,
      dimensions: row.embeddingDimensions,
    },
    language: row.language as SearchLanguage,
    rerank:
      row.rerankProvider && row.rerankModel
        ? { provider: row.rerankProvider as RerankSetting["provider"], model: row.rerankModel }
        : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toDocumentJson(row: DocumentRow): z.infer<typeof documentSchema> {
  return {
    id: row.id,
    knowledge_base_id: row.knowledgeBaseId,
    name: row.name,
    format: row.format as DocumentFormat,
    content_type: row.contentType,
    size_bytes: row.sizeBytes,
    checksum: row.checksum,
    status: row.status as DocumentStatus,
    progress: row.progress,
    error: row.error,
    chunk_count: row.chunkCount,
    page_count: row.pageCount,
    chunk_size: row.chunkSize,
    chunk_overlap: row.chunkOverlap,
    attempts: row.attempts,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toChunkJson(row: ChunkRow): z.infer<typeof chunkSchema> {
  return {
    id: row.id,
    document_id: row.documentId,
    position: row.position,
    text: row.text,
    char_start: row.charStart,
    char_end: row.charEnd,
    page: row.page,
    heading_path: row.headingPath,
    token_count: row.tokenCount,
  };
}
