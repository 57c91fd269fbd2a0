import { type ModelMessage, modelMessageSchema } from "ai";
import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { BuilderDb } from "../db/index.ts";
import { messages } from "./schema.ts";

const storedModelMessages = z.array(modelMessageSchema);

/**
 * The last `turns` turns of a conversation as model messages, oldest first. An assistant turn
 * replays its stored tool calls and results, so the model remembers what it did; `lastAt` is
 * the newest message's time, which the next turn's messages must sort after.
 *
 * @example const { history } = await loadMemory(db, conversationId, agent.memoryTurns);
 */
export async function loadMemory(
  db: BuilderDb,
  conversationId: string,
  turns: number,
): Promise<{ history: ModelMessage[]; lastAt: Date | null }> {
  const rows = await db
    .select({
      role: messages.role,
      content: messages.content,
      modelMessages: messages.modelMessages,
      createdAt: messages.createdAt,
    })
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(desc(messages.id))
    .limit(Math.max(turns * 2, 1));
  const lastAt = rows[0]?.createdAt ?? null;
  if (turns === 0) return { history: [], lastAt };
  const ordered = rows.reverse();
  // A window that starts on an assistant row would answer a question the model never sees.
  while (ordered[0] && ordered[0].role !== "user") ordered.shift();
  const history: ModelMessage[] = [];
  for (const row of ordered) {
    if (row.role === "user") {
      history.push({ role: "user", content: row.content });
      continue;
    }
    const parsed = storedModelMessages.safeParse(row.modelMessages);
    if (parsed.success && parsed.data.length > 0) history.push(...parsed.data);
    else history.push({ role: "assistant", content: row.content });
  }
  return { history, lastAt };
}
