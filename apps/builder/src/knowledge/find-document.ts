import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { DocumentRow } from "./schema.ts";
import { knowledgeDocuments } from "./schema.ts";

/**
 * The workspace's document with this id, or undefined.
 *
 * @example const document = await findDocument(db, workspaceId, "doc_…");
 */
export async function findDocument(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<DocumentRow | undefined> {
  const [row] = await db
    .select()
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
