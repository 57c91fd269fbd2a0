import { type ModelMessage, modelMessageSchema } from "ai";
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { BuilderDb } from "../db/index.ts";
import type { ConversationRow, MessageRow } from "./conversation-json.ts";
import { conversations, messages } from "./schema.ts";

const storedModelMessages = z.array(modelMessageSchema);

/**
 * The workspace's conversation of this agent with its memory window, in one query (a lateral join
 * of its newest messages), or undefined: the last `turns` turns as model messages, oldest first.
 * An assistant turn replays its stored tool calls and results, so the model remembers what it
 * did; `lastAt` is the newest message's time, which the next turn's messages must sort after.
 *
 * @example const found = await findConversationWithMemory(db, workspaceId, { id, agentId: agent.id }, agent.memoryTurns);
 */
export async function findConversationWithMemory(
  db: BuilderDb,
  workspaceId: string,
  scope: { id: string; agentId: string },
  turns: number,
): Promise<{ conversation: ConversationRow; history: ModelMessage[]; lastAt: Date | null } | undefined> {
  const newest = db
    .select({
      id: messages.id,
      role: messages.role,
      content: messages.content,
      modelMessages: messages.modelMessages,
      createdAt: messages.createdAt,
    })
    .from(messages)
    .where(eq(messages.conversationId, conversations.id))
    .orderBy(desc(messages.id))
    .limit(Math.max(turns * 2, 1))
    .as("memory");
  const joined = await db
    .select({
      conversation: conversations,
      role: newest.role,
      content: newest.content,
      modelMessages: newest.modelMessages,
      createdAt: newest.createdAt,
    })
    .from(conversations)
    .leftJoinLateral(newest, sql`true`)
    .where(
      and(
        eq(conversations.id, scope.id),
        eq(conversations.workspaceId, workspaceId),
        eq(conversations.agentId, scope.agentId),
      ),
    )
    .orderBy(desc(newest.id));
  const conversation = joined[0]?.conversation;
  if (!conversation) return undefined;
  // A conversation without messages joins one row of nulls.
  const rows = joined.filter((row): row is typeof row & MemoryRow => row.role !== null);
  return { conversation, ...memoryWindow(rows, turns) };
}

type MemoryRow = Pick<MessageRow, "role" | "content" | "modelMessages" | "createdAt">;

/** The model messages of a conversation's newest rows (newest first), and the newest row's time. */
function memoryWindow(rows: MemoryRow[], turns: number): { history: ModelMessage[]; lastAt: Date | null } {
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
