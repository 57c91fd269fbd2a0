-- BM25's document-level evidence (a chunk's document's own score, src/knowledge/lexical-index.ts)
-- reads each posting's document and that document's length from the postings' primary key alone,
-- like the rest of scoring: no join to the documents per posting.
ALTER TABLE "knowledge_terms" ADD COLUMN "document_length" real DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE knowledge_terms t SET document_length = d.term_count FROM knowledge_documents d WHERE d.id = t.document_id;--> statement-breakpoint
ALTER TABLE "knowledge_terms" DROP CONSTRAINT "knowledge_terms_knowledge_base_id_term_chunk_id_pk";--> statement-breakpoint
ALTER TABLE "knowledge_terms" ADD CONSTRAINT "knowledge_terms_knowledge_base_id_term_chunk_id_pk" PRIMARY KEY("knowledge_base_id","term","chunk_id") INCLUDE ("frequency", "length", "document_id", "document_length");
