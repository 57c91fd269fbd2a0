import { queryRows } from "@app/db";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";

/** pgvector indexes `vector` columns up to this width; wider embeddings are searched by exact scan. */
export const MAX_INDEXED_DIMENSIONS = 2000;

const columnChecks = new WeakMap<BuilderDb, Promise<boolean>>();
const indexedWidths = new WeakMap<BuilderDb, Set<number>>();

/**
 * Whether this database has the `embedding` column, i.e. pgvector was installed when the
 * migrations ran. Without it ingestion stores chunks for full-text search only.
 *
 * @example if (await hasVectorSupport(db)) { ... }
 */
export function hasVectorSupport(db: BuilderDb): Promise<boolean> {
  let check = columnChecks.get(db);
  if (!check) {
    check = queryRows<{ present: boolean }>(
      db,
      sql`select exists (select 1 from information_schema.columns
          where table_schema = current_schema() and table_name = 'knowledge_chunks' and column_name = 'embedding') as present`,
    ).then((rows) => rows[0]?.present === true);
    columnChecks.set(db, check);
  }
  return check;
}

/**
 * Creates (once) the HNSW cosine index for embeddings of one width. The column has no fixed
 * width, so each width gets a partial expression index over `embedding::vector(N)`; queries must
 * use the same cast and `dimensions = N` filter to be served by it.
 *
 * @example await ensureVectorIndex(db, 384);
 */
export async function ensureVectorIndex(db: BuilderDb, dimensions: number): Promise<void> {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_INDEXED_DIMENSIONS) return;
  let widths = indexedWidths.get(db);
  if (!widths) {
    widths = new Set();
    indexedWidths.set(db, widths);
  }
  if (widths.has(dimensions)) return;
  await db.execute(sql.raw(vectorIndexSql(dimensions)));
  widths.add(dimensions);
}

/**
 * The DDL of the HNSW index for one width: m = 16 (pgvector's default) and ef_construction = 128
 * (twice the default). The better-connected graph finds with fewer candidates the neighbours the
 * default one needs more for (recall and timings in docs/knowledge-bases.md), for twice the work
 * per inserted chunk. An index already created keeps the parameters it was built with.
 */
export function vectorIndexSql(dimensions: number): string {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_INDEXED_DIMENSIONS) {
    throw new Error(`no vector index for ${dimensions} dimensions`);
  }
  // The width is an integer checked above, so inlining it into DDL is safe (DDL takes no parameters).
  return (
    `CREATE INDEX IF NOT EXISTS knowledge_chunks_embedding_${dimensions}_idx ON knowledge_chunks ` +
    `USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WITH (ef_construction = 128) ` +
    `WHERE dimensions = ${dimensions}`
  );
}
