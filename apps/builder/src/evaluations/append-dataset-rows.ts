import { and, eq, sql, TransactionRollbackError } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type DatasetRowInput, MAX_DATASET_ROWS } from "./contract.ts";
import { type DatasetRow, datasetRows, datasets } from "./schema.ts";

/**
 * Adds rows after a dataset's last one. The update that grows `row_count` locks the dataset, so two
 * imports at once take distinct positions. "too_large" when the dataset would pass its limit (nothing
 * is added); undefined when the workspace has no such dataset.
 *
 * @example const result = await appendDatasetRows(db, workspaceId, datasetId, rows);
 */
export async function appendDatasetRows(
  db: BuilderDb,
  workspaceId: string,
  datasetId: string,
  rows: DatasetRowInput[],
): Promise<DatasetRow | "too_large" | undefined> {
  return db
    .transaction(async (tx) => {
      const [dataset] = await tx
        .update(datasets)
        .set({ rowCount: sql`${datasets.rowCount} + ${rows.length}` })
        .where(and(eq(datasets.id, datasetId), eq(datasets.workspaceId, workspaceId)))
        .returning();
      if (!dataset) return undefined;
      if (dataset.rowCount > MAX_DATASET_ROWS) {
        tx.rollback();
      }
      const first = dataset.rowCount - rows.length + 1;
      if (rows.length > 0) {
        await tx.insert(datasetRows).values(
          rows.map((row, index) => ({
            datasetId,
            position: first + index,
            input: row.input ?? null,
            inputs: row.inputs ?? null,
            expected: row.expected ?? null,
          })),
        );
      }
      return dataset;
    })
    .catch((error: unknown) => {
      if (error instanceof TransactionRollbackError) return "too_large" as const;
      throw error;
    });
}
