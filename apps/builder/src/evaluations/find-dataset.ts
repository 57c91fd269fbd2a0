import { newestFirst, type PageRequest } from "@app/db";
import { and, asc, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { datasetRows, datasets } from "./schema.ts";

/**
 * The workspace's dataset, or undefined.
 *
 * @example const dataset = await findDataset(db, workspaceId, "ds_…");
 */
export async function findDataset(db: BuilderDb, workspaceId: string, id: string) {
  const [row] = await db
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, id), eq(datasets.workspaceId, workspaceId)));
  return row;
}

/**
 * A dataset's rows in order.
 *
 * @example const rows = await listDatasetRows(db, dataset.id);
 */
export function listDatasetRows(db: BuilderDb, datasetId: string) {
  return db
    .select()
    .from(datasetRows)
    .where(eq(datasetRows.datasetId, datasetId))
    .orderBy(asc(datasetRows.position));
}

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

/**
 * Deletes the workspace's dataset with its rows; false when there was none. Evaluations of it stay
 * (they copied their rows).
 *
 * @example const isDeleted = await deleteDataset(db, workspaceId, "ds_…");
 */
export async function deleteDataset(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(datasets)
    .where(and(eq(datasets.id, id), eq(datasets.workspaceId, workspaceId)))
    .returning({ id: datasets.id });
  return deleted.length > 0;
}
