import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { Storage } from "../storage/storage.ts";
import { knowledgeDocuments } from "./schema.ts";

/**
 * Deletes a document, its chunks (by cascade) and its file. A worker still ingesting it notices
 * at its next write (the row is gone) and stops.
 *
 * @example const isDeleted = await deleteDocument({ db, storage }, workspaceId, "doc_…");
 */
export async function deleteDocument(
  { db, storage }: { db: BuilderDb; storage: Storage },
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const [deleted] = await db
    .delete(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.workspaceId, workspaceId)))
    .returning({ storageKey: knowledgeDocuments.storageKey });
  if (!deleted) return false;
  await storage.delete(deleted.storageKey);
  return true;
}
