import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { datasets } from "./schema.ts";

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
