import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { knowledgeDocuments } from "./schema.ts";

/**
 * A knowledge base's documents, newest first; fetches `limit + 1` rows for `toPage`.
 *
 * @example const rows = await listDocuments(db, workspaceId, "kb_…", { limit: 20 });
 */
export function listDocuments(
  db: BuilderDb,
  workspaceId: string,
  knowledgeBaseId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  return db
    .select()
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.workspaceId, workspaceId),
        eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
        page.cursor ? lt(knowledgeDocuments.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(knowledgeDocuments.id))
    .limit(page.limit + 1);
}
