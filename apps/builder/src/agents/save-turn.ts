import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { MessageRow } from "./conversation-json.ts";
import { conversations, messages } from "./schema.ts";

export type NewMessage = typeof messages.$inferInsert;

/**
 * Stores a finished turn: the user's message and the agent's answer in one insert, so memory
 * never sees half a turn.
 *
 * @example const [user, assistant] = await saveTurn(db, conversationId, userMessage, assistantMessage);
 */
export async function saveTurn(
  db: BuilderDb,
  conversationId: string,
  user: NewMessage,
  assistant: NewMessage,
): Promise<[MessageRow, MessageRow]> {
  const rows = await db.insert(messages).values([user, assistant]).returning();
  await db
    .update(conversations)
    .set({ updatedAt: assistant.createdAt })
    .where(eq(conversations.id, conversationId));
  const [savedUser, savedAssistant] = rows;
  if (!savedUser || !savedAssistant) throw new Error("insert returned no rows");
  return [savedUser, savedAssistant];
}
