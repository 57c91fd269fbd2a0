import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { conversations } from "./schema.ts";

/**
 * An agent's conversations, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listConversations(db, workspaceId, agentId, { limit: 20 });
 */
export function listConversations(
  db: BuilderDb,
  workspaceId: string,
  agentId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  return db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.workspaceId, workspaceId),
        eq(conversations.agentId, agentId),
        page.cursor ? lt(conversations.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(conversations.id))
    .limit(page.limit + 1);
}
