CREATE TABLE "knowledge_statistics" (
	"id" integer PRIMARY KEY NOT NULL,
	"ready_documents" integer NOT NULL,
	"ready_chunks" bigint NOT NULL,
	"analyzed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_terms" (
	"knowledge_base_id" text NOT NULL,
	"term" text NOT NULL,
	"chunk_id" text NOT NULL,
	"document_id" text NOT NULL,
	"frequency" real NOT NULL,
	"length" real NOT NULL,
	CONSTRAINT "knowledge_terms_knowledge_base_id_term_chunk_id_pk" PRIMARY KEY("knowledge_base_id","term","chunk_id") INCLUDE ("frequency", "length")
);
--> statement-breakpoint
DROP INDEX "knowledge_chunks_search_idx";--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "language" text DEFAULT 'english' NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "rerank_provider" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "rerank_model" text;--> statement-breakpoint
ALTER TABLE "knowledge_documents" ADD COLUMN "term_count" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_terms" ADD CONSTRAINT "knowledge_terms_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_terms_document_idx" ON "knowledge_terms" USING btree ("document_id");--> statement-breakpoint
ALTER TABLE "knowledge_chunks" DROP COLUMN "search_vector";--> statement-breakpoint
-- Backfill: the postings of documents already ready, as indexDocumentTerms (src/knowledge/lexical-index.ts) writes them.
WITH source AS (
  SELECT c.id, c.document_id, c.knowledge_base_id, b.language::regconfig AS config, c.text,
    regexp_replace(regexp_replace(d.name, '\.[^.]*$', ''), '[_.-]+', ' ', 'g') || ' ' ||
      coalesce((SELECT string_agg(h, ' ') FROM jsonb_array_elements_text(c.heading_path) h), '') AS header
  FROM knowledge_chunks c
  JOIN knowledge_documents d ON d.id = c.document_id
  JOIN knowledge_bases b ON b.id = c.knowledge_base_id
  WHERE d.status = 'ready'
),
counted AS (
  SELECT s.id, s.document_id, s.knowledge_base_id, u.lexeme, array_length(u.positions, 1)::real AS frequency
  FROM source s, unnest(to_tsvector(s.config, s.text)) u
  UNION ALL
  SELECT s.id, s.document_id, s.knowledge_base_id, u.lexeme, 2::real * array_length(u.positions, 1)
  FROM source s, unnest(to_tsvector(s.config, s.header)) u
),
per_term AS (
  SELECT id, document_id, knowledge_base_id, lexeme, sum(frequency)::real AS frequency FROM counted GROUP BY 1, 2, 3, 4
)
INSERT INTO knowledge_terms (knowledge_base_id, term, chunk_id, document_id, frequency, length)
SELECT knowledge_base_id, lexeme, id, document_id, frequency, sum(frequency) OVER (PARTITION BY id)::real FROM per_term;--> statement-breakpoint
UPDATE knowledge_documents d SET term_count = totals.total
FROM (
  SELECT document_id, sum(length) AS total
  FROM (SELECT DISTINCT document_id, chunk_id, length FROM knowledge_terms) per_chunk
  GROUP BY document_id
) totals
WHERE totals.document_id = d.id;