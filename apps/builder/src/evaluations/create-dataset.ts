import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { DatasetRowInput } from "./contract.ts";
import { type DatasetRow, datasetRows, datasets } from "./schema.ts";

/**
 * Stores a new dataset with its rows (positions 1, 2, 3…) in one transaction.
 *
 * @example const dataset = await createDataset({ db, clock }, workspaceId, { name: "FAQ", rows: [{ input: "Hi", expected: "Hello" }] });
 */
export async function createDataset(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  input: { name: string; rows: DatasetRowInput[] },
): Promise<DatasetRow> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [dataset] = await tx
      .insert(datasets)
      .values({
        id: newId("ds", now.getTime()),
        workspaceId,
        name: input.name,
        rowCount: input.rows.length,
        createdAt: now,
      })
      .returning();
    if (!dataset) throw new Error("dataset insert returned no row");
    if (input.rows.length > 0) {
      await tx.insert(datasetRows).values(
        input.rows.map((row, index) => ({
          datasetId: dataset.id,
          position: index + 1,
          input: row.input ?? null,
          inputs: row.inputs ?? null,
          expected: row.expected ?? null,
        })),
      );
    }
    return dataset;
  });
}
