import { inArray, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { evaluationResults } from "./schema.ts";

/** An evaluation's progress and totals, summed from its rows. */
export interface EvaluationTotals {
  rowsDone: number;
  meanScore: number | null;
  credits: number;
  meanLatencyMs: number | null;
}

/**
 * Each evaluation's totals from its finished rows: a row counts once, however many attempts it took.
 *
 * @example const totals = await evaluationTotals(db, ["eval_…"]);
 */
export async function evaluationTotals(db: BuilderDb, ids: string[]): Promise<Map<string, EvaluationTotals>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({
      id: evaluationResults.evaluationId,
      rowsDone: sql<number>`count(*) filter (where ${evaluationResults.status} in ('succeeded', 'failed'))::int`,
      meanScore: sql<
        number | null
      >`avg(${evaluationResults.score}) filter (where ${evaluationResults.status} in ('succeeded', 'failed'))::float8`,
      credits: sql<number>`coalesce(sum(${evaluationResults.credits}), 0)::int`,
      meanLatencyMs: sql<number | null>`avg(${evaluationResults.latencyMs})::float8`,
    })
    .from(evaluationResults)
    .where(inArray(evaluationResults.evaluationId, ids))
    .groupBy(evaluationResults.evaluationId);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        rowsDone: Number(row.rowsDone),
        meanScore: row.meanScore === null ? null : Number(row.meanScore),
        credits: Number(row.credits),
        meanLatencyMs: row.meanLatencyMs === null ? null : Math.round(Number(row.meanLatencyMs)),
      },
    ]),
  );
}
