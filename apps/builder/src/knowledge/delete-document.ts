import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { Storage } from "../storage/storage.ts";
import { deleteDocumentTerms, refreshPlannerStatisticsLater } from "./lexical-index.ts";
import { knowledgeDocuments } from "./schema.ts";

/**
 * Deletes a document, its chunks (by cascade), its postings and its file, then, in the background,
 * refreshes the planner's statistics if that changed the tables enough (a failure there is logged,
 * never the request's). A worker still ingesting it notices at its next write (the row is gone) and
 * stops.
 *
 * @example const isDeleted = await deleteDocument({ db, clock, storage, logger }, workspaceId, "doc_…");
 */
export async function deleteDocument(
  { db, clock, storage, logger }: { db: BuilderDb; clock: Clock; storage: Storage; logger: Logger },
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const deleted = await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(knowledgeDocuments)
      .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.workspaceId, workspaceId)))
      .returning({ storageKey: knowledgeDocuments.storageKey });
    if (row) await deleteDocumentTerms(tx, id);
    return row;
  });
  if (!deleted) return false;
  await storage.delete(deleted.storageKey);
  void refreshPlannerStatisticsLater({ db, clock, logger });
  return true;
}
