-- pgvector is optional: on a server without it the builder still runs and knowledge bases answer
-- full-text search only. Where it is available the extension and the embedding column are created.
-- The column has no fixed width because each knowledge base's model decides it; HNSW indexes are
-- created per width on demand (see src/knowledge/vector-index.ts), as partial expression indexes.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
    EXECUTE 'ALTER TABLE "knowledge_chunks" ADD COLUMN IF NOT EXISTS "embedding" vector';
  END IF;
END
$$;
