import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type EvaluationRow, evaluations } from "./schema.ts";

/**
 * The workspace's evaluations, newest first, a page at a time; `targetId` keeps one agent's or workflow's.
 *
 * @example const rows = await listEvaluations(db, workspaceId, { limit: 20 });
 */
export function listEvaluations(
  db: BuilderDb,
  workspaceId: string,
  page: PageRequest & { targetId?: string | undefined },
): Promise<EvaluationRow[]> {
  const newest = newestFirst(evaluations.id, page);
  return db
    .select()
    .from(evaluations)
    .where(
      and(
        eq(evaluations.workspaceId, workspaceId),
        page.targetId ? eq(evaluations.targetId, page.targetId) : undefined,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
