import { and, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { BuilderDb } from "../db/index.ts";
import { messages } from "./schema.ts";

/** A question of a conversation and the answer that followed it. */
export interface QuestionAnswer {
  messageId: string;
  question: string;
  answer: string | null;
}

/**
 * For each of the workspace's messages named: a user message with the assistant's answer after it, or
 * an assistant message with the user's question before it. Ids the workspace does not have are left
 * out, so the caller can tell which ones were missing.
 *
 * @example const pairs = await questionAnswerPairs(db, workspaceId, ["msg_…"]);
 */
export async function questionAnswerPairs(
  db: BuilderDb,
  workspaceId: string,
  messageIds: string[],
): Promise<QuestionAnswer[]> {
  if (messageIds.length === 0) return [];
  // Aliased and named in the subqueries by hand: they read the same table, and drizzle leaves the
  // outer columns unqualified there, which would mean the subquery's own.
  const m = alias(messages, "m");
  const rows = await db
    .select({
      id: m.id,
      role: m.role,
      content: m.content,
      next: sql<
        string | null
      >`(select n.content from ${messages} n where n.conversation_id = m.conversation_id
        and n.id > m.id and n.role = 'assistant' order by n.id limit 1)`,
      previous: sql<
        string | null
      >`(select p.content from ${messages} p where p.conversation_id = m.conversation_id
        and p.id < m.id and p.role = 'user' order by p.id desc limit 1)`,
    })
    .from(m)
    .where(and(eq(m.workspaceId, workspaceId), inArray(m.id, messageIds)));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const pairs: QuestionAnswer[] = [];
  for (const id of messageIds) {
    const row = byId.get(id);
    if (!row) continue;
    if (row.role === "user") pairs.push({ messageId: id, question: row.content, answer: row.next });
    else if (row.previous !== null)
      pairs.push({ messageId: id, question: row.previous, answer: row.content });
  }
  return pairs;
}
