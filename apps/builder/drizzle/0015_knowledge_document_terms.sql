-- Each ready document's postings summed per term (src/knowledge/lexical-index.ts): search reads a
-- term's document and chunk frequencies, the document-level BM25 and MaxScore's per-document bound
-- from a row per document instead of re-summing the term's chunk postings (tens of thousands for a
-- common word at 100k chunks). The primary key INCLUDEs every column, for index-only reads.
CREATE TABLE "knowledge_document_terms" (
	"knowledge_base_id" text NOT NULL,
	"term" text NOT NULL,
	"document_id" text NOT NULL,
	"frequency" real NOT NULL,
	"chunk_count" integer NOT NULL,
	"max_frequency" real NOT NULL,
	"min_length" real NOT NULL,
	"document_length" real NOT NULL,
	CONSTRAINT "knowledge_document_terms_knowledge_base_id_term_document_id_pk" PRIMARY KEY("knowledge_base_id","term","document_id") INCLUDE ("frequency", "chunk_count", "max_frequency", "min_length", "document_length")
);
--> statement-breakpoint
CREATE INDEX "knowledge_document_terms_document_idx" ON "knowledge_document_terms" USING btree ("document_id");--> statement-breakpoint
INSERT INTO knowledge_document_terms (knowledge_base_id, term, document_id, frequency, chunk_count, max_frequency, min_length, document_length)
SELECT knowledge_base_id, term, document_id, sum(frequency), count(*), max(frequency), min(length), max(document_length)
FROM knowledge_terms GROUP BY knowledge_base_id, term, document_id ORDER BY knowledge_base_id, term, document_id;
