import { containsText, newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { knowledgeBases } from "./schema.ts";

/**
 * The workspace's knowledge bases, newest first; fetches `limit + 1` rows for `toPage`.
 *
 * @example const rows = await listKnowledgeBases(db, workspaceId, { limit: 20 });
 */
export function listKnowledgeBases(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(knowledgeBases.id, page);
  return db
    .select()
    .from(knowledgeBases)
    .where(
      and(
        eq(knowledgeBases.workspaceId, workspaceId),
        containsText([knowledgeBases.name, knowledgeBases.description], page.q),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
