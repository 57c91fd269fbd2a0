import { asc, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { datasetRows } from "./schema.ts";

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
