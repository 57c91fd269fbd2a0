import type { Clock } from "@app/core";
import { and, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type EvaluationResultRow, type EvaluationRow, evaluationResults, evaluations } from "./schema.ts";

/** A row this process now holds, with its evaluation. */
export interface ClaimedResult {
  evaluation: EvaluationRow;
  row: EvaluationResultRow;
}

/**
 * Claims up to `limit` unfinished rows of any evaluation: pending ones, and running ones whose lease
 * ran out (their process stopped or died). Each claim takes `lease_until = now + leaseMs` and the next
 * `attempt`; rows another process is claiming at the same moment are skipped, not waited for, so
 * processes never claim the same row twice.
 *
 * @example const claimed = await claimResults({ db, clock }, { limit: 4, leaseMs: 300_000 });
 */
export async function claimResults(
  { db, clock }: { db: BuilderDb; clock: Clock },
  { limit, leaseMs }: { limit: number; leaseMs: number },
): Promise<ClaimedResult[]> {
  if (limit <= 0) return [];
  const now = clock.now();
  return db.transaction(async (tx) => {
    const open = await tx
      .select({ evaluationId: evaluationResults.evaluationId, position: evaluationResults.position })
      .from(evaluationResults)
      .where(
        or(
          eq(evaluationResults.status, "pending"),
          and(eq(evaluationResults.status, "running"), lt(evaluationResults.leaseUntil, now)),
        ),
      )
      .orderBy(evaluationResults.evaluationId, evaluationResults.position)
      .limit(limit)
      .for("update", { skipLocked: true });
    if (open.length === 0) return [];
    const keys = open.map((key) => sql`(${key.evaluationId}, ${key.position})`);
    const rows = await tx
      .update(evaluationResults)
      .set({
        status: "running",
        attempt: sql`${evaluationResults.attempt} + 1`,
        leaseUntil: new Date(now.getTime() + leaseMs),
      })
      .where(
        sql`(${evaluationResults.evaluationId}, ${evaluationResults.position}) in (${sql.join(keys, sql`, `)})`,
      )
      .returning();
    const parents = await tx
      .select()
      .from(evaluations)
      .where(inArray(evaluations.id, [...new Set(rows.map((row) => row.evaluationId))]));
    const byId = new Map(parents.map((parent) => [parent.id, parent]));
    return rows.flatMap((row) => {
      const evaluation = byId.get(row.evaluationId);
      return evaluation ? [{ evaluation, row }] : [];
    });
  });
}
