import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { ConversationRow } from "./schema.ts";
import { conversations } from "./schema.ts";

/**
 * The workspace's conversation with this id, or undefined.
 *
 * @example const conversation = await findConversation(db, workspaceId, id);
 */
export async function findConversation(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<ConversationRow | undefined> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
