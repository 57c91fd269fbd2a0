import { containsText, newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
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
  page: PageRequest,
) {
  const newest = newestFirst(knowledgeDocuments.id, page);
  return db
    .select()
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.workspaceId, workspaceId),
        eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
        containsText([knowledgeDocuments.name], page.q),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
