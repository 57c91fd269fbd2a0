import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { datasets } from "./schema.ts";

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
