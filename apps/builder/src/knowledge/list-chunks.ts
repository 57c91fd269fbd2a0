import { and, asc, eq, gt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { ChunkRow } from "./schema.ts";
import { knowledgeChunks } from "./schema.ts";

/**
 * A document's chunks in document order; the cursor is a position. Fetches `limit + 1` rows.
 *
 * @example const rows = await listChunks(db, workspaceId, "doc_…", { limit: 20 });
 */
export function listChunks(
  db: BuilderDb,
  workspaceId: string,
  documentId: string,
  page: { limit: number; afterPosition?: number | undefined },
): Promise<ChunkRow[]> {
  return db
    .select({
      id: knowledgeChunks.id,
      workspaceId: knowledgeChunks.workspaceId,
      knowledgeBaseId: knowledgeChunks.knowledgeBaseId,
      documentId: knowledgeChunks.documentId,
      position: knowledgeChunks.position,
      text: knowledgeChunks.text,
      charStart: knowledgeChunks.charStart,
      charEnd: knowledgeChunks.charEnd,
      page: knowledgeChunks.page,
      headingPath: knowledgeChunks.headingPath,
      tokenCount: knowledgeChunks.tokenCount,
      dimensions: knowledgeChunks.dimensions,
    })
    .from(knowledgeChunks)
    .where(
      and(
        eq(knowledgeChunks.workspaceId, workspaceId),
        eq(knowledgeChunks.documentId, documentId),
        page.afterPosition === undefined ? undefined : gt(knowledgeChunks.position, page.afterPosition),
      ),
    )
    .orderBy(asc(knowledgeChunks.position))
    .limit(page.limit + 1);
}
