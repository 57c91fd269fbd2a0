import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { Storage } from "../storage/storage.ts";
import { deleteBaseTerms, refreshPlannerStatisticsLater } from "./lexical-index.ts";
import { knowledgeBases, knowledgeDocuments } from "./schema.ts";

/**
 * Deletes a knowledge base with its documents, chunks (by cascade), postings and stored files. Rows go
 * first: a file left behind by a crash between the two steps is garbage, while a row pointing at
 * a deleted file would be a broken document.
 *
 * @example const isDeleted = await deleteKnowledgeBase({ db, clock, storage, logger }, workspaceId, "kb_…");
 */
export async function deleteKnowledgeBase(
  { db, clock, storage, logger }: { db: BuilderDb; clock: Clock; storage: Storage; logger: Logger },
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const files = await db
    .select({ storageKey: knowledgeDocuments.storageKey })
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.knowledgeBaseId, id), eq(knowledgeDocuments.workspaceId, workspaceId)));
  const isDeleted = await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(knowledgeBases)
      .where(and(eq(knowledgeBases.id, id), eq(knowledgeBases.workspaceId, workspaceId)))
      .returning({ id: knowledgeBases.id });
    if (deleted.length === 0) return false;
    // After the base: its documents' cascade waits for a ready transaction holding one of them, so
    // the postings that transaction commits are there to delete.
    await deleteBaseTerms(tx, id);
    return true;
  });
  if (!isDeleted) return false;
  for (const file of files) await storage.delete(file.storageKey);
  // Statistics in the background: a failure there is logged, never the request's.
  void refreshPlannerStatisticsLater({ db, clock, logger });
  return true;
}
