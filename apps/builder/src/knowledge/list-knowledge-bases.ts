import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { knowledgeBases } from "./schema.ts";

/**
 * The workspace's knowledge bases, newest first; fetches `limit + 1` rows for `toPage`.
 *
 * @example const rows = await listKnowledgeBases(db, workspaceId, { limit: 20 });
 */
export function listKnowledgeBases(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  return db
    .select()
    .from(knowledgeBases)
    .where(
      and(
        eq(knowledgeBases.workspaceId, workspaceId),
        page.cursor ? lt(knowledgeBases.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(knowledgeBases.id))
    .limit(page.limit + 1);
}
