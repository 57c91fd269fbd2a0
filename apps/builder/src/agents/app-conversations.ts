import { newestFirst, type PageRequest } from "@app/db";
import { and, eq, exists, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type ConversationRow, conversations, messageFeedback, messages } from "./schema.ts";

/** Which of an app's conversations: one end user's, and those holding an answer rated so. */
export interface AppConversationFilter {
  appId: string;
  endUserId?: string | undefined;
  rating?: "like" | "dislike" | undefined;
}

/**
 * An app's conversations, newest first (`limit + 1` rows): an end user's own list in the public
 * API, or the team's view of the app filtered by end user and rating.
 *
 * @example const rows = await listAppConversations(db, workspaceId, { appId, endUserId }, { limit: 20 });
 */
export function listAppConversations(
  db: BuilderDb,
  workspaceId: string,
  filter: AppConversationFilter,
  page: PageRequest,
): Promise<ConversationRow[]> {
  const newest = newestFirst(conversations.id, page);
  const rated = filter.rating
    ? exists(
        db
          .select({ one: sql`1` })
          .from(messageFeedback)
          .innerJoin(messages, eq(messages.id, messageFeedback.messageId))
          .where(
            and(eq(messages.conversationId, conversations.id), eq(messageFeedback.rating, filter.rating)),
          ),
      )
    : undefined;
  return db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.workspaceId, workspaceId),
        eq(conversations.appId, filter.appId),
        filter.endUserId === undefined ? undefined : eq(conversations.endUserId, filter.endUserId),
        rated,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/**
 * The end user's own conversation in the app, or undefined (another end user's is not found).
 *
 * @example const conversation = await findEndUserConversation(db, workspaceId, id, { appId, endUserId });
 */
export async function findEndUserConversation(
  db: BuilderDb,
  workspaceId: string,
  id: string,
  owner: { appId: string; endUserId: string },
): Promise<ConversationRow | undefined> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.id, id),
        eq(conversations.workspaceId, workspaceId),
        eq(conversations.appId, owner.appId),
        eq(conversations.endUserId, owner.endUserId),
      ),
    )
    .limit(1);
  return row;
}
