import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { datasets } from "./schema.ts";

/**
 * The workspace's datasets, newest first, a page at a time.
 *
 * @example const rows = await listDatasets(db, workspaceId, { limit: 20 });
 */
export function listDatasets(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(datasets.id, page);
  return db
    .select()
    .from(datasets)
    .where(and(eq(datasets.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
