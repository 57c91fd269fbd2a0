import type { DatasetItemRow, DatasetRow } from "./schema.ts";

/**
 * A dataset as the API answers it; with `rows` on GET of one.
 *
 * @example return c.json(toDatasetJson(row, items), 200);
 */
export function toDatasetJson(row: DatasetRow, items?: DatasetItemRow[]) {
  return {
    id: row.id,
    object: "dataset" as const,
    name: row.name,
    row_count: row.rowCount,
    created_at: row.createdAt.toISOString(),
    ...(items
      ? {
          rows: items.map((item) => ({
            position: item.position,
            input: item.input,
            inputs: item.inputs,
            expected: item.expected,
          })),
        }
      : {}),
  };
}
