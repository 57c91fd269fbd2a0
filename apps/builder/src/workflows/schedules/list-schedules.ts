import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { workflowSchedules } from "./schema.ts";

/**
 * A workflow's schedules, newest first, a page at a time.
 *
 * @example const rows = await listSchedules(db, workspaceId, workflowId, { limit: 20 });
 */
export function listSchedules(db: BuilderDb, workspaceId: string, workflowId: string, page: PageRequest) {
  const newest = newestFirst(workflowSchedules.id, page);
  return db
    .select()
    .from(workflowSchedules)
    .where(
      and(
        eq(workflowSchedules.workspaceId, workspaceId),
        eq(workflowSchedules.workflowId, workflowId),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
