import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { conversations } from "./schema.ts";

/**
 * Deletes a conversation and its messages; false when the workspace has none with this id.
 *
 * @example if (!(await deleteConversation(db, workspaceId, id))) throw ChatErrors.CONVERSATION_NOT_FOUND();
 */
export async function deleteConversation(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.workspaceId, workspaceId)))
    .returning({ id: conversations.id });
  return deleted.length > 0;
}
