import { newestFirst, type PageRequest } from "@app/db";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type EvaluationRow, evaluationResults, evaluations } from "./schema.ts";

/** An evaluation's progress and totals, summed from its rows. */
export interface EvaluationTotals {
  rowsDone: number;
  meanScore: number | null;
  credits: number;
  meanLatencyMs: number | null;
}

/**
 * The workspace's evaluation, or undefined.
 *
 * @example const evaluation = await findEvaluation(db, workspaceId, "eval_…");
 */
export async function findEvaluation(db: BuilderDb, workspaceId: string, id: string) {
  const [row] = await db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.id, id), eq(evaluations.workspaceId, workspaceId)));
  return row;
}

/**
 * An evaluation's rows in dataset order.
 *
 * @example const rows = await listEvaluationResults(db, evaluation.id);
 */
export function listEvaluationResults(db: BuilderDb, evaluationId: string) {
  return db
    .select()
    .from(evaluationResults)
    .where(eq(evaluationResults.evaluationId, evaluationId))
    .orderBy(asc(evaluationResults.position));
}

/**
 * The workspace's evaluations, newest first, a page at a time; `targetId` keeps one agent's or workflow's.
 *
 * @example const rows = await listEvaluations(db, workspaceId, { limit: 20 });
 */
export function listEvaluations(
  db: BuilderDb,
  workspaceId: string,
  page: PageRequest & { targetId?: string | undefined },
): Promise<EvaluationRow[]> {
  const newest = newestFirst(evaluations.id, page);
  return db
    .select()
    .from(evaluations)
    .where(
      and(
        eq(evaluations.workspaceId, workspaceId),
        page.targetId ? eq(evaluations.targetId, page.targetId) : undefined,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
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
