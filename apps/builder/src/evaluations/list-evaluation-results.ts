import { asc, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { evaluationResults } from "./schema.ts";

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
