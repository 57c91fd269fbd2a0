import { type SQL, sql } from "drizzle-orm";
import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

/** PostgreSQL's full-text document type; drizzle has none, and we only ever write it through SQL. */
const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * A knowledge base: documents sharing one embedding setting. `embedding_dimensions` is recorded
 * from the first embedding, because a provider model's width is only known once it answers.
 */
export const knowledgeBases = pgTable(
  "knowledge_bases",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    embeddingProvider: text("embedding_provider").notNull(),
    embeddingModel: text("embedding_model").notNull(),
    embeddingDimensions: integer("embedding_dimensions"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("knowledge_bases_workspace_idx").on(table.workspaceId, table.id)],
);

/**
 * An uploaded file and its ingestion job: the worker claims rows whose lease is free and whose
 * `next_attempt_at` has come, so the table is the queue and survives restarts.
 */
export const knowledgeDocuments = pgTable(
  "knowledge_documents",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    knowledgeBaseId: text("knowledge_base_id")
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    format: text("format").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    checksum: text("checksum").notNull(),
    storageKey: text("storage_key").notNull(),
    status: text("status").notNull(),
    progress: integer("progress").notNull().default(0),
    error: text("error"),
    chunkSize: integer("chunk_size").notNull(),
    chunkOverlap: integer("chunk_overlap").notNull(),
    chunkCount: integer("chunk_count").notNull().default(0),
    pageCount: integer("page_count"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("knowledge_documents_base_idx").on(table.workspaceId, table.knowledgeBaseId, table.id),
    uniqueIndex("knowledge_documents_checksum_idx").on(table.knowledgeBaseId, table.checksum),
    index("knowledge_documents_queue_idx").on(table.status, table.nextAttemptAt),
  ],
);

/**
 * A passage of a document. The `embedding vector` column (no fixed width, with `dimensions`
 * beside it) is added by a custom migration only where pgvector is installed, so it is not
 * declared here; code touches it through SQL.
 */
export const knowledgeChunks = pgTable(
  "knowledge_chunks",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    knowledgeBaseId: text("knowledge_base_id")
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: "cascade" }),
    documentId: text("document_id")
      .notNull()
      .references(() => knowledgeDocuments.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    text: text("text").notNull(),
    charStart: integer("char_start").notNull(),
    charEnd: integer("char_end").notNull(),
    page: integer("page"),
    headingPath: jsonb("heading_path").$type<string[]>().notNull().default([]),
    tokenCount: integer("token_count").notNull(),
    dimensions: integer("dimensions"),
    searchVector: tsvector("search_vector")
      .notNull()
      .generatedAlwaysAs((): SQL => sql`to_tsvector('english'::regconfig, ${knowledgeChunks.text})`),
  },
  (table) => [
    uniqueIndex("knowledge_chunks_document_position_idx").on(table.documentId, table.position),
    index("knowledge_chunks_base_idx").on(table.knowledgeBaseId),
    index("knowledge_chunks_search_idx").using("gin", table.searchVector),
  ],
);
