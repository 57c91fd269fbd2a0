import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { conversations } from "./schema.ts";

/**
 * An agent's conversations, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listConversations(db, workspaceId, agentId, { limit: 20 });
 */
export function listConversations(db: BuilderDb, workspaceId: string, agentId: string, page: PageRequest) {
  const newest = newestFirst(conversations.id, page);
  return db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.workspaceId, workspaceId),
        eq(conversations.agentId, agentId),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
