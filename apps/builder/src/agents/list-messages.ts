import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { messages } from "./schema.ts";

/**
 * A conversation's messages, newest first like every list; fetches `limit + 1` rows.
 *
 * @example const rows = await listMessages(db, workspaceId, conversationId, { limit: 50 });
 */
export function listMessages(db: BuilderDb, workspaceId: string, conversationId: string, page: PageRequest) {
  const newest = newestFirst(messages.id, page);
  return db
    .select()
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
}
