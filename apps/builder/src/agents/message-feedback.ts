import type { Clock } from "@app/core";
import { newestFirst, type PageRequest } from "@app/db";
import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import {
  conversations,
  type MessageFeedbackRow,
  type MessageRow,
  messageFeedback,
  messages,
} from "./schema.ts";

export type FeedbackSource = MessageFeedbackRow["source"];

/** A message with the ratings it has received (at most one per source). */
export type MessageWithFeedback = MessageRow & { feedback: MessageFeedbackRow[] };

/**
 * Rates an assistant answer for `source` (a null rating takes the rating back). With `owner`, only
 * an answer in that end user's own conversation of the app can be rated. Answers false when there
 * is no such answer.
 *
 * @example await rateMessage({ db, clock }, workspaceId, messageId, { source: "user", rating: "like", comment: null }, { appId, endUserId });
 */
export async function rateMessage(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  messageId: string,
  feedback: { source: FeedbackSource; rating: "like" | "dislike" | null; comment: string | null },
  owner?: { appId: string; endUserId: string },
): Promise<boolean> {
  const [message] = await db
    .select({ id: messages.id })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(
      and(
        eq(messages.id, messageId),
        eq(messages.workspaceId, workspaceId),
        eq(messages.role, "assistant"),
        owner ? eq(conversations.appId, owner.appId) : undefined,
        owner ? eq(conversations.endUserId, owner.endUserId) : undefined,
      ),
    )
    .limit(1);
  if (!message) return false;
  const key = and(eq(messageFeedback.messageId, messageId), eq(messageFeedback.source, feedback.source));
  if (feedback.rating === null) {
    await db.delete(messageFeedback).where(key);
    return true;
  }
  const now = clock.now();
  await db
    .insert(messageFeedback)
    .values({
      messageId,
      source: feedback.source,
      workspaceId,
      rating: feedback.rating,
      comment: feedback.comment,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [messageFeedback.messageId, messageFeedback.source],
      set: { rating: feedback.rating, comment: feedback.comment, updatedAt: now },
    });
  return true;
}

/**
 * A conversation's messages with their ratings, newest first (`limit + 1` rows).
 *
 * @example const rows = await listMessagesWithFeedback(db, workspaceId, conversationId, { limit: 50 });
 */
export async function listMessagesWithFeedback(
  db: BuilderDb,
  workspaceId: string,
  conversationId: string,
  page: PageRequest,
): Promise<MessageWithFeedback[]> {
  const newest = newestFirst(messages.id, page);
  const feedback = sql<MessageFeedbackRow[] | null>`(select json_agg(json_build_object(
      'messageId', f.message_id, 'source', f.source, 'workspaceId', f.workspace_id, 'rating', f.rating,
      'comment', f.comment, 'createdAt', f.created_at, 'updatedAt', f.updated_at) order by f.source)
    from ${messageFeedback} f where f.message_id = ${messages.id})`;
  const rows = await db
    .select({ message: messages, feedback })
    .from(messages)
    .where(
      and(
        eq(messages.workspaceId, workspaceId),
        eq(messages.conversationId, conversationId),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
  return rows.map(({ message, feedback: rated }) => ({
    ...message,
    feedback: (rated ?? []).map((row) => ({
      ...row,
      createdAt: new Date(row.createdAt),
      updatedAt: new Date(row.updatedAt),
    })),
  }));
}
