import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { KnowledgeBaseRow } from "./schema.ts";
import { knowledgeBases } from "./schema.ts";

/**
 * The workspace's knowledge base with this id, or undefined (another workspace's is not found either).
 *
 * @example const kb = await findKnowledgeBase(db, workspaceId, "kb_…");
 */
export async function findKnowledgeBase(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<KnowledgeBaseRow | undefined> {
  const [row] = await db
    .select()
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.id, id), eq(knowledgeBases.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
