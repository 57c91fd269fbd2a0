import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

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
    /** The PostgreSQL text-search configuration that stems and drops stop words, e.g. `english`. */
    language: text("language").notNull().default("english"),
    /** An optional second stage: a provider's rerank model reorders the first stage's candidates. */
    rerankProvider: text("rerank_provider"),
    rerankModel: text("rerank_model"),
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
    /** Sum of its chunks' BM25 lengths, set when it becomes ready: the base's average chunk length comes from it. */
    termCount: bigint("term_count", { mode: "number" }).notNull().default(0),
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
  },
  (table) => [
    uniqueIndex("knowledge_chunks_document_position_idx").on(table.documentId, table.position),
    index("knowledge_chunks_base_idx").on(table.knowledgeBaseId),
  ],
);

/**
 * The inverted index BM25 ranks from: one row per (base, stemmed term, chunk) of every `ready`
 * document, written in the transaction that makes the document ready. `frequency` is the term's
 * BM25F frequency in the chunk (body count plus the weighted count in its header: document title
 * and heading path) and `length` the chunk's weighted length, kept on each posting so scoring reads
 * nothing but this table's primary-key index. Document frequencies, chunk counts and average
 * lengths are computed at query time from committed rows, so they are right in every process as
 * documents come and go.
 *
 * The primary key INCLUDEs `frequency`, `length`, `document_id` and `document_length` (migrations 0010
 * and 0012; drizzle cannot say
 * INCLUDE): scoring is then an index-only scan wherever `VACUUM` has marked the pages all-visible,
 * with no visit to the table per posting.
 *
 * Deleting a document deletes its postings by `document_id` in the same transaction, deleting a base
 * by `knowledge_base_id`. There is no foreign key, to the chunk or to the base (migration 0014): a key
 * check is one trigger call per inserted posting, a hundred and more per chunk. To the chunk, with the
 * planner's statistics of a small table, each one read the whole chunk table (minutes per large
 * document); to the base, they were a fifth of the time it takes to index a document.
 */
export const knowledgeTerms = pgTable(
  "knowledge_terms",
  {
    knowledgeBaseId: text("knowledge_base_id").notNull(),
    term: text("term").notNull(),
    chunkId: text("chunk_id").notNull(),
    documentId: text("document_id").notNull(),
    frequency: real("frequency").notNull(),
    length: real("length").notNull(),
    /** The document's length (the sum of its chunks' lengths), for its document-level BM25. */
    documentLength: real("document_length").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.knowledgeBaseId, table.term, table.chunkId] }),
    index("knowledge_terms_document_idx").on(table.documentId),
  ],
);

/**
 * Each ready document's postings summed per term: one row per (base, term, document), written and
 * deleted with the document's postings (`knowledge_terms`), in the same transactions. Search reads it
 * for what would otherwise re-sum a common term's chunk postings: the term's document frequency
 * (rows), its chunk frequency (`chunk_count` summed), the document-level BM25 (`frequency` over
 * `document_length`), and MaxScore's bound on a chunk of the document (`max_frequency` over
 * `min_length`, the highest frequency and shortest chunk among those holding the term). The primary
 * key INCLUDEs every column (migration 0015), so these are index-only reads.
 */
export const knowledgeDocumentTerms = pgTable(
  "knowledge_document_terms",
  {
    knowledgeBaseId: text("knowledge_base_id").notNull(),
    term: text("term").notNull(),
    documentId: text("document_id").notNull(),
    frequency: real("frequency").notNull(),
    chunkCount: integer("chunk_count").notNull(),
    maxFrequency: real("max_frequency").notNull(),
    minLength: real("min_length").notNull(),
    documentLength: real("document_length").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.knowledgeBaseId, table.term, table.documentId] }),
    index("knowledge_document_terms_document_idx").on(table.documentId),
  ],
);

/**
 * What the planner's statistics of the knowledge tables were gathered on (one row): ingestion and
 * deletion compare it with the live counts and run `ANALYZE` once they drifted, since PGlite has no
 * autovacuum and PostgreSQL's runs late and on its own schedule.
 */
export const knowledgeStatistics = pgTable("knowledge_statistics", {
  id: integer("id").primaryKey(),
  readyDocuments: integer("ready_documents").notNull(),
  readyChunks: bigint("ready_chunks", { mode: "number" }).notNull(),
  analyzedAt: timestamp("analyzed_at", { withTimezone: true }).notNull(),
});

export type KnowledgeBaseRow = typeof knowledgeBases.$inferSelect;

export type DocumentRow = typeof knowledgeDocuments.$inferSelect;

export type ChunkRow = typeof knowledgeChunks.$inferSelect;

/**
 * What a search reads at random (chunks with their vector index, postings, statistics): the
 * embedded database's page cache is sized to keep these hot (see `recordHotSet`).
 */
export const knowledgeSearchTables = [
  knowledgeChunks,
  knowledgeTerms,
  knowledgeDocumentTerms,
  knowledgeStatistics,
] as const;
