import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { messages } from "./schema.ts";

/**
 * A conversation's messages, newest first like every list; fetches `limit + 1` rows.
 *
 * @example const rows = await listMessages(db, workspaceId, conversationId, { limit: 50 });
 */
export function listMessages(
  db: BuilderDb,
  workspaceId: string,
  conversationId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  return db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.workspaceId, workspaceId),
        eq(messages.conversationId, conversationId),
        page.cursor ? lt(messages.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(messages.id))
    .limit(page.limit + 1);
}
