import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { evaluationResults } from "./schema.ts";

/**
 * Puts this process's running rows back to pending: at start-up of the only process on its database
 * (its last stop cut them off), or at stop, so another process takes them without waiting for the lease.
 *
 * @example await releaseResults(db, [{ evaluationId, position, attempt }]);
 */
export async function releaseResults(
  db: BuilderDb,
  rows: { evaluationId: string; position: number; attempt: number }[] | "all",
): Promise<void> {
  if (rows === "all") {
    await db
      .update(evaluationResults)
      .set({ status: "pending", leaseUntil: null })
      .where(eq(evaluationResults.status, "running"));
    return;
  }
  if (rows.length === 0) return;
  await db
    .update(evaluationResults)
    .set({ status: "pending", leaseUntil: null })
    .where(
      and(
        eq(evaluationResults.status, "running"),
        sql`(${evaluationResults.evaluationId}, ${evaluationResults.position}, ${evaluationResults.attempt}) in (${sql.join(
          rows.map((row) => sql`(${row.evaluationId}, ${row.position}::int, ${row.attempt}::int)`),
          sql`, `,
        )})`,
      ),
    );
}
